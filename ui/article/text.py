"""Texts of the seed-article demo page (English, 中文); flaw sentences keyed by chunkviz.lessons.seed_demo.FLAWS codes."""

from chunkviz.lessons.seed_demo import FLAWS


TEXTS: dict[str, tuple[str, str]] = {
    "sd.title": ("The article's demo, rerun", "重跑原文的演示"),
    "sd.lesson": (
        "The article ends with a small Python scheduler that compares whole-prompt prefill with chunked prefill. Run "
        "as written, it prints that chunking makes the total time 1.77× and the mean time to first token 1.99× "
        "longer: the opposite of what the article argues. Below are its figures reproduced exactly, the same runs "
        "measured properly, a realistic engine on the same kind of workload, and the flaws in the toy that explain the gap.",
        "原文最后给了一个小的 Python 调度器，用来比较整体预填充和分块预填充。照原样运行，它打印出的结果是：分块让总耗时"
        "变为 1.77 倍、平均首字延迟变为 1.99 倍——与文章的论点正好相反。下面依次给出：一字不差复现的原始数字、对同一次运行的正确度量、"
        "一个贴近真实的引擎在同类负载上的表现，以及解释这种反差的几处缺陷。"),
    "sd.chunk": ("Toy chunk size (tokens)", "玩具分块大小（token）"),
    "sd.seed": ("Toy random seed", "玩具随机种子"),
    "sd.n": ("Toy requests", "玩具请求数"),
    "sd.error": ("The toy cannot run with these values: {error}", "玩具模型无法用这些值运行：{error}"),
    "sd.printed": ("As the article prints it", "原文打印的结果"),
    "sd.printed_note": ("Same format as the article: %d steps, %.1f for the mean and the \"P95\". Defaults (30 "
                        "requests, seed 7, chunk 8) give exactly its numbers.",
                        "格式与原文相同：步数用 %d，均值和“P95”用 %.1f。默认值（30 个请求、种子 7、分块 8）正好得到原文"
                        "的数字。"),
    "sd.corrected": ("Measured properly", "正确的度量"),
    "sd.corrected_note": ("The same two runs, not re-simulated: TTFT counted from each request's arrival, and the "
                          "nearest-rank 95th percentile. All times are in toy steps.",
                          "还是这两次运行，没有重新模拟：首字延迟从每个请求到达时开始计，P95 用最近秩法。所有时间的单位都是"
                          "玩具的“时间步”。"),
    "sd.col.mode": ("mode", "模式"),
    "sd.col.steps": ("total steps", "总步数"),
    "sd.col.mean": ("mean TTFT", "平均首字延迟"),
    "sd.col.p95_toy": ('"P95" TTFT', "“P95” 首字延迟"),
    "sd.col.mean_arr": ("mean TTFT from arrival", "从到达起算的平均首字延迟"),
    "sd.col.p95_arr": ("P95 首字延迟 from arrival", "从到达起算的 P95 首字延迟"),
    "sd.mode.monolithic": ("whole-prompt prefill", "整体预填充"),
    "sd.mode.chunked": ("chunked prefill ({chunk})", "分块预填充（{chunk}）"),
    "sd.chart_title": ("Toy TTFT per request (steps)", "玩具模型中每个请求的首字延迟（时间步）"),
    "sd.lbl.request": ("request (arrival order)", "请求（按到达顺序）"),
    "sd.lbl.steps": ("steps", "时间步"),
    "sd.lbl.wait_mono": ("whole-prompt: wait from arrival", "整体：从到达起的等待"),
    "sd.lbl.wait_chunked": ("chunked: wait from arrival", "分块：从到达起的等待"),
    "sd.lbl.abs_mono": ("whole-prompt: what the toy counts", "整体：玩具记下的值"),
    "sd.lbl.abs_chunked": ("chunked: what the toy counts", "分块：玩具记下的值"),
    "sd.lbl.prompt": ("prompt tokens", "提示词 token"),
    "sd.real": ("A realistic engine on the same kind of workload", "贴近真实的引擎，同类负载"),
    "sd.real_note": ("{n} requests drawn from the article's distribution (seed {seed}) arriving at {qps:g} per "
                     "second (sidebar), on {model} and {gpu}; milliseconds, not toy steps.",
                     "{n} 个请求按原文的分布抽样（种子 {seed}），以每秒 {qps:g} 个的速率到达（见侧边栏），运行在 "
                     "{gpu} 上的 {model}；单位是毫秒，而不是玩具的时间步。"),
    "sd.real_mono": ("Prefill-first whole prompts (vLLM V0 scheduler)", "预填充优先的整段预填充（vLLM V0 调度器）"),
    "sd.real_chunked": ("Chunked prefill, budget 512 (deltas against the row above)",
                        "分块预填充，预算 512（差值相对上一行）"),
    "sd.why": ("Why the toy says the opposite", "为什么玩具模型得出相反的结论"),
    "sd.why_text": (
        "Chunking was never meant to make prefill faster. It trades a little time to first token for steady token "
        "gaps: no running request has to wait while a long prompt is prefilled. In the realistic run above, look at "
        "TBT p99. The toy cannot show that benefit, because it measures no token gaps at all, and it makes chunking "
        "slower than it is: its whole-prompt path prefills {mono_rate:g} prompt tokens per step ({budget} work units "
        "at {weight:g} units per token), while its chunked path prefills at most one chunk of {chunk} tokens per "
        "step, and only when the decodes leave room for it.",
        "分块本来就不是为了让预填充更快。它用一点点首字延迟，换来平稳的字间延迟：长提示词预填充期间，正在生成的请求"
        "不必停下来等。请看上面真实模拟里的字间延迟 p99。玩具模型展示不了这个好处，因为它根本不统计字间延迟；而且它让分块"
        "比实际更慢：整体路径每步预填充 {mono_rate:g} 个提示词 token（预算 {budget} 个工作单位，每个 token 耗 "
        "{weight:g} 个单位），分块路径每步最多只处理一个 {chunk} token 的分块，而且只有在解码留出余量时才处理。"),
    "sd.flaws": ("The toy's flaws", "玩具模型的缺陷"),
    "sd.flaw_item": ("- **{title}.** {text}", "- **{title}**：{text}"),
    "sd.flaw_title.ttft_absolute": ("TTFT from time zero", "首字延迟从零时刻算起"),
    "sd.flaw_title.p95_index_off_by_one": ("P95 one rank low", "P95 差了一位"),
    "sd.flaw_title.chunk_one_per_step": ("One chunk per step", "每步只处理一个分块"),
    "sd.flaw_title.monolithic_prefill_jump": ("Stalls not counted", "卡顿不计入"),
    "sd.flaw_title.chunk_over_budget_stalls": ("Large chunks hang", "分块过大会卡死"),
    "sd.flaw.ttft_absolute": (FLAWS["ttft_absolute"],
                              "首字延迟记录的是首个 token 出现时的绝对时间步，而不是从请求到达起经过的时间，所以一个请求"
                              "仅仅因为到得晚，看起来就很慢。"),
    "sd.flaw.p95_index_off_by_one": (FLAWS["p95_index_off_by_one"],
                                     "所谓“P95”读的是排序后下标 int(0.95·n) - 1 的值；只要 0.95·n 不是整数，它就比"
                                     "最近秩法的 P95（第 ⌈0.95·n⌉ 名）低一名：30 个请求时，它报告的是第 28 小的首字延迟，"
                                     "而不是第 29 小的。"),
    "sd.flaw.chunk_one_per_step": (FLAWS["chunk_one_per_step"],
                                   "分块路径每步最多预填充一个分块，而且要等所有解码都跑完之后；剩下的预算从不用来处理"
                                   "第二个分块，所以一个 2048 token 的提示词按 8 token 分块至少要 256 步，长提示词只能"
                                   "排在解码后面挨饿。"),
    "sd.flaw.monolithic_prefill_jump": (FLAWS["monolithic_prefill_jump"],
                                        "整体路径把一次完整的预填充算作时钟的一次跳跃，其间没有任何解码在运行；排队的"
                                        "预填充一个接一个地跳，于是正在生成的请求全部卡住，而这段卡顿并没有被算作工作。"),
    "sd.flaw.chunk_over_budget_stalls": (FLAWS["chunk_over_budget_stalls"],
                                         "如果一个分块的开销超过整个预算（chunk · wp > budget），分块路径永远不会预填充，"
                                         "玩具的循环也永远不会结束；这里的实现会直接拒绝这样的分块。"),
}
