"""Texts of the lecture chapters (English, 中文): navigation, bookmarks, labels drawn on charts, predictions, chats.

Chapter titles and "what you will see" lines come from chunkviz.lessons.chapters (one source for both languages).
"""

from chunkviz.lessons.chapters import CHAPTERS

_CHAPTER_TEXTS = {key: pair for c in CHAPTERS for key, pair in (
    (f"chx.title.{c.number}", (c.title_en, c.title_zh)), (f"chx.see.{c.number}", (c.see_en, c.see_zh)))}

TEXTS: dict[str, tuple[str, str]] = {
    **_CHAPTER_TEXTS,
    "chx.nav_lecture": ("Lecture", "讲座"),
    "chx.nav_reference": ("Reference pages", "参考页面"),
    "chx.see": ("**What you will see:** {see}", "**你将看到**：{see}"),
    "chx.prev": ("◀ {n} · {title}", "◀ {n} · {title}"),
    "chx.next": ("{n} · {title} ▶", "{n} · {title} ▶"),
    "chx.prev_short": ("◀ Chapter {n}", "◀ 第 {n} 章"),
    "chx.next_short": ("Chapter {n} ▶", "第 {n} 章 ▶"),
    "chx.preset_note": ("This chapter replaces the sidebar's scenario with its own preset: {preset}.",
                        "本章不使用侧边栏的场景，而是用自己的预设：{preset}。"),
    "chx.preset.lecture": ("6 requests (5 chats, one 6,806-token document), Llama-3-8B on one H100, budget 512",
                           "6 个请求（5 个对话、1 篇 6,806 token 的文档），单卡 H100 上的 Llama-3-8B，预算 512"),
    "chx.preset.shared-prefix": ("6 requests sharing a 1,000-token system prompt, prefix caching on",
                                 "6 个请求共用 1,000 token 的系统提示词，开启前缀缓存"),
    "chx.preset.shared-prefix-sampling": ("6 requests sharing a 1,000-token system prompt, prefix caching on; the "
                                          "last asks for 2 answers (vLLM V0's fork and copy-on-write)",
                                          "6 个请求共用 1,000 token 的系统提示词，开启前缀缓存；最后一个要 2 个回答"
                                          "（vLLM V0 的分叉与写时复制）"),
    "chx.preset.classes": ("24 requests: 21 chats and 3 documents of 6–8k tokens, Llama-3-8B on one H100",
                           "24 个请求：21 个对话和 3 篇 6–8k token 的文档，单卡 H100 上的 Llama-3-8B"),
    "chx.sidebar_note": ("Lecture chapters run their own small presets, so the scenario, model and GPU widgets are "
                         "hidden here. The reference pages below use them.",
                         "讲座各章使用自己的小预设，所以这里隐藏了场景、模型和 GPU 控件；下面的参考页面会用到它们。"),
    "chx.bm.long_prefill": ("the document's prompt", "文档的提示词"),
    "chx.bm.long_last_chunk": ("the document's last chunk", "文档的最后一块"),
    "chx.bm.long_first_token": ("the document's first token", "文档的首个 token"),
    "chx.bm.longest_gap": ("the longest wait for a token", "最长的一次等 token"),
    "chx.bm.prefix_hit": ("the first prefix-cache hit", "第一次前缀缓存命中"),
    "chx.bm.longest_wait": ("the longest queue wait", "排队最久的请求"),
    "chx.bm.peak_sharing": ("the most shared blocks", "共享最多的时刻"),
    "chx.lesson": ("The lesson", "本章要点"),
    "chx.lbl.whole_prompt": ("R{rid}: {tokens:,}-token prompt, {ms:.0f} ms; {frozen} frozen",
                             "R{rid}：{tokens:,} token 的提示词，{ms:.0f} 毫秒；{frozen}卡住"),
    "chx.lbl.first_chunk": ("R{rid}: first chunk, {chunk:,} of {tokens:,} tokens, {ms:.0f} ms; {frozen} frozen",
                            "R{rid}：第一块，{tokens:,} 中的 {chunk:,} 个 token，{ms:.0f} 毫秒；{frozen}卡住"),
    "chx.lbl.last_chunk": ("R{rid}: last chunk, {chunk:,} tokens attend to {cached:,} cached ones",
                           "R{rid}：最后一块，{chunk:,} 个 token 对缓存中的 {cached:,} 个 token 做注意力"),
    "chx.lbl.first_token": ("R{rid}: first token {ms:,.0f} ms after arrival", "R{rid}：到达后 {ms:,.0f} 毫秒出首字"),
    "chx.lbl.longest_gap": ("longest step with chats waiting: {ms:.0f} ms, {frozen} frozen",
                            "对话等待最久的一步：{ms:.0f} 毫秒，{frozen} 个卡住"),
    "chx.lbl.prefix_hit": ("R{rid}: {hit:,} of {tokens:,} prompt tokens already cached",
                           "R{rid}：提示词 {tokens:,} 个 token 中有 {hit:,} 个已在缓存"),
    "chx.lbl.peak_sharing": ("{blocks} blocks shared, ref count up to {refs}", "{blocks} 个块被共享，引用计数最高 {refs}"),
    "chx.lbl.longest_wait": ("R{rid} queued {ms:,.0f} ms before its first step", "R{rid} 排队 {ms:,.0f} 毫秒才开始计算"),
    "chx.role.static": ("static batching", "静态批处理"),
    "chx.role.prefill_first": ("continuous, prefill-first (vLLM V0)", "连续批处理、预填充优先（vLLM V0）"),
    "chx.role.decode_first": ("continuous, decode-first with chunks (vLLM V1 / Sarathi)",
                              "连续批处理、解码优先并分块（vLLM V1 / Sarathi）"),
    "chx.role.vllm_nochunk": ("continuous, decode-first, whole prompts (vLLM V1, chunking off)",
                              "连续批处理、解码优先、整段提示词（vLLM V1，关闭分块）"),
    "chx.role.trtllm": ("TensorRT-LLM in-flight batching", "TensorRT-LLM 动态批处理"),
    "chx.role.sglang": ("SGLang defaults (prefill first, chunked)", "SGLang 默认（预填充优先、分块）"),
    "chx.engine_line": ("{engine}: {line}", "{engine}：{line}"),
    "chx.pred.title": ("Predict, then reveal", "先预测，再揭晓"),
    "chx.pred.hold": ("The chart stops just before this step until you answer.", "回答之前，图停在这一步之前。"),
    "chx.pred.first": ("Answer first, then step through and check.", "先作答，再一步步播放核对。"),
    "chx.pred.right": ("Right: the simulator agrees.", "答对了：模拟器的结果一致。"),
    "chx.pred.wrong": ("The simulator says otherwise: {answer}.", "模拟器的结果不同：{answer}。"),
    # Chat windows, filled in the browser (ui/components/comparison/comparison.js drawChats): numbers arrive
    # formatted, fields are {name}.
    "chx.chat.head": ("R{r} · prompt {prompt} tokens", "R{r} · 提示词 {prompt} token"),
    # Three windows a row (five or six on an engine, 1280 px): the header without the unit fits its window.
    "chx.chat.head_short": ("R{r} · prompt {prompt}", "R{r} · 提示词 {prompt}"),
    "chx.chat.table": ("Table R{r} · order: {prompt} tokens", "R{r} 号桌 · 点单 {prompt} token"),
    "chx.chat.not_arrived": ("not arrived yet", "尚未到达"),
    "chx.chat.reading": ("reading… {done} / {total} tokens", "读提示词… {done} / {total} token"),
    "chx.chat.queued": ("queued for {ms} ms", "已排队 {ms} 毫秒"),
    "chx.chat.first": ("1st token {ms} ms", "首字 {ms} 毫秒"),
    "chx.chat.gap": ("gap {ms} ms", "间隔 {ms} 毫秒"),
    "chx.chat.frozen": ("‖ frozen for {ms} ms", "‖ 已卡住 {ms} 毫秒"),
    "chx.chat.done": ("✓ done: {n} tokens", "✓ 完成：{n} 个 token"),
    "chx.chat.stove": ("The stove: {who}'s prompt ({p} tokens) + {dec} dishes", "灶台：{who} 的提示词（{p} token）+ {dec} 道菜"),
    "chx.chat.stove_one": ("The stove: {who}'s prompt ({p} tokens) + 1 dish", "灶台：{who} 的提示词（{p} token）+ 1 道菜"),
    "chx.chat.stove_decode": ("The stove: {dec} dishes, no prompt", "灶台：{dec} 道菜，没有提示词"),
    "chx.chat.stove_decode_one": ("The stove: 1 dish, no prompt", "灶台：1 道菜，没有提示词"),
    "chx.chat.stove_idle": ("The stove: idle", "灶台：空闲"),
    "chx.words": ("the kitchen plates one more dish for each table while a long order is cut into small "
                  "portions so nobody waits too long and the chef keeps cooking steadily",
                  "后厨给每桌再上一道菜，长单被切成小份，谁也不用久等，厨师一直在稳稳地炒菜"),
    "chx.metrics": ("TTFT p50 {ttft:,.1f} ms · TBT p99 {tbt:,.1f} ms · longest gap {gap:,.0f} ms · {thr:,.0f} tok/s",
                    "首字延迟 p50 {ttft:,.1f} 毫秒 · 字间延迟 p99 {tbt:,.1f} 毫秒 · 最长间隔 {gap:,.0f} 毫秒 · {thr:,.0f} token/秒"),
}
