"""Texts of the timeline page (English, 中文)."""

TEXTS: dict[str, tuple[str, str]] = {
    "tl.title": ("Monolithic vs chunked prefill", "整体预填充 vs 分块预填充"),
    "tl.lesson": (
        "A kitchen that stops every stove to prep a 100-dish banquet makes every other table wait. Here a long "
        "prompt arrives while chats are streaming: under a prefill-first scheduler (vLLM V0, Orca-style) its whole "
        "prefill is one long step and every running chat gets no token (red stalls); vLLM V1 without chunking runs "
        "it in the same step as the decodes (one long step, no token skipped); with chunked prefill the prompt is cut to fit the token budget "
        "and the chats keep flowing. Step through it, or press Play.",
        "厨房若为一桌 100 道菜的宴席让所有灶台停下来备菜，其他桌只能干等。这里，一个长提示词在聊天正在输出时到达："
        "在预填充优先的调度器（vLLM V0，Orca 式）下，它的整个预填充是一个很长的步骤，所有正在输出的聊天都拿不到 token"
        "（红色卡顿）；vLLM V1 不分块时把它和解码放在同一步（一步很长，但不跳过 token）；分块预填充把提示词"
        "切成适合 token 预算的小块，聊天继续流畅输出。可以逐步查看，或按播放。"),
    "tl.policy_a": ("Left/top engine", "上方引擎"),
    "tl.policy_b": ("Compared engine", "对比引擎"),
    "tl.budget": ("max_num_batched_tokens (chunked engines)", "max_num_batched_tokens（分块引擎）"),
    "tl.threshold": ("long_prefill_token_threshold (0 = off)", "long_prefill_token_threshold（0 为关闭）"),
    "tl.mixed": ("SGLang --enable-mixed-chunk", "SGLang --enable-mixed-chunk"),
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
}
