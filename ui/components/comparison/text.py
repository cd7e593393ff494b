"""Texts of the comparison component (`/` and the chapters) and lecture mode (English, 中文); one term per concept (see ui/glossary.py)."""

TEXTS: dict[str, tuple[str, str]] = {
    "tlv.first": ("Go to the start (Home)", "回到开头（Home）"),
    "tlv.prev": ("Previous step (←)", "上一步（←）"),
    "tlv.next": ("Next step (→)", "下一步（→）"),
    "tlv.last": ("Go to the end (End)", "跳到结尾（End）"),
    "tlv.play": ("▶ Play", "▶ 播放"),
    "tlv.pause": ("⏸ Pause", "⏸ 暂停"),
    "tlv.follow": ("Follow (last 1.5 s)", "跟随（最近 1.5 秒）"),
    "tlv.follow_help": ("On: show the last 1.5 s before the cursor. Off: the whole run.",
                        "开：显示游标前 1.5 秒。关：显示整个运行过程。"),
    "tlv.time": ("Time", "时间"),
    "tlv.time_ms": ("ms", "毫秒"),
    "tlv.cursor": ("t = {ms} ms", "t = {ms} 毫秒"),
    "tlv.no_step": ("no step has started yet", "还没有开始任何步骤"),
    "tlv.step_of": ("step {n} of {total}", "第 {n} 步，共 {total} 步"),
    "tlv.step_idle": ("idle after step {n} of {total}", "第 {n} 步之后空闲（共 {total} 步）"),
    # A slide's caption: the engine's tag, its step counter (as its title says it), the scheduler's why-sentence.
    "tlv.moment": ("{engine}{step}: {why}", "{engine}{step}：{why}"),
    "tlv.steps": ("steps", "步骤"),
    "tlv.speed_sim": ("{x}× real time", "{x} 倍实时"),
    "tlv.speed_steps": ("{n} steps/s", "每秒 {n} 步"),
    "tlv.tip_step": ("{engine}, step {n}: {kind}\n{p} prefill + {dec} decode tokens\nfrom {from} to {to} ms "
                     "({dur} ms)",
                     "{engine}，第 {n} 步：{kind}\n预填充 {p} 个 + 解码 {dec} 个 token\n从 {from} 到 {to} 毫秒"
                     "（{dur} 毫秒）"),
    "tlv.tip_seg": ("R{r} {kind}: from {from} to {to} ms ({dur} ms)", "R{r} {kind}：从 {from} 到 {to} 毫秒（{dur} 毫秒）"),
    "tlv.tip_tokens": ("prompt tokens {a}–{b} of {total}", "提示词第 {a}–{b} 个 token，共 {total} 个"),
    "tlv.tip_decodes": ("{n} tokens written", "生成 {n} 个 token"),
    "tlv.kind_prefill": ("prefill only", "只有预填充"),
    "tlv.kind_decode": ("decode only", "只有解码"),
    "tlv.kind_mixed": ("mixed (prefill + decode)", "混合（预填充 + 解码）"),
    "tlv.mixed": ("mixed step", "混合步骤"),
    "tlv.cursor_legend": ("cursor", "游标"),
    "bm.longest_stall": ("{engine}: longest stall", "{engine}：最长卡顿"),
    "bm.long_prompt_chunk": ("{engine}: long prompt's first chunk", "{engine}：长提示词的第一块"),
    "bm.first_preemption": ("{engine}: first preemption", "{engine}：第一次抢占"),
    "bm.first_prefix_hit": ("{engine}: first prefix hit", "{engine}：第一次前缀命中"),
    "bm.title": ("R{r}: jump to the end of this event ({ms:.0f} ms long)", "R{r}：跳到该事件的结尾（持续 {ms:.0f} 毫秒）"),
    "unit.delta_ms": ("{v:+.1f} ms", "{v:+.1f} 毫秒"),
    "unit.tok_s": ("{v:,.0f} tok/s", "{v:,.0f} token/秒"),
    "unit.delta_tok_s": ("{v:+,.0f} tok/s", "{v:+,.0f} token/秒"),
    "tlv.present": ("Lecture mode", "授课模式"),
    "tlv.present_help": ("Large type, settings folded away: the comparison fits a 1280×720 projector. "
                         "Link: add ?present=1.",
                         "大字号、设置折叠：整个对比放得进 1280×720 的投影。链接：加上 `?present=1`。"),
    "tlv.settings": ("Settings", "设置"),
    "tlv.blank": ("Screen blanked: press B to show it again", "画面已遮住：按 B 重新显示"),
    # `/`'s one line for a newcomer, above the legend and the lanes (comparison.js, not on a chapter's slide).
    "tlv.guide": ("What you see: each engine's requests, one row each, on one time axis. A bar is what the "
                  "engine does for that request in each step: waiting, prefill (reading its prompt), decode (writing "
                  "its tokens), stalled decode (its chat frozen). The cursor line is now: → steps, Space plays.",
                  "看什么：每个引擎的请求各占一行，共用一条时间轴。条形是引擎每一步为这个请求做的事：等待、预填充（读它的"
                  "提示词）、解码（写它的 token）、解码卡顿（它的对话停住）。游标竖线就是现在：→ 单步，空格播放。"),
    "tlv.clicker": ("PageDown / PageUp: next / previous moment · B: blank · F: full screen",
                    "PageDown / PageUp：下一个 / 上一个时刻 · B：遮住画面 · F：全屏"),
}
