"""Texts of the timeline page (English, 中文)."""

TEXTS: dict[str, tuple[str, str]] = {
    "tl.title": ("Prefill-first vs chunked prefill", "预填充优先与分块预填充对比"),
    "tl.lesson": (
        "A kitchen that stops every stove to prep a 100-dish banquet makes every other table wait. Here a long "
        "prompt arrives while chats are streaming: under prefill-first (vLLM V0) its whole "
        "prefill is one long step and every running chat gets no token (red stalls); vLLM V1 without chunking runs "
        "it in the same step as the decodes (one long step, no token skipped); with chunked prefill the prompt is cut to fit the token budget "
        "and the chats keep flowing. Step through it, or press Play.",
        "厨房若为一桌 100 道菜的宴席让所有灶台停下来备菜，其他桌只能干等。这里，一个长提示词在聊天正在输出时到达："
        "在预填充优先（vLLM V0）下，它的整个预填充是一个很长的步骤，所有正在输出的聊天都拿不到 token"
        "（红色卡顿）；vLLM V1 不分块时把它和解码放在同一步（一步很长，但不跳过 token）；分块预填充把提示词"
        "切成适合 token 预算的小块，聊天继续流畅输出。可以逐步查看，或按播放。"),
    "tl.policy_a": ("Left/top engine", "上方引擎"),
    "tl.policy_b": ("Compared engine", "对比引擎"),
    "tl.budget": ("max_num_batched_tokens (chunked engines)", "max_num_batched_tokens（分块引擎）"),
    "tl.threshold": ("long_prefill_token_threshold (0 = off)", "long_prefill_token_threshold（0 为关闭）"),
    "tl.mixed": ("SGLang --enable-mixed-chunk", "SGLang `--enable-mixed-chunk`"),
    "tl.stall": ("stall", "卡顿"),
    "tl.follow": ("Follow the cursor (last 1.5 s)", "跟随游标（最近 1.5 秒）"),
    "tl.follow_help": ("Off: draw the whole run on one time axis.", "关闭：在一条时间轴上画出整个运行过程。"),
    "tl.preemption": ("preemption", "抢占"),
    "tl.first_token": ("first token", "首个 token"),
    "tl.batch": ("This step's batch: {policy}", "本步批次：{policy}"),
    "tl.no_step": ("No step has started yet at this time.", "此刻还没有开始任何步骤。"),
    "tl.delta_note": ("Deltas compare the second engine with the first; green is better.",
                      "差值是第二个引擎相对第一个；绿色表示更好。"),
    "tl.downloads": ("Downloads", "下载"),
    "lbl.steps": ("engine steps", "引擎步骤"),
    "lbl.waiting": ("waiting", "等待"),
    "lbl.prefill": ("prefill", "预填充"),
    "lbl.decode": ("decode", "解码"),
    "lbl.stall": ("stalled decode", "解码卡顿"),
    "lbl.preempted": ("preempted", "被抢占"),
    "lbl.time_ms": ("time (ms)", "时间（毫秒）"),
    "lbl.requests": ("requests (arrival order)", "请求（按到达顺序）"),
    "lbl.budget": ("budget", "预算"),
    "lbl.tokens": ("tokens in the step", "本步 token 数"),
    "tl.ttft_lesson": (
        "**What chunking costs: time to first token.** With {b}, TTFT is {r50:.1f}× that of {a} at p50 "
        "({b50:.1f} vs {a50:.1f} ms) and {r99:.1f}× at p99 ({b99:.1f} vs {a99:.1f} ms): while a long prompt is cut into chunks, "
        "each step gives the chunk most of the budget, so a new chat queues behind the chunks for several steps "
        "instead of being prefilled at once. Decodes stop stalling; new requests wait longer.",
        "**分块的代价：首字延迟。** {b} 的首字延迟在 p50 是 {a} 的 {r50:.1f} 倍（{b50:.1f} 对 {a50:.1f} 毫秒），"
        "在 p99 是 {r99:.1f} 倍（{b99:.1f} 对 {a99:.1f} 毫秒）：长提示词被切块时，每一步都把大部分预算给了这个块，"
        "新来的聊天要在这些块后面排几步队，而不是立刻被预填充。解码不再卡顿，新请求等得更久。"),
    "tl.try_it": ("Try it: long_prefill_token_threshold = {v}", "试一试：long_prefill_token_threshold = {v}"),
    "tl.try_effect": (
        "The fix: cap one prompt's tokens per step so the rest of the budget admits new chats. Measured here with "
        "{v}: TTFT p50 {p50:.1f} → **{p50_fix:.1f} ms**, TTFT p99 {p99:.1f} → {p99_fix:.1f} ms (the long prompt "
        "itself now takes more steps), TBT p99 {tbt:.1f} → {tbt_fix:.1f} ms.",
        "解决办法：限制一个提示词每步最多用多少 token，让剩下的预算接纳新聊天。这里用 {v} 实测：首字延迟 p50 "
        "{p50:.1f} → **{p50_fix:.1f} 毫秒**，首字延迟 p99 {p99:.1f} → {p99_fix:.1f} 毫秒（长提示词本身要更多步），"
        "字间延迟 p99 {tbt:.1f} → {tbt_fix:.1f} 毫秒。"),
    "tl.caching_note": (
        "Prefix caching as each engine ships it: on in {on}, off in {off}. {effect}",
        "前缀缓存按各引擎的默认设置：{on} 开启，{off} 关闭。{effect}"),
    "tl.caching_none": ("No prompt in this workload shares a prefix with another, so it changes nothing here.",
                        "这个负载中没有提示词与其他提示词共享前缀，所以这里它没有任何影响。"),
    "tl.caching_hits": ("Here {on} reads {rate:.0%} of prompt tokens from the cache, so part of its lead is the "
                        "cache, not the scheduling.",
                        "这里 {on} 有 {rate:.0%} 的提示词 token 来自缓存，所以它的优势有一部分来自缓存，而不是调度。"),
}
