"""Texts of the trade-offs page's capacity section (English, 中文)."""

from __future__ import annotations

TEXTS: dict[str, tuple[str, str]] = {
    "cap.title": ("Capacity: how much load fits within the targets?", "容量：在目标之内能承载多少负载？"),
    "cap.lesson": (
        "Engineers usually ask the question the other way round: with my latency targets, how many requests per "
        "second can this configuration carry? For each scheduling policy and budget the page searches the arrival "
        "rate (the same requests' lengths, regenerated at each rate with the sidebar's seed) for the highest one "
        "whose TBT p99 stays within the TBT target, whose median TTFT stays within the TTFT target, and whose "
        "median queueing delay (arrival to first schedule) stays within {queue_s:g} s, the bound of Sarathi-Serve's "
        "capacity search: an overloaded engine's queue keeps growing while the running requests' token gaps stay "
        "short, so without it a rate nobody could sustain would pass. "
        "The command line does the same: `python -m chunkviz capacity --slo-tbt-p99-ms 100 --json`.",
        "工程师通常反过来问：在我的延迟目标下，这个配置每秒能承载多少请求？页面对每种调度策略和预算搜索到达速率"
        "（每个速率都用侧边栏的种子重新生成同样长度分布的请求），找出字间延迟 p99 不超过字间延迟目标、首字延迟中位数"
        "不超过首字延迟目标、且排队时间（从到达到首次被调度）中位数不超过 {queue_s:g} 秒的最高速率。最后这条是 "
        "Sarathi-Serve 容量搜索的上限：过载的引擎队列会越排越长，而正在运行的请求字间延迟仍然很短，没有这条，"
        "一个根本撑不住的速率也会被算作通过。"
        "命令行也能做同样的事：`python -m chunkviz capacity --slo-tbt-p99-ms 100 --json`。"),
    "cap.toggle": ("Find the capacity of each setting (runs about a hundred simulations)",
                   "计算每个设置的容量（约需一百次模拟）"),
    "cap.running": ("Searching the capacity of {setting}…", "正在搜索 {setting} 的容量……"),
    "cap.axis_budget": ("max_num_batched_tokens", "max_num_batched_tokens"),
    "cap.axis_qps": ("capacity (requests/s)", "容量（请求/秒）"),
    "cap.policy.monolithic": ("prefill-first (vLLM V0)", "预填充优先（vLLM V0）"),
    "cap.policy.vllm-nochunk": ("vLLM V1, chunking off", "vLLM V1，关闭分块"),
    "cap.engine_default": ("engine default", "引擎默认值"),
    "cap.policy.chunked": ("chunked prefill", "分块预填充"),
    "cap.criterion": ("Criterion: {criterion} (the queue bound: Sarathi-Serve's median queueing delay ≤ "
                      "{queue_s:g} s). Rates searched from {low:g} to {high:g} requests/s.",
                      "判据：{criterion}（排队上限：Sarathi-Serve 的排队时间中位数 ≤ {queue_s:g} 秒）。搜索的速率范围为 "
                      "{low:g} 到 {high:g} 请求/秒。"),
    "cap.criterion_part": ("{name} <= {ms:g} ms", "{name} <= {ms:g} 毫秒"),
    "cap.and": (" and ", "，且 "),
    "cap.value": ("{qps:.1f}", "{qps:.1f}"),
    "cap.at_least": ("≥ {qps:.1f}", "≥ {qps:.1f}"),
    "cap.none": ("{setting}: even {low:g} requests/s misses the targets (or some prompt is refused).",
                 "{setting}：即使 {low:g} 请求/秒也达不到目标（或有提示词被拒绝）。"),
    "cap.bound": ("{setting}: the search bound was hit: every rate up to {high:g} requests/s met the targets, so "
                  "its bar (≥) is a lower bound, not the capacity (`bound_hit` in the command's JSON).",
                  "{setting}：搜索到了上限：直到 {high:g} 请求/秒的每个速率都满足目标，所以它的柱（≥）只是下限，"
                  "不是容量（命令行 JSON 里的 `bound_hit`）。"),
    "cap.best": ("Most load within the targets: **{setting}** at about {qps:.1f} requests/s.",
                 "在目标之内承载负载最多的是 **{setting}**，约 {qps:.1f} 请求/秒。"),
    "cap.best_bound": ("Most load within the targets: **{setting}**, at least {qps:.1f} requests/s (the top of the "
                       "search; raise the sidebar's rate to find its capacity).",
                       "在目标之内承载负载最多的是 **{setting}**，至少 {qps:.1f} 请求/秒（已到搜索上限；调高侧边栏的速率"
                       "才能找到它的容量）。"),
    "cap.setting": ("{policy} at {budget} tokens", "{policy}，{budget} 个 token"),
    "cap.setting_default": ("{policy} (budget: engine default, whole prompts)", "{policy}（预算：引擎默认值，整段提示词）"),
}
