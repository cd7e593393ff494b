"""Texts of the attention-math page (English, 中文)."""

TEXTS: dict[str, tuple[str, str]] = {
    "am.title": ("Why chunked prefill is exact", "为什么分块预填充是精确的"),
    "am.lesson": (
        "Causal attention is prefix-incremental: token i only looks at tokens 0…i. So a chunk whose queries read the "
        "keys and values of every earlier chunk from the KV cache, plus its own causal triangle, gets exactly the "
        "numbers one big pass would, and the (query, key) pairs, hence the attention FLOPs, add up to the same "
        "total. What chunking adds is memory traffic: each chunk re-reads the cached prefix, like a cook who makes "
        "a banquet in ten batches with the same ingredients but walks to the fridge ten times.",
        "因果注意力是“前缀增量”的：第 i 个 token 只看第 0…i 个 token。所以一个分块只要从 KV 缓存里读出之前所有分块的"
        " K 和 V，再加上自己内部的因果三角，得到的结果就与一次性整体计算完全相同；（查询，键）对的总数、也就是注意力"
        "的 FLOPs 也一样多。分块真正增加的是访存：每个分块都要把缓存里的前缀重新读一遍——就像厨师把一桌宴席分十批来"
        "做，食材一点没多用，只是多跑了十趟冰箱。"),
    "am.n": ("Prompt tokens N", "提示词 token 数 N"),
    "am.chunk": ("Chunk size (tokens)", "分块大小（token）"),
    "am.d": ("Head dimension d", "注意力头维度 d"),
    "am.chunk_too_big": ("A chunk of {chunk} tokens is longer than the {n}-token prompt, so the whole prompt is one "
                         "chunk (one pass). Pick a chunk of at most {n} tokens to see chunking.",
                         "分块大小 {chunk} 超过了提示词长度 {n}，整个提示词只能算一个分块（即一次整体计算）。"
                         "请把分块设为不超过 {n} 的值来观察分块效果。"),
    "am.error": ("This setting cannot run: {error}", "这个设置无法运行：{error}"),
    "am.diff": ("max |Δ| chunked vs one pass", "分块与整体的最大 |Δ|"),
    "am.diff_help": ("Largest absolute difference between the two outputs, in float64: rounding only.",
                     "两种算法输出之间的最大绝对差（float64）：只是舍入误差。"),
    "am.flops": ("Attention FLOPs (one head, one layer)", "注意力 FLOPs（单头、单层）"),
    "am.flops_equal": ("same as one pass", "与整体计算相同"),
    "am.flops_differ": ("differs from one pass", "与整体计算不同"),
    "am.kv_read": ("KV bytes read, chunked", "分块读取的 KV 字节数"),
    "am.num_chunks": ("Chunks", "分块数"),
    "am.real_title": ("On a real model", "在真实模型上"),
    "am.real_lesson": (
        "The same sums with the cost model, for one {n}-token prompt on {model} and {gpu} with nothing else in the "
        "batch: dense and attention FLOPs stay the same whatever the chunk, but every step reads the weights again "
        "and every chunk re-reads the cached prefix, so bytes and time grow as chunks shrink.",
        "用成本模型做同样的加总：在 {gpu} 上用 {model} 预填充一个 {n} token 的提示词，批次里没有别的请求。无论分块多大，"
        "线性层和注意力的 FLOPs 都不变；但每一步都要重新读一遍权重，每个分块都要重读缓存前缀，所以分块越小，读取的字节"
        "和耗时越多。"),
    "am.real_error": ("The real-model table cannot be computed: {error}", "无法计算真实模型的表格：{error}"),
    "am.col.chunk": ("chunk", "分块"),
    "am.col.whole": ("whole prompt", "整个提示词"),
    "am.col.steps": ("steps", "步数"),
    "am.col.flops": ("FLOPs (TFLOP)", "FLOPs（TFLOP）"),
    "am.col.attn_flops": ("attention FLOPs (TFLOP)", "注意力 FLOPs（TFLOP）"),
    "am.col.weights": ("weights read (GB)", "读取权重（GB）"),
    "am.col.kv": ("KV read (GB)", "读取 KV（GB）"),
    "am.col.time": ("time (ms)", "耗时（毫秒）"),
    "am.real_note": ("FLOPs grow only by the logits of one position per step (under 0.1%). Times are roofline sums of "
                     "the step terms, including each step's host time (scheduling, input preparation and the kernel "
                     "launches of an eager step, without overlap).",
                     "FLOPs 只因每步多算一个位置的 logits 而略增（不到 0.1%）。耗时是各步 Roofline 项之和，含每"
                     "步的 CPU 时间（调度、输入准备，以及不用 CUDA 图时逐个启动的内核，无重叠）。"),
}
