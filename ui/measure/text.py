"""Texts of the Measure page (English, 中文), including its navigation title."""

TEXTS: dict[str, tuple[str, str]] = {
    "nav.measure": ("Measure on your machine", "在你的机器上实测"),
    "me.title": ("Measure real step times", "实测真实的步骤耗时"),
    "me.lesson": (
        "Every other page prices a step with the roofline model: FLOPs over peak compute or bytes over bandwidth, "
        "whichever takes longer. Here a Llama-shaped stack with random weights runs real prefill chunks and decode "
        "steps with PyTorch on this machine, so you can see how far the recipe card's estimate is from the real "
        "stove, and how prefill-first and chunked prefill compare when every step costs what it really costs.",
        "其他页面都用Roofline 模型给一步定价：计算量除以峰值算力、字节数除以带宽，取两者中较慢的那个。这里，一个 Llama "
        "结构、随机权重的模型用 PyTorch 在本机真正地跑预填充分块和解码步骤，让你看到菜谱上估计的时间和真实灶台上的时间"
        "差多远，以及当每一步都按真实耗时计算时，预填充优先和分块预填充的对比是什么样子。"),
    "me.source": ("Step times from", "步骤耗时来源"),
    "me.src.run": ("a measurement on this machine", "在本机实测"),
    "me.src.upload": ("a profile file", "上传的测量文件"),
    "me.no_torch": (
        "Live measurement needs PyTorch, which is not installed here. Enable it with `{hint}` and restart the app. "
        "You can still upload a profile measured on another machine with `python -m chunkviz measure --out "
        "profile.json`.",
        "实测模式需要 PyTorch，但这里没有安装。用 `{hint}` 安装后重启应用即可启用。你仍然可以上传在另一台机器上用 "
        "`python -m chunkviz measure --out profile.json` 测得的文件。"),
    "me.device": ("Device", "设备"),
    "me.dev.auto": ("auto (the GPU if torch sees one)", "自动（torch 能看到 GPU 就用 GPU）"),
    "me.dev.cpu": ("CPU", "CPU"),
    "me.dev.cuda": ("CUDA GPU", "CUDA GPU"),
    "me.plan": ("Plan", "测量计划"),
    "me.plan.quick": ("quick (12 points)", "快速（12 个点）"),
    "me.plan.full": ("full (a longer grid)", "完整（更大的网格）"),
    "me.layers": ("Layers (0 = default)", "层数（0 为默认）"),
    "me.layers_help": ("Default: all of the model's layers on a GPU, 2 on a CPU.",
                       "默认：GPU 上用模型的全部层数，CPU 上用 2 层。"),
    "me.shapes_note": (
        "On a CPU the stack is scaled down (float32, hidden size 512, every width scaled alike) so that a laptop "
        "finishes in seconds; on a GPU it has the model's full shapes in bf16. The model is the one chosen in the "
        "sidebar.",
        "在 CPU 上模型会按比例缩小（float32，隐藏维度 512，所有宽度同比缩小），笔记本几秒钟就能测完；在 GPU 上使用模型"
        "的完整尺寸和 bf16。模型就是侧边栏里选的那个。"),
    "me.run": ("Run the measurement", "开始测量"),
    "me.cancel": ("Cancel", "取消"),
    "me.preparing": ("Building the model and checking it (chunked prefill must equal one pass)…",
                     "正在构建模型并做正确性检查（分块预填充必须与一次性计算一致）…"),
    "me.progress": ("Measured {done} of {total} points", "已测 {done}/{total} 个点"),
    "me.cancelled": ("Measurement cancelled after {done} of {total} points; nothing was kept.",
                     "测量在 {done}/{total} 个点后取消，没有保留任何结果。"),
    "me.cancelled_short": ("Measurement cancelled; nothing was kept.", "测量已取消，没有保留任何结果。"),
    "me.failed": ("The measurement could not run: {error}", "测量无法进行：{error}"),
    "me.upload": ("Cost profile (JSON written by `python -m chunkviz measure`)",
                  "测量文件（由 `python -m chunkviz measure` 生成的 JSON）"),
    "me.upload_wait": ("Upload a profile to compare it with the roofline.", "上传一个测量文件，与Roofline 模型对比。"),
    "me.bad_upload": ("Could not use {name}: {error}", "无法使用 {name}：{error}"),
    "me.no_profile": ("No measurement yet: press the button above, or switch to a profile file.",
                      "还没有测量结果：点击上面的按钮，或改为上传测量文件。"),
    "me.measured": ("Measured vs roofline", "实测与 Roofline 模型对比"),
    "me.about": (
        "{device} · {dtype} · {model} shapes: {layers} layers, hidden {hidden}, {heads} heads ({kv} KV), MLP "
        "{inter}, vocab {vocab} · torch {torch} · check: chunked prefill equals one pass to {diff:.1e} "
        "(tolerance {tol:g}) · {repeats} timed repeats after {warmup} warm-up, {method}",
        "{device} · {dtype} · {model} 的尺寸：{layers} 层，隐藏维度 {hidden}，{heads} 个注意力头（{kv} 个 KV 头），"
        "MLP {inter}，词表 {vocab} · torch {torch} · 检查：分块预填充与一次性计算相差 {diff:.1e}（容差 {tol:g}）· "
        "预热 {warmup} 次后计时 {repeats} 次，{method}"),
    "me.hw": ("Roofline peaks: {source}: {tflops:.2f} TFLOP/s, {gbs:.0f} GB/s.",
              "Roofline使用的峰值：{source}：{tflops:.2f} TFLOP/s，{gbs:.0f} GB/s。"),
    "me.ratio_note": (
        "Ratio = measured ÷ roofline (the roofline here has no step overhead). Near 1, the model explains the time; "
        "well above 1 at small chunks and batches, fixed costs the roofline ignores (kernel launches, Python) "
        "dominate. Bars on the measured points span p10 to p90 of the repeats.",
        "比值 = 实测 ÷ Roofline（这里的Roofline不含每步固定开销）。接近 1 说明模型解释了耗时；小分块、小批次时远大于 1，"
        "说明Roofline忽略的固定开销（内核启动、Python）占了主导。实测点上的误差线是多次计时的 p10 到 p90。"),
    "me.download": ("Download this profile (JSON)", "下载这份测量文件（JSON）"),
    "me.sim": ("Prefill-first vs chunked prefill on the measured costs", "按实测耗时比较预填充优先与分块预填充"),
    "me.budget": ("max_num_batched_tokens (chunked engine)", "max_num_batched_tokens（分块引擎）"),
    "me.applied": (
        "How the profile is applied: each simulated step costs the measured time of its shape (interpolated between "
        "measured points) × {scale:.3g} ({sim_layers} layers of {sim_model} ÷ {layers} measured), plus the "
        "step's host time as the engine runs it (scheduling, input preparation, launches). Outside the measured range the roofline gives the growth, anchored to the "
        "nearest measured point. KV memory still comes from the sidebar's {gpu}. A CPU profile gives the speed of a "
        "scaled-down model on this CPU, not a GPU prediction.",
        "测量结果的用法：每个模拟步骤的耗时 = 该形状的实测耗时（在实测点之间插值）× {scale:.3g}（{sim_model} 的 "
        "{sim_layers} 层 ÷ 实测的 {layers} 层），再加上引擎每步的 CPU 时间（调度、输入准备、内核启动）。超出实测范围时，增长趋势"
        "取自Roofline 模型，并锚定在最近的实测点上。KV 内存仍按侧边栏里的 {gpu} 计算。CPU 上的测量反映的是缩小后的模型"
        "在这台 CPU 上的速度，而不是对 GPU 的预测。"),
    "me.eng.monolithic": ("prefill-first (vLLM V0), measured costs", "预填充优先（vLLM V0），实测耗时"),
    "me.eng.chunked": ("Chunked prefill, budget {budget} (measured costs)", "分块预填充，预算 {budget}（实测耗时）"),
    "me.coverage": ("Steps inside the measured range: {mono:.0%} (prefill-first), {chunked:.0%} (chunked); the rest "
                    "used the anchored roofline.",
                    "落在实测范围内的步骤：{mono:.0%}（预填充优先）、{chunked:.0%}（分块预填充）；其余步骤使用锚定后的"
                    "Roofline。"),
    "me.overloaded": (
        "At these measured speeds the engine cannot keep up with {qps:g} requests/s: the queue grows for the whole "
        "run, so the latencies above mostly measure the backlog. Lower the arrival rate in the sidebar (Workload) "
        "to compare the two policies in a steady state.",
        "按这些实测速度，引擎跟不上每秒 {qps:g} 个请求：队列在整个运行过程中不断变长，上面的延迟主要反映的是积压。"
        "在侧边栏（负载）里降低到达速率，就能在稳定状态下比较两种策略。"),
    "me.delta_note": ("Deltas compare chunked prefill with prefill-first; green is better.",
                      "差值是分块预填充相对预填充优先；绿色表示更好。"),
    "me.lbl.prefill": ("Prefill chunk", "预填充分块"),
    "me.lbl.decode": ("Decode step", "解码步骤"),
    "me.lbl.tokens": ("chunk tokens", "分块 token 数"),
    "me.lbl.batch": ("batch size (sequences)", "批大小（序列数）"),
    "me.lbl.context": ("context", "上下文"),
    "me.lbl.time_ms": ("time (ms)", "时间（毫秒）"),
    "me.lbl.measured": ("measured", "实测"),
    "me.lbl.roofline": ("roofline", "Roofline"),
    "me.lbl.kind": ("step", "步骤"),
    "me.lbl.size": ("tokens or batch", "token 数或批大小"),
    "me.lbl.measured_ms": ("measured (ms)", "实测（毫秒）"),
    "me.lbl.p10_ms": ("p10 (ms)", "p10（毫秒）"),
    "me.lbl.p90_ms": ("p90 (ms)", "p90（毫秒）"),
    "me.lbl.roofline_ms": ("roofline (ms)", "Roofline（毫秒）"),
    "me.lbl.ratio": ("measured ÷ roofline", "实测 ÷ Roofline"),
}
