"""Texts of the Measure page's public-measurement section (English, 中文)."""

TEXTS: dict[str, tuple[str, str]] = {
    "mf.title": ("How good is the cost model? Public A100 measurements",
                 "成本模型有多准？公开的 A100 实测数据"),
    "mf.lesson": (
        "Every time the app shows (a stall, a TTFT, a capacity) comes from the cost model, so its error is the "
        "error of every lesson. Here its dense part (the projections, the MLP, norms, rotary, activation and "
        "residual add of one layer, everything but attention) is checked against public measurements: Microsoft "
        "vidur's operator profiles on an A100 80GB, eight models, tensor parallelism 1 to 8, 1 to 16,384 tokens "
        "per step. Each kernel is priced as a roofline of its per-GPU slice of the matrix, with an efficiency that "
        "depends on that slice's shape and a small fixed cost per kernel launch. The previous model (dashed) used "
        "one efficiency curve keyed on tokens only, so it was always too fast, and most of all at TP 8, where "
        "each GPU's slice is small.",
        "应用里显示的每一个时间（卡顿、首字延迟、容量）都来自成本模型，所以它的误差就是每一课的误差。这里把它的稠密部分"
        "（一层里的各个投影、MLP、归一化、旋转位置编码、激活和残差加法，也就是注意力以外的一切）和公开的实测数据对照："
        "微软 vidur 在 A100 80GB 上的算子测量，八个模型，张量并行 1 到 8，每步 1 到 16,384 个 token。每个内核按它在"
        "单张 GPU 上那一块矩阵的 Roofline 计价，效率取决于这块矩阵的形状，再加上每次内核启动的一小段固定开销。旧模型"
        "（虚线）只按 token 数查一条效率曲线，所以总是算得太快，在 TP 8 时最严重，因为那时每张 GPU 分到的矩阵很小。"),
    "mf.model": ("Model", "模型"),
    "mf.tp": ("Tensor parallelism (GPUs)", "张量并行（GPU 数）"),
    "mf.tp1_only": ("{model} was measured at TP 1 only; showing TP 1.", "{model} 只在 TP 1 下测过，这里显示 TP 1。"),
    "mf.panel.time": ("Dense time of one layer", "一层的稠密部分耗时"),
    "mf.panel.error": ("Model error (predicted ÷ measured − 1)", "模型误差（预测 ÷ 实测 − 1）"),
    "mf.measured": ("measured (vidur, A100)", "实测（vidur，A100）"),
    "mf.v2": ("cost model (per kernel)", "成本模型（逐内核）"),
    "mf.v1": ("previous model (tokens only)", "旧模型（只看 token 数）"),
    "mf.tokens": ("tokens in the step", "本步 token 数"),
    "mf.ms_per_layer": ("ms per layer", "每层毫秒"),
    "mf.error_pct": ("error (%)", "误差（%）"),
    "mf.col.tp": ("TP", "TP"),
    "mf.col.median": ("median |error|", "误差绝对值中位数"),
    "mf.col.p90": ("p90 |error|", "误差绝对值 p90"),
    "mf.col.worst": ("worst", "最大"),
    "mf.col.signed": ("signed median", "带符号中位数"),
    "mf.table_note": (
        "Previous model → **this model**, over every point of the seven gated (SwiGLU) models at {min_tokens} "
        "tokens or more. A negative signed error means the model predicts too fast. The green band in the chart is "
        "±5%. The remaining scatter is mostly GPU wave quantization: a GEMM's time jumps when one more row of tiles "
        "no longer fits in the last wave over the 108 SMs, a staircase a smooth model rounds off.",
        "旧模型 → **本模型**，统计七个门控（SwiGLU）模型在 {min_tokens} 个 token 及以上的全部数据点。带符号误差为负，"
        "表示模型算得太快。图中绿色带是 ±5%。剩下的偏差主要来自 GPU 的波次量化：当多出的一行分块在 108 个 SM 的最后"
        "一波里放不下时，GEMM 的耗时就会跳一级，这种阶梯会被平滑的模型抹平。"),
    "mf.held_out": (
        "Validation that cannot flatter itself: fitted without a model and asked to predict it, the error is "
        "{m_med:.1%} median and {m_p90:.1%} p90 (pooled over the seven held-out models; the hardest, {worst}, "
        "{w_p90:.1%} p90); fitted without a TP degree, {t_med:.1%} median and {t_p90:.1%} p90. Other GPUs use the "
        "same efficiency shape with their own peak FLOP/s and bandwidth: nothing is fitted per GPU, so those "
        "numbers are an extrapolation.",
        "不会自我美化的验证：拟合时去掉一个模型再让它预测这个模型，误差中位数 {m_med:.1%}，p90 {m_p90:.1%}（七个被"
        "留出的模型合并统计；最难的 {worst} 的 p90 为 {w_p90:.1%}）；去掉一个 TP 档位再预测它，中位数 {t_med:.1%}，"
        "p90 {t_p90:.1%}。其他 GPU 沿用同样的效率形状，只换成各自的峰值算力和带宽；没有为任何 GPU 单独拟合，所以那些"
        "数字是外推。"),
}
