"""Texts of the paged-KV-cache page (English, 中文), and the label dicts its charts take."""

from ui.i18n import t

TEXTS: dict[str, tuple[str, str]] = {
    "kv.title": ("Paged KV cache: a fridge of small boxes", "分页 KV 缓存：一台分格的冰箱"),
    "kv.lesson": (
        "Think of the KV cache as a fridge with rows of small, equal boxes: each box (a block) holds the keys and "
        "values of a few tokens, and a request fills one box at a time, in whichever box is free, so nothing has "
        "to be kept empty for it in advance. Requests that begin with the same text share the same boxes (×N on a "
        "cell: N block tables point at it), and a sample that is about to write into a shared, half-full box first "
        "gets its own copy (copy-on-write, CoW). When the fridge is full, leftover boxes kept for reuse (●) are "
        "emptied first (eviction); if that is not enough, a running request is sent back to start over (preemption).",
        "把 KV 缓存想成一台分成一排排同样大小小格的冰箱：每个小盒（一个块）装几个 token 的 K 和 V，请求每次装满一盒"
        "再取下一盒，哪一格空着就放哪一格，不必提前为它空出一大片地方。开头相同的请求共用同一批盒子（格子上的 ×N 表示"
        "有 N 张块表指向它）；某个采样要往一个共享的、半满的盒子里写时，先复制出一份自己的（写时复制，CoW）。冰箱满了，"
        "先清空那些留着备用的剩料盒（●），这叫淘汰；还不够时，只好让一个正在运行的请求退回去从头再算，这叫抢占。"),
    "kv.scn": ("KV scenario", "KV 场景"),
    "kv.scn.shared-system-prompt": ("Shared system prompt", "共享系统提示词"),
    "kv.scn.multi-turn": ("Multi-turn conversations", "多轮对话"),
    "kv.scn.parallel-sampling": ("Parallel sampling n=4 (fork + copy-on-write, vLLM V0 / PagedAttention paper)",
                                 "并行采样 n=4（分叉 + 写时复制，vLLM V0 / PagedAttention 论文）"),
    "kv.scn.long-among-chats": ("Long prompts among chats", "聊天中夹着长提示词"),
    "kv.blocks": ("num_gpu_blocks", "num_gpu_blocks（块数）"),
    "kv.blocks_help": ("Physical KV blocks in the teaching cache; the grid shows every one.",
                       "教学用缓存里的物理 KV 块数；网格把每一块都画出来。"),
    "kv.bs": ("block_size (tokens per block)", "block_size（每块 token 数）"),
    "kv.n": ("Requests", "请求数"),
    "kv.cache": ("enable_prefix_caching", "开启前缀缓存"),
    "kv.cache_help": ("vLLM's --enable-prefix-caching: full blocks are kept under a chained key and reused. On by "
                      "default in vLLM V1, SGLang (radix cache) and TensorRT-LLM (block reuse); off in vLLM V0.",
                      "vLLM 的 `--enable-prefix-caching`：写满的块按链式键保存并复用。vLLM V1、SGLang（基数树缓存）"
                      "和 TensorRT-LLM（块复用）默认开启；vLLM V0 默认关闭。"),
    "kv.evict": ("Eviction order", "淘汰顺序"),
    "kv.evict.lru": ("LRU (vLLM: least recently freed first)", "LRU（vLLM：最久之前释放的先淘汰）"),
    "kv.evict.fifo": ("FIFO (cached earliest first)", "FIFO（最早缓存的先淘汰）"),
    "kv.evict.lfu": ("LFU (fewest prefix hits first)", "LFU（前缀命中最少的先淘汰）"),
    "kv.alloc": ("Allocation", "分配方式"),
    "kv.alloc.incremental": ("incremental (vLLM V1: blocks as tokens arrive)", "增量（vLLM V1：算到哪分到哪）"),
    "kv.alloc.reserve": ("reserve (whole prompt at admission)", "预留（准入时预留整段提示词）"),
    "kv.limits": (
        "Teaching scale: {lo}–{hi} requests, a cache of {blo}–{bhi} blocks, prompts of tens to a few hundred tokens "
        "(the 6–8k-token documents of “long prompts among chats” are shrunk 16×) and a context limit of {max_len} "
        "tokens, so the whole cache fits on one grid. Model, GPU, arrival rate, seed and scheduler come from the "
        "sidebar; its workload preset is replaced by the KV scenario chosen here.",
        "教学规模：{lo}–{hi} 个请求，缓存 {blo}–{bhi} 块，提示词几十到几百个 token（“聊天中夹着长提示词”里 6–8k token "
        "的长文档缩小为 1/16），上下文上限 {max_len} 个 token，这样整个缓存能画在一张网格里。模型、GPU、到达速率、"
        "随机种子和调度器取自侧边栏，负载则换成这里选的 KV 场景。"),
    "kv.rejected": ("{n} requests can never run with this cache; the engine says:",
                    "有 {n} 个请求在这个缓存下永远无法运行；引擎给出的原因："),
    "kv.rejected_one": ("1 request can never run with this cache; the engine says:",
                        "有 1 个请求在这个缓存下永远无法运行；引擎给出的原因："),
    "kv.rejected_line": ("request {rid}: {reason}", "请求 {rid}：{reason}"),
    "kv.no_steps": ("No request could run, so there is nothing to step through. Enlarge the cache or the blocks.",
                    "没有任何请求能运行，所以没有步骤可看。请调大块数或块大小。"),
    "kv.run_title": ("Whole run", "整次运行"),
    "kv.m.hit_rate": ("Prefix hit rate", "前缀命中率"),
    "kv.m.hit_rate_help": ("Prompt tokens found in the cache over prompt tokens looked up (vLLM's definition).",
                           "在缓存中找到的提示词 token 数 ÷ 查找的提示词 token 数（vLLM 的定义）。"),
    "kv.m.evicted": ("Evicted blocks", "被淘汰的块"),
    "kv.m.peak": ("Peak blocks used", "峰值占用块数"),
    "kv.m.preemptions": ("Preemptions", "抢占次数"),
    "kv.m.ttft_on": ("TTFT, cache on", "首字延迟·缓存开"),
    "kv.m.ttft_off": ("TTFT, cache off", "首字延迟·缓存关"),
    "kv.m.ttft_help": ("Mean time to first token with prefix caching on and off (both are simulated); the delta "
                       "compares on with off.",
                       "开启和关闭前缀缓存时的平均首字延迟（两种都模拟了）；差值是开启相对关闭。"),
    "kv.ms": ("{v} ms", "{v} 毫秒"),
    "kv.mem_title": ("Paged vs contiguous memory over time", "分页与连续分配的显存随时间变化"),
    "kv.mem_caption": (
        "The contiguous lines replay the same running sequences in one address space as large as the paged cache, "
        "each sequence needing a single region (first fit): reserving max_model_len = {max_len} tokens per "
        "sequence, or exactly prompt + output (an oracle that knows the output length). A sequence that finds no "
        "hole is not counted. Paged memory is blocks in use × block size; “KV computed” counts shared blocks once "
        "per sequence, so it can lie above the paged line.",
        "连续分配的曲线把同样的运行序列放进一块与分页缓存同样大的地址空间重放，每个序列要一整段连续区域（首次适配）："
        "每个序列预留 max_model_len = {max_len} 个 token，或恰好预留提示词 + 输出（一个预先知道输出长度的理想情况）。"
        "找不到空洞的序列不计入。分页显存 = 占用块数 × 块大小；“已计算的 KV”对共享块按序列各算一次，"
        "所以可能高于分页曲线。"),
    "kv.fit": (
        "If all {n} sequences came at once, this cache could hold: paged, {paged_prompts} (prompts only, as at "
        "admission) or {paged_full} (each at its full length); contiguous, {exact} (prompt + output reserved) or "
        "{max_len} (max_model_len reserved).",
        "如果 {n} 个序列同时到达，这个缓存能容纳：分页方式 {paged_prompts} 个（只算提示词，即准入时）或 {paged_full} 个"
        "（每个都到最大长度）；连续方式 {exact} 个（预留提示词 + 输出）或 {max_len} 个（预留 max_model_len）。"),
    "kv.lbl.step": ("engine step", "引擎步骤"),
    "kv.lbl.tokens": ("KV tokens", "KV token 数"),
    "kv.lbl.seqs": ("sequences held", "持有的序列数"),
    "kv.lbl.capacity": ("cache capacity", "缓存容量"),
    "kv.lbl.max_len": ("contiguous, max_model_len reserved", "连续，预留 max_model_len"),
    "kv.lbl.exact": ("contiguous, prompt + output reserved", "连续，预留提示词 + 输出"),
    "kv.lbl.paged": ("paged, blocks in use", "分页，占用的块"),
    "kv.lbl.used_kv": ("KV computed", "已计算的 KV"),
    "kv.lbl.running": ("paged, running", "分页，运行中"),
}

_LABEL_KEYS = ("step", "tokens", "seqs", "capacity", "max_len", "exact", "paged", "used_kv", "running")


def rejection_markdown(rejected: tuple[tuple[int, str], ...], limit: int = 6) -> str:
    """A warning that lists the engine's reasons for the requests it can never serve (the first `limit`)."""
    lines = [t("kv.rejected_one" if len(rejected) == 1 else "kv.rejected", n=len(rejected)), ""]
    lines += [f"- {t('kv.rejected_line', rid=rid, reason=reason)}" for rid, reason in rejected[:limit]]
    return "\n".join(lines + (["- …"] if len(rejected) > limit else []))


def chart_labels() -> dict[str, str]:
    """The chart labels in the current language (charts take plain strings, never look texts up)."""
    return {k: t(f"kv.lbl.{k}") for k in _LABEL_KEYS}
