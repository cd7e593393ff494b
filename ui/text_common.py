"""Texts shared by the sidebar and several pages (English, 中文): the app's own, the units charts name, the
policies' labels (read from the policy registry: one entry per policy carries its English and Chinese label) and
the core's why-sentence templates (registered here so the i18n tests check them).

Invariant: one dict TEXTS of key → (English, 中文); the labels and templates are the core's, never copied.
"""

from chunkviz.analysis.why import WHY_TEXTS
from chunkviz.simulator.policies.registry import REGISTRY

TEXTS: dict[str, tuple[str, str]] = {
    "app.title": ("chunkviz", "chunkviz"),
    "lang.label": ("Language", "语言"),
    "side.scenario": ("Scenario", "场景"),
    "side.model": ("Model", "模型"),
    "side.gpu": ("GPU", "GPU"),
    "side.workload": ("Workload", "负载"),
    "side.num_requests": ("Requests", "请求数"),
    "side.qps": ("Arrival rate (requests/s)", "到达速率（请求/秒）"),
    "side.seed": ("Random seed", "随机种子"),
    "side.limits": ("Limits: at most {n} requests per simulation in the app (the CLI takes more).",
                    "限制：应用中每次模拟最多 {n} 个请求（命令行可以更多）。"),
    "side.own_model": ("Your own model (config.json)", "自定义模型（config.json）"),
    "side.own_gpu": ("Your own GPU (JSON)", "自定义 GPU（JSON）"),
    "side.own_gpu_help": ('Keys: peak_tflops, hbm_tb_per_s, memory_gb, optional interconnect_gb_per_s',
                          "键：peak_tflops、hbm_tb_per_s、memory_gb，可选 interconnect_gb_per_s"),
    "side.custom_loaded": ("Using your {what}: {name}", "正在使用你的{what}：{name}"),
    "side.bad_file": ("Could not use that file: {error}", "无法使用该文件：{error}"),
    "nav.timeline": ("Prefill-first vs chunked", "预填充优先与分块预填充"),
    "nav.kv": ("Paged KV cache", "分页 KV 缓存"),
    "nav.paging": ("Page replacement", "页面置换"),
    "nav.tradeoffs": ("Trade-offs", "延迟与吞吐权衡"),
    "nav.attention": ("Attention math", "注意力数学"),
    "nav.seed": ("The article's demo", "原文的演示"),
    "nav.quiz": ("Quiz", "测验"),
    "nav.traces": ("Real traces", "真实流量"),
    "preset.long-among-chats": ("Long prompts among chats", "聊天中夹着长提示词"),
    "preset.seed-article": ("The article's distribution", "原文的分布"),
    "preset.azure-conv-like": ("Azure conversation-like", "类 Azure 对话流量"),
    "preset.azure-code-like": ("Azure code-like (bursty)", "类 Azure 代码流量（突发）"),
    "preset.shared-system-prompt": ("Shared system prompt", "共享系统提示词"),
    "preset.multi-turn": ("Multi-turn conversations", "多轮对话"),
    "preset.parallel-sampling": ("Parallel sampling (n=4)", "并行采样（n=4）"),
    "preset.synthetic": ("Synthetic (Poisson, lognormal)", "合成（泊松到达、对数正态长度）"),
    "explain.title": ("Explain this step", "解释这一步"),
    "explain.none": ("Nothing happened in this step beyond computing.", "这一步除了计算没有别的事件。"),
    "dl.csv": ("Per-request metrics (CSV)", "每个请求的指标（CSV）"),
    "dl.json": ("Trace (JSON)", "轨迹（JSON）"),
    "dl.chrome": ("Engine steps (Chrome/Perfetto trace)", "引擎步骤（Chrome/Perfetto 轨迹）"),
    "err.note": ("Note: {note}", "提示：{note}"),
    "err.config": ("This setting cannot run: {error}", "这个设置无法运行：{error}"),
    "run.simulating": ("Simulating… (changing a setting again starts the new run as soon as this one ends)",
                       "正在模拟……（再改设置，新一轮会在这一轮结束后立即开始）"),
    # The definitions, once for every page (ui/page_common.definitions renders those a page uses). Sources: TBT is
    # every gap between two output tokens of a request (Trace.tbt_gaps_s), which is what vLLM's benchmark and the
    # seed article call ITL; goodput as chunkviz/analysis/goodput.py defines it.
    "def.ttft": ("TTFT (time to first token): from a request's arrival to its first output token, waiting in the "
                 "queue included.",
                 "首字延迟：从请求到达到它的第一个输出 token 的时间，包括在队列中等待的时间。"),
    "def.tbt": ("TBT (time between tokens): the gap between two consecutive output tokens of one request, taken over "
                "every gap of every request. The seed article and vLLM's benchmark call the same gaps ITL "
                "(inter-token latency): another name, the same measure.",
                "字间延迟：同一个请求相邻两个输出 token 之间的间隔，统计所有请求的每一个间隔。原文和 vLLM 的基准测试"
                "用的是另一个英文缩写，量的却是同样的间隔。"),
    "def.pct": ("p50 / p99: the value that 50 % / 99 % of the measurements do not exceed — the median and the tail; "
                "p99 shows the rare long waits an average hides.",
                "p50 / p99：50% / 99% 的测量值都不超过的那个值，即中位数和尾部；p99 能看出被平均值掩盖的少数长等待。"),
    "def.goodput": ("Goodput: finished requests per second that meet every latency target (SLO). vLLM's benchmark "
                    "judges a request's mean time per output token; the strict form judges every gap.",
                    "有效吞吐：每秒完成、且满足每一项延迟目标（SLO）的请求数。vLLM 的基准测试按请求的平均每 token "
                    "时间判断，严格的定义则检查每一个间隔。"),
    "metric.ttft_p50": ("TTFT p50", "首字延迟 p50"),
    "metric.ttft_p99": ("TTFT p99", "首字延迟 p99"),
    "metric.tbt_p50": ("TBT p50", "字间延迟 p50"),
    "metric.tbt_p99": ("TBT p99", "字间延迟 p99"),
    "metric.throughput": ("Throughput (output tok/s)", "吞吐（输出 token/秒）"),
    "metric.stalls": ("Steps with stalled decodes", "解码被卡住的步数"),
    "side.upload_button": ("Upload", "上传"),
    "side.upload_limit": ("{mb} MB per file · {types}", "每个文件最大 {mb} MB · {types}"),
    "url.ignored": ("Ignored a value in the link: {error}", "已忽略链接中的一个值：{error}"),
    "unit.ms": ("{v:.1f} ms", "{v:.1f} 毫秒"),
}

# Axis titles for units: charts name a unit in the reader's language.
UNIT_TEXTS: dict[str, tuple[str, str]] = {
    "axis.flops": ("FLOPs", "浮点运算次数（FLOPs）"),
    "axis.bytes": ("bytes", "字节"),
    "axis.ms": ("ms", "毫秒"),
    "axis.tokens": ("tokens", "token 数"),
    "axis.steps": ("steps", "步数"),
    "axis.blocks": ("blocks", "块数"),
    "axis.faults": ("faults", "缺页次数"),
    "axis.kib": ("KiB", "KiB"),
    "axis.heads": ("heads", "头数"),
    "axis.ratio": ("ratio", "倍数"),
    "axis.diff": ("difference", "差值"),
}


def policy_texts() -> dict[str, tuple[str, str]]:
    """`policy.<name>` → the registry entry's (English, 中文) label."""
    return {f"policy.{name}": (entry.label_en, entry.label_zh) for name, entry in REGISTRY.items()}


TEXTS.update(UNIT_TEXTS)
TEXTS.update(policy_texts())
TEXTS.update(WHY_TEXTS)
