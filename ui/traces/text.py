"""Texts of the real-traces page (English, 中文)."""

TEXTS: dict[str, tuple[str, str]] = {
    "rt.title": ("Replay real traffic", "回放真实流量"),
    "rt.lesson": (
        "A menu rehearsal with invented orders tells you little about a real Friday night: real diners arrive in "
        "clumps, and a few banquet-sized orders hide among many snacks. How much chunked prefill helps depends on "
        "exactly that mix of long prompts and bursty arrivals, so here we replay logged requests, with their real "
        "arrival times and lengths, through both schedulers.",
        "用编造的点单排练菜单，说明不了真正的周五晚高峰：真实的客人成群到来，少数宴席级的大单藏在大量小吃单里。"
        "分块预填充能帮多少忙，恰恰取决于长提示词的比例和到达的突发程度，所以这里用真实日志中的请求，按原样的到达时间"
        "和长度，分别交给两种调度器回放。"),
    "rt.sample_about": (
        "The default trace is real: the first 90 seconds (332 requests) of Microsoft's Azure LLM inference trace "
        "2023, conversation service, copied byte for byte.",
        "默认流量是真实的：微软 Azure LLM 推理轨迹 2023（对话服务）的前 90 秒（332 个请求），逐字节原样复制。"),
    "rt.attribution": (
        "Data: Azure Public Dataset, “Azure LLM inference trace 2023”, Microsoft, licensed "
        "[CC BY 4.0](https://creativecommons.org/licenses/by/4.0/). Source: "
        "[github.com/Azure/AzurePublicDataset](https://github.com/Azure/AzurePublicDataset). Please cite Pratyush "
        "Patel, Esha Choukse, Chaojie Zhang, Aashaka Shah, Íñigo Goiri, Saeed Maleki, Ricardo Bianchini, "
        "“Splitwise: Efficient generative LLM inference using phase splitting”, ISCA 2024. The only change is the "
        "cut to this time window; the data comes as-is, without warranty, and Microsoft does not endorse chunkviz.",
        "数据：Azure Public Dataset，“Azure LLM inference trace 2023”，微软，采用 "
        "[CC BY 4.0](https://creativecommons.org/licenses/by/4.0/) 许可。来源："
        "[github.com/Azure/AzurePublicDataset](https://github.com/Azure/AzurePublicDataset)。引用请注明论文作者 "
        "Pratyush Patel、Esha Choukse、Chaojie Zhang、Aashaka Shah、Íñigo Goiri、Saeed Maleki、Ricardo Bianchini："
        "《Splitwise: Efficient generative LLM inference using phase splitting》，ISCA 2024。唯一的改动是截取了"
        "这个时间窗口；数据按原样提供、不附任何担保，微软不为 chunkviz 背书。"),
    "rt.source": ("Trace", "流量来源"),
    "rt.src.sample": ("Bundled Azure conversation sample", "内置 Azure 对话样本"),
    "rt.src.upload": ("Upload my own file", "上传自己的文件"),
    "rt.format": ("File format", "文件格式"),
    "rt.format_help": ("Used for uploads; the bundled sample is always Azure CSV.",
                       "仅用于上传的文件；内置样本始终是 Azure CSV。"),
    "rt.fmt.auto": ("detect from the file", "根据文件自动识别"),
    "rt.fmt.azure": ("Azure 2023 CSV", "Azure 2023 CSV"),
    "rt.fmt.mooncake": ("Mooncake JSONL (prefix block ids)", "Mooncake JSONL（含前缀块 ID）"),
    "rt.fmt.csv": ("plain CSV", "普通 CSV"),
    "rt.upload": ("Trace file (.csv or .jsonl, at most {mb} MB)", "流量文件（CSV 或 JSONL，最大 {mb} MB）"),
    "rt.upload_help": (
        "Azure CSV: TIMESTAMP,ContextTokens,GeneratedTokens. Mooncake: one JSON object per line with timestamp "
        "(ms), input_length, output_length, hash_ids and an optional max_tokens. Plain CSV: "
        "arrival_s,prompt_tokens,output_tokens, an optional prefix_ids column like 3;7;9 and an optional "
        "max_tokens column (the client's: a number, empty for unset).",
        "Azure CSV：`TIMESTAMP,ContextTokens,GeneratedTokens`。Mooncake：每行一个 JSON 对象，含 `timestamp`（毫秒）、"
        "input_length、output_length、hash_ids，可选 max_tokens。普通 CSV：arrival_s,prompt_tokens,output_tokens，"
        "可选 prefix_ids 列，例如 3;7;9，以及可选 max_tokens 列（客户端发送的值：一个数，留空表示未设置）。"),
    "rt.upload_wait": ("Choose a file above; until then the bundled sample is shown.",
                       "请在上方选择文件；在此之前显示内置样本。"),
    "rt.bad_upload": ("Could not load {name}: {error}", "无法加载 {name}：{error}"),
    "rt.fallback": ("Nothing from that file was used: the page shows the bundled Azure sample instead.",
                    "该文件中的任何内容都未被使用：页面改为显示内置的 Azure 样本。"),
    "rt.loaded": ("Loaded {name}: {n} requests, format {fmt}.", "已加载 {name}：{n} 个请求，格式 {fmt}。"),
    "rt.note": ("Load note: {note}", "加载说明：{note}"),
    "rt.select": ("What to replay", "回放哪一段"),
    "rt.start": ("Window start (s)", "窗口起点（秒）"),
    "rt.end": ("Window end (s)", "窗口终点（秒）"),
    "rt.rate": ("Rate scale k (k× load)", "速率倍数 k（k 倍负载）"),
    "rt.rate_help": ("Arrival times are divided by k: k = 2 replays the same requests twice as fast.",
                     "到达时间除以 k：k = 2 表示同样的请求以两倍速度到来。"),
    "rt.sample": ("Sample size (requests)", "抽样数（请求）"),
    "rt.seed": ("Sample seed", "抽样种子"),
    "rt.limit": ("The app replays at most {max} requests per run (the command line takes more); a window holding "
                 "more is cut to a seeded random sample.",
                 "应用每次最多回放 {max} 个请求（命令行可以更多）；窗口中更多的请求会按种子随机抽样。"),
    "rt.bad_window": ("The window start ({start:g} s) must be before its end ({end:g} s); using the whole trace "
                      "instead.",
                      "窗口起点（{start:g} 秒）必须早于终点（{end:g} 秒）；改为使用整段流量。"),
    "rt.bad_select": ("Cannot use this window: {error}. Using the whole trace instead.",
                      "无法使用这个窗口：{error}。改为使用整段流量。"),
    "rt.kept_all": ("All {n} requests that arrive in the window are replayed, at {k:g}× their logged rate.",
                    "窗口内到达的 {n} 个请求全部回放，速率为日志中的 {k:g} 倍。"),
    "rt.kept_sample": ("{n} of the {m} requests in the window are replayed (seeded sample), at {k:g}× their logged "
                       "rate. Sampling thins the load to about {share:.0%}; raise k to restore it.",
                       "窗口内 {m} 个请求中回放 {n} 个（按种子抽样），速率为日志中的 {k:g} 倍。抽样把负载稀释到约 "
                       "{share:.0%}；可以调大 k 补回来。"),
    "rt.summary": ("What the traffic looks like", "这段流量长什么样"),
    "rt.col_loaded": ("loaded trace", "加载的流量"),
    "rt.col_replayed": ("replayed", "回放部分"),
    "rt.row.requests": ("requests", "请求数"),
    "rt.row.duration": ("duration (s)", "时长（秒）"),
    "rt.row.rate": ("arrival rate (requests/s)", "到达速率（请求/秒）"),
    "rt.row.cv": ("burstiness (CV of gaps)", "突发度（间隔的变异系数）"),
    "rt.row.prompt": ("prompt tokens p50 / p90 / p99", "提示词 token p50 / p90 / p99"),
    "rt.row.output": ("output tokens p50 / p90 / p99", "输出 token p50 / p90 / p99"),
    "rt.cv_help": ("Burstiness is the coefficient of variation of the gaps between arrivals: 0 for a metronome, "
                   "about 1 for random (Poisson) arrivals, well above 1 when requests come in bursts.",
                   "突发度是相邻到达间隔的变异系数：节拍器般均匀为 0，随机（泊松）到达约为 1，成批涌来时远大于 1。"),
    "rt.none": ("–", "–"),
    "rt.lbl.arrivals": ("Arrivals (replayed, {bin_s} s bins)", "到达（回放部分，每格 {bin_s} 秒）"),
    "rt.lbl.requests": ("requests", "个请求"),
    "rt.lbl.prompt": ("prompt", "提示词"),
    "rt.lbl.output": ("output", "输出"),
    "rt.lbl.blocks": ("blocks", "块"),
    "rt.lbl.ms": ("ms", "毫秒"),
    "rt.lbl.arrival_rate": ("requests/s", "请求/秒"),
    "rt.lbl.mean_rate": ("mean", "平均"),
    "rt.lbl.time_s": ("time (s)", "时间（秒）"),
    "rt.lbl.lengths": ("Prompt vs output length (replayed)", "提示词与输出长度（回放部分）"),
    "rt.lbl.prompt_tokens": ("prompt tokens (log scale)", "提示词 token（对数刻度）"),
    "rt.lbl.output_tokens": ("output tokens", "输出 token"),
    "rt.replay": ("Replay: prefill-first vs chunked prefill", "回放：预填充优先与分块预填充对比"),
    "rt.replay_note": ("Same requests on the sidebar's model and GPU ({model} on {gpu}); only the scheduler "
                       "differs. Prefix caching is off in both here (vLLM V1 ships it on), so the cards compare the "
                       "schedulers alone; the prefix-cache study below measures the cache.",
                       "同一批请求，使用侧边栏的模型和 GPU（{model}，{gpu}）；只有调度器不同。这里两者都关闭前缀缓存"
                       "（vLLM V1 默认开启），因此卡片只比较调度器；下方的前缀缓存分析衡量缓存本身。"),
    "rt.budget": ("max_num_batched_tokens (chunked engine)", "max_num_batched_tokens（分块引擎）"),
    "rt.eng.monolithic": ("prefill-first (vLLM V0)", "预填充优先（vLLM V0）"),
    "rt.eng.chunked": ("Chunked prefill, budget {budget}", "分块预填充，预算 {budget}"),
    "rt.delta_note": ("Deltas compare chunked prefill with prefill-first; green is better.",
                      "差值是分块预填充相对预填充优先；绿色表示更好。"),
    "rt.takeaway": (
        "Read the bars as a trade: chunking usually costs some time to first token (a long prompt now takes several "
        "steps) and buys a steadier stream for everyone already being served (a lower p99 TBT). Raise k to watch "
        "both grow with the load, or change the budget.",
        "把这组柱子当作一笔交换来读：分块通常让首字延迟稍长一些（长提示词要分几步算完），换来所有正在输出的请求更平稳"
        "（字间延迟 p99 更低）。调大 k 可以看到两者随负载一起变化，也可以换一个预算试试。"),
    "rt.lbl.compare": ("Latency on this trace", "这段流量上的延迟"),
    "rt.lbl.ttft": ("time to first token (ms)", "首字延迟（毫秒）"),
    "rt.lbl.tbt": ("time between tokens (ms)", "字间延迟（毫秒）"),
    "rt.prefix": ("Prefix cache: how much of each prompt could be reused?", "前缀缓存：每个提示词有多少可以复用？"),
    "rt.prefix_lesson": (
        "This trace names its prompt blocks (512 tokens each) by a hash of the block and everything before it, so "
        "equal ids mean KV that could be reused, like a sauce base prepared once for several tables. Every request "
        "in the window (not just the sample: sampling would break reuse chains) replays its blocks through a cache "
        "of C blocks, timing ignored; a request's hits stop at its first miss.",
        "这份流量用“该块及其之前所有内容”的哈希给每个提示词块（每块 512 个 token）命名，所以 ID 相同就意味着 KV "
        "可以复用，好比一份酱汁底料备好一次、供好几桌使用。窗口内的每个请求（不只是抽样部分：抽样会打断复用链）都把"
        "自己的块依次送进一个容量为 C 块的缓存，忽略时间；一个请求的命中到第一次未命中为止。"),
    "rt.studying": ("Replaying the blocks of {n:,} requests through caches of every size and policy (once per "
                    "window)…",
                    "正在把 {n:,} 个请求的块送进各种容量和策略的缓存（每个窗口只算一次）……"),
    "rt.prefix_caption": ("{r} requests, {d:,} distinct blocks; with unlimited room the hit rate is {c:.1%}.",
                          "{r} 个请求，{d:,} 个不同的块；容量不限时命中率为 {c:.1%}。"),
    "rt.prefix_none": (
        "This trace carries no prefix block ids, so there is no prefix-cache study for it. Upload a Mooncake JSONL "
        "file (hash_ids) or a CSV with a prefix_ids column to see one.",
        "这份流量没有前缀块 ID，因此没有前缀缓存分析。上传 Mooncake JSONL 文件（含 hash_ids）或带 prefix_ids 列的 "
        "CSV 即可看到。"),
    "rt.lbl.capacity": ("cache size (blocks, log scale)", "缓存容量（块，对数刻度）"),
    "rt.lbl.hit_rate": ("prefix hit rate", "前缀命中率"),
    "rt.lbl.ceiling": ("unlimited room", "容量不限"),
    "rt.lbl.prefix_title": ("Hit rate vs cache size", "命中率与缓存容量"),
}
