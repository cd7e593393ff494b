"""Texts of the lecture's lessons (English, 中文): each chapter's body, its prediction question, options and answer,
the batching, utilisation, budget and knob lessons, misconceptions and interview questions."""

TEXTS: dict[str, tuple[str, str]] = {
    # 1 · kitchen
    "chx.body.1": (
        "A restaurant kitchen is a serving engine. Each table is a request. Reading an order and preparing all its "
        "ingredients is **prefill**: the whole prompt goes through the model once and every token's K and V go "
        "into the fridge. Plating is **decode**: one dish, one token, per round. Rounds are **engine steps**, and "
        "the expediter who decides what each round cooks is the **scheduler**. Watch what a banquet order does to "
        "the other tables.",
        "餐厅后厨就是一台推理引擎。每桌客人是一个请求。看单并把所有食材一次备齐，就是**预填充**："
        "整段提示词过一遍模型，每个 token 的 K 和 V 放进冰箱。出菜是**解码**：每一轮上一道菜、出一个 "
        "token。一轮就是一个**引擎步**，决定每轮做什么的传菜员就是**调度器**。看看一桌宴席大单会让其他桌怎样。"),
    "chx.q.1": ("R{rid}'s banquet order (its whole prompt) runs in one step. How many dishes (tokens) do the other "
                "tables get during that step?",
                "R{rid} 的宴席大单（整段提示词）在一步里算完。这一步里，其他桌能上几道菜（token）？"),
    "chx.o.1.none": ("none", "一道都没有"),
    "chx.o.1.one_each": ("one each", "每桌一道"),
    "chx.o.1.several_each": ("several each", "每桌好几道"),
    "chx.a.1": ("The kitchen spends {step_ms:.0f} ms on R{rid}'s {prompt_tokens:,.0f} prompt tokens and plates "
                "{decode_tokens:.0f} tokens for the others; frozen for the whole step: {frozen_chats}.",
                "后厨用 {step_ms:.0f} 毫秒处理 R{rid} 的 {prompt_tokens:,.0f} 个提示词 token，给其他桌上了 "
                "{decode_tokens:.0f} 个 token；整整一步都卡着的：{frozen_chats}。"),
    # 2 · long prefill
    "chx.body.2": (
        "A prompt's prefill cost grows with its length: in this run (Llama-3-8B on an H100), R{rid}'s "
        "{prompt_tokens:,} tokens take {prefill_ms:,.0f} ms in one step, while a step of decodes takes about "
        "{decode_ms:.0f} ms. An engine that runs waiting prompts before decodes (vLLM V0 without chunking) freezes "
        "every chat for that whole step. Chunking bounds the step instead: no step carries more than the "
        "{budget:,}-token budget, so the chats keep their rhythm.",
        "预填充的开销随提示词长度增长：在这次运行里（H100 上的 Llama-3-8B），R{rid} 的 {prompt_tokens:,} 个 token "
        "一步算完要 {prefill_ms:,.0f} 毫秒，而一个解码步只要约 {decode_ms:.0f} 毫秒。先跑等待中的提示词、再跑解码的引擎"
        "（不分块的 vLLM V0）会让所有对话在这一整步里卡住。分块则给每一步封顶：任何一步都不超过 {budget:,} 个 token "
        "的预算，对话的节奏就不会乱。"),
    "chx.q.2": ("On “{engine}”: in the step where R{rid}'s prompt runs, will R0 (already chatting) get a token?",
                "在“{engine}”上：R{rid} 的提示词运行的那一步里，正在对话的 R0 能拿到一个 token 吗？"),
    "chx.o.2.yes": ("yes", "能"),
    "chx.o.2.no": ("no", "不能"),
    "chx.a.2": ("On “{engine}”, R0's tokens in that {step_ms:.0f} ms step: {r0_tokens:.0f} ({frozen_chats} frozen). "
                "On “{engine_b}”, in the {step_ms_chunked:.0f} ms step of the prompt's first chunk: "
                "{r0_tokens_chunked:.0f}.",
                "在“{engine}”上，R0 在这 {step_ms:.0f} 毫秒的一步里拿到的 token：{r0_tokens:.0f} 个（{frozen_chats}卡住）。"
                "在“{engine_b}”上，提示词第一块那 {step_ms_chunked:.0f} 毫秒的一步里：{r0_tokens_chunked:.0f} 个。"),
    # 3 · chunking
    "chx.body.3": (
        "Chunked prefill computes a prompt a budget's worth per step, after the decodes have taken their tokens. "
        "Chunk k's queries attend to the K and V that chunks 1…k−1 left in the cache plus their own causal "
        "triangle, so the result equals one pass: on the attention page's {n}-token example (head size {d}, "
        "chunks of {chunk}) the two outputs differ by {diff:.1e}, with the same {flops} attention FLOPs. What "
        "chunking adds is re-reading the cached K/V ({ratio:.1f}× the bytes there) and the weights once per chunk.",
        "分块预填充每一步先让解码拿走各自的 token，再用剩下的预算算一块提示词。第 k 块的查询对前 1…k−1 块留在缓存里的 "
        "K、V 以及本块自己的因果三角做注意力，结果与一次算完相同：注意力页面 {n} 个 token 的例子里（头维度 {d}，"
        "每块 {chunk} 个），两者输出相差 {diff:.1e}，注意力 FLOPs 同为 {flops}。分块多出来的是重复读取缓存中的 K/V（该例中字节数为 {ratio:.1f} 倍），"
        "以及每块重读一次权重。"),
    "chx.q.3": ("R{rid}'s {prompt_tokens:,}-token prompt, a {budget:,}-token budget per step: in how many steps is "
                "the prompt computed?",
                "R{rid} 的提示词有 {prompt_tokens:,} 个 token，每步预算 {budget:,}：这段提示词要几步才能算完？"),
    "chx.o.3.one_step": ("1 step, as before", "和以前一样，1 步"),
    "chx.o.3.half": ("{steps_half:,.0f} steps", "{steps_half:,.0f} 步"),
    "chx.o.3.prompt_over_budget": ("{steps_prompt_over_budget:,.0f} steps", "{steps_prompt_over_budget:,.0f} 步"),
    "chx.o.3.double": ("{steps_double:,.0f} steps", "{steps_double:,.0f} 步"),
    "chx.a.3": ("{chunks:.0f} steps: ⌈{prompt_tokens:,.0f} / {budget_tokens:.0f}⌉ = {ideal_chunks:.0f}; the decodes "
                "take a few tokens of each step's budget first.",
                "{chunks:.0f} 步：⌈{prompt_tokens:,.0f} / {budget_tokens:.0f}⌉ = {ideal_chunks:.0f}；每步预算先被解码拿走几个 token。"),
    # 4 · paged KV
    "chx.body.4": (
        "The KV cache is a fridge of same-size boxes: blocks of 16 tokens. A request's block table lists its "
        "blocks, which need not sit side by side, so memory grows a block at a time and nothing fragments. Six "
        "requests open with the same 1,000-token system prompt: its 62 full blocks are computed once and shared, "
        "and each shared block's **ref count** says how many tables hold it (up to {refs} here, {shared} blocks "
        "shared at once). R{r} asks for two answers, forked after its prompt as vLLM V0 and the PagedAttention paper "
        "do: both samples hold all of R{r}'s blocks, including its partly filled last one, which is copied before "
        "either writes into it (**copy-on-write**; {cow} copy in this run). vLLM V1 instead runs each sample as its "
        "own request, sharing the prompt's full blocks through the prefix cache, and never copies.",
        "KV 缓存是一台装满同样大小盒子的冰箱：每块 16 个 token。每个请求的块表列出它的块，这些块不必相邻，所以显存一块一块地"
        "增长，不产生碎片。六个请求以同一段 1,000 token 的系统提示词开头：它的 62 个满块只算一次、大家共享，每个共享块的"
        "**引用计数**表示有几张块表持有它（这里最高 {refs}，同时共享 {shared} 块）。R{r} 要两个回答，像 vLLM V0 和 "
        "PagedAttention 论文那样在提示词之后分叉：两个采样都持有 R{r} 的全部块，包括只填了一部分的最后一块；在任何一个写入之前，"
        "这一块先复制一份（**写时复制**；本次运行复制了 {cow} 次）。vLLM V1 则把每个采样当作独立请求，通过前缀缓存共享提示词的"
        "满块，从不复制。"),
    "chx.q.4": ("R1 starts with the same {prefix_tokens:,}-token system prompt as R0. How many of its prompt tokens "
                "are computed again?",
                "R1 和 R0 以同一段 {prefix_tokens:,} token 的系统提示词开头。R1 的提示词有多少 token 要重新计算？"),
    "chx.o.4.all": ("all of them", "全部"),
    "chx.o.4.all_but_shared_blocks": ("all but the shared full blocks", "除了共享的满块之外的部分"),
    "chx.o.4.none": ("none", "一个都不用"),
    "chx.a.4": ("R{request_id:.0f} finds {hit_tokens:,.0f} of its {prompt_tokens:,.0f} tokens in the cache (whole "
                "blocks only; the system prompt's last {tail_tokens:,.0f} tokens share a block with "
                "R{request_id:.0f}'s own text) and computes {computed_tokens:,.0f}.",
                "R{request_id:.0f} 的 {prompt_tokens:,.0f} 个 token 中有 {hit_tokens:,.0f} 个在缓存里找到（只认完整的块；"
                "系统提示词最后 {tail_tokens:,.0f} 个 token 和 R{request_id:.0f} 自己的内容在同一块里），需要计算 "
                "{computed_tokens:,.0f} 个。"),
    # 5 · continuous batching
    "chx.body.5": (
        "**Static batching** admits a batch and waits for its last request to finish before admitting anyone "
        "else. **Continuous batching** (Orca's iteration-level scheduling) re-forms the batch every step: finished "
        "requests leave, new ones join. Orca puts the running decodes and whole new prompts in one hybrid batch; "
        "the continuous engine drawn here is vLLM V0's, which runs waiting prompts first and pauses every decode "
        "while it does, so its stalls are V0's, not Orca's. **Decode-first** (stall-free) batching, as in "
        "Sarathi-Serve and vLLM V1, "
        "fills each step with the running decodes first and gives what is left of the budget to prompt chunks, "
        "so the GPU's work per step stays level instead of swinging between huge prefills and tiny decodes.",
        "**静态批处理**收下一批请求，要等这批里最后一个请求完成才接新的。**连续批处理**（Orca 的迭代级调度）每一步都重组"
        "批次：完成的离开，新来的加入。Orca 把正在解码的请求和完整的新提示词放进同一个混合批次；这里画的连续批处理是 "
        "vLLM V0 的：它先算等待中的提示词，算的时候所有解码都暂停，所以这些卡顿来自 V0，而不是 Orca。"
        "**解码优先**（无卡顿）批处理，如 Sarathi-Serve 和 vLLM V1，每一步先放进正在解码的"
        "请求，再把剩下的预算分给提示词块，于是 GPU 每步的工作量保持平稳，不再在巨大的预填充和很小的解码之间来回摆动。"),
    "chx.q.5": ("Static batching: R1 arrives {gap_ms:,.0f} ms after R0, which started alone. When does R1 get its "
                "first token?", "静态批处理：R0 独自开始，R1 晚 {gap_ms:,.0f} 毫秒到达。R1 什么时候拿到首个 token？"),
    "chx.o.5.right_away": ("right away", "马上"),
    "chx.o.5.after_r0_finishes": ("only after R0 has finished its whole answer", "要等 R0 把整段回答生成完"),
    "chx.o.5.after_all": ("only after every other request", "要等其他所有请求都完成"),
    "chx.a.5": ("R1's first token comes {r1_ttft_ms:,.0f} ms after it arrives; R0 finished at {r0_finish_ms:,.0f} ms. "
                "Continuous batching serves it in {r1_ttft_continuous_ms:,.0f} ms.",
                "R1 到达后 {r1_ttft_ms:,.0f} 毫秒才出首字；R0 在 {r0_finish_ms:,.0f} 毫秒时完成。连续批处理只要 "
                "{r1_ttft_continuous_ms:,.0f} 毫秒。"),
    "chx.batch.title": ("Three ways to batch, one workload", "三种批处理方式，同一份负载"),
    "chx.batch.mode.static": ("static", "静态"),
    "chx.batch.mode.continuous": ("continuous, prefill-first (vLLM V0)", "连续、预填充优先（vLLM V0）"),
    "chx.batch.mode.decode_first": ("decode-first, chunked", "解码优先、分块"),
    "chx.batch.col.mode": ("batching", "批处理方式"),
    "chx.batch.col.ttft_p50": ("TTFT p50 (ms)", "首字延迟 p50（毫秒）"),
    "chx.batch.col.ttft_p99": ("TTFT p99 (ms)", "首字延迟 p99（毫秒）"),
    "chx.batch.col.tbt_p99": ("TBT p99 (ms)", "字间延迟 p99（毫秒）"),
    "chx.batch.col.tbt_max": ("longest gap (ms)", "最长间隔（毫秒）"),
    "chx.batch.col.throughput": ("output tok/s", "输出 token/秒"),
    "chx.batch.col.steps": ("steps", "步数"),
    "chx.batch.work": ("GPU work per step (tokens)", "每步 GPU 工作量（token）"),
    "chx.util.title": ("The GPU's utilisation per step", "每一步的 GPU 利用率"),
    "chx.util.body": (
        "Each bar is one step, split into time in compute-bound kernels and time in memory-bound ones (the cost "
        "model's dense, attention and lm_head terms). Prefill-only steps are compute-bound peaks, decode-only "
        "steps memory-bound valleys: a roller coaster. Mixed chunked steps carry both at once: the flat road.",
        "每根柱子是一步，分成算力受限的时间和带宽受限的时间（成本模型中的稠密层、注意力和 lm_head 三项）。只有预填充的步是"
        "算力受限的高峰，只有解码的步是带宽受限的低谷：像过山车。混合了分块的步两者兼有：是一条平路。"),
    "chx.util.compute": ("compute-bound", "算力受限"),
    "chx.util.memory": ("memory-bound", "带宽受限"),
    "chx.util.other": ("overhead", "固定开销"),
    "chx.util.mfu": ("MFU", "MFU"),
    "chx.util.summary": ("{engine}: mean MFU of decode-only steps {decode}, of mixed steps {mixed}, of prefill-only "
                         "steps {prefill}.", "{engine}：纯解码步平均 MFU {decode}，混合步 {mixed}，纯预填充步 {prefill}。"),
    "chx.util.none": ("none", "无"),
    "chx.util.step_ms": ("step time (ms)", "每步时间（毫秒）"),
    # 6 · budgets
    "chx.body.6": (
        "Two classes share the GPU. Chats want a first token within {slo_chat_ttft} ms (p90) and a token every "
        "{slo_chat_tbt} ms (p99); documents want their first token within {slo_doc_ttft} ms (p50). A small budget "
        "keeps every step short, which the chats like, but cuts a document's prompt into many steps; a large budget "
        "does the reverse. The sweep runs the same {requests} requests at each budget: {budgets} tokens.",
        "两类请求共用一块 GPU。对话要求首字在 {slo_chat_ttft} 毫秒内（p90）、每 {slo_chat_tbt} 毫秒出一个 token（p99）；"
        "文档要求首字在 {slo_doc_ttft} 毫秒内（p50）。预算小，每一步都短，对话满意，但文档的提示词被切成很多步；预算大则相反。"
        "扫描用每个预算跑同样的 {requests} 个请求：{budgets} token。"),
    "chx.q.6": ("SLOs: chats' first token within {slo_chat_ttft} ms (p90) and a token every {slo_chat_tbt} ms (p99); "
                "documents' first token within {slo_doc_ttft} ms (p50). Which budget per step meets both classes' "
                "SLOs (if several do: the one whose documents get their first token soonest)?",
                "SLO：对话首字延迟 {slo_chat_ttft} 毫秒以内（p90）、每 {slo_chat_tbt} 毫秒一个 token（p99）；文档首字延迟 "
                "{slo_doc_ttft} 毫秒以内（p50）。每步多大的预算能同时满足两类请求的 SLO（若有几个都满足：选文档首字最早的那个）？"),
    "chx.o.6.256": ("256 tokens", "256 token"),
    "chx.o.6.512": ("512 tokens", "512 token"),
    "chx.o.6.1024": ("1,024 tokens", "1,024 token"),
    "chx.o.6.2048": ("2,048 tokens", "2,048 token"),
    "chx.a.6": ("At {budgets} tokens: chats' TBT p99 {tbt} ms (SLO {slo_chat_tbt}), TTFT p90 {chat_ttft} ms "
                "(SLO {slo_chat_ttft}); documents' TTFT p50 {doc_ttft} ms (SLO {slo_doc_ttft}).",
                "预算 {budgets} token 时：对话字间延迟 p99 为 {tbt} 毫秒（SLO {slo_chat_tbt}），首字延迟 p90 为 "
                "{chat_ttft} 毫秒（SLO {slo_chat_ttft}）；文档首字延迟 p50 为 {doc_ttft} 毫秒（SLO {slo_doc_ttft}）。"),
    "chx.budget.chat": ("chats: TBT p99 (ms)", "对话：字间延迟 p99（毫秒）"),
    "chx.budget.doc": ("documents: TTFT p50 (ms)", "文档：首字延迟 p50（毫秒）"),
    "chx.budget.axis": ("token budget per step", "每步 token 预算"),
    "chx.budget.panel": ("{what} · SLO {slo:g}", "{what} · SLO {slo:g}"),  # the SLO's value in the panel's title
    "chx.handle.6.verdict": ("chats: TTFT p90 {chat_ttft:.1f} ms (SLO {slo_chat_ttft:.0f}), TBT p99 {tbt:.1f} ms "
                             "(SLO {slo_chat_tbt:.0f}) {chat} · documents: TTFT p50 {doc_ttft:.1f} ms "
                             "(SLO {slo_doc_ttft:.0f}) {doc}",
                             "对话：首字延迟 p90 {chat_ttft:.1f} 毫秒（SLO {slo_chat_ttft:.0f}），字间延迟 p99 {tbt:.1f} 毫秒"
                             "（SLO {slo_chat_tbt:.0f}）{chat} · 文档：首字延迟 p50 {doc_ttft:.1f} 毫秒（SLO {slo_doc_ttft:.0f}）{doc}"),
    "chx.handle.6.before": ("drag to run another budget: the lanes change, no rerun",
                            "拖动换一个预算：泳道随之改变，不重新运行"),
    "chx.handle.6.unit": ("tokens", "token"),
    "chx.prio.title": ("What priority buys the chats", "优先级调度给对话带来什么"),
    "chx.prio.body": (
        "The budget decides how a step is shared; the order of the waiting queue decides who gets in first. By "
        "default vLLM serves it first come, first served. With `--scheduling-policy priority` it serves the lowest "
        "priority value first: here chats are priority 0 and documents priority 1, so a waiting chat goes ahead of "
        "a waiting document, and when memory runs out the victim is the lowest-priority request, not the newest. "
        "The table runs this chapter's 24 requests at the 512-token budget, each rate once in each order.",
        "预算决定一步里的 token 怎么分；等待队列的顺序决定谁先进来。vLLM 默认先来先服务。加上 "
        "`--scheduling-policy priority` 后，它先服务优先级数值最小的请求：这里对话的优先级是 0、文档是 1，所以排队的对话"
        "排在排队的文档前面；显存不够时被抢占的是优先级最低的请求，而不是最新的那个。下表用 512 token 的预算把本章的 24 "
        "个请求在每种到达速率下按两种顺序各跑一次。"),
    "chx.prio.col.qps": ("requests/s", "请求/秒"),
    "chx.prio.col.chat_fcfs": ("chats, first come", "对话，先来先服务"),
    "chx.prio.col.chat_prio": ("chats, priority", "对话，按优先级"),
    "chx.prio.col.doc_fcfs": ("documents, first come", "文档，先来先服务"),
    "chx.prio.col.doc_prio": ("documents, priority", "文档，按优先级"),
    "chx.prio.units": ("Chats: TTFT p99; documents: TTFT p50; in ms.", "对话：首字延迟 p99；文档：首字延迟 p50；单位毫秒。"),
    "chx.prio.command": ("The same run from the command line (JSON key by_priority; `fcfs` for the other order): "
                         "`{command}`", "在命令行里跑同一组（JSON 键 by_priority；另一种顺序改为 `fcfs`）：`{command}`"),
    "chx.prio.result": (
        "At {qps} requests/s priority cuts the chats' TTFT p99 from {chat_fcfs_ms:.0f} to {chat_prio_ms:.0f} ms; "
        "the documents pay for it, their TTFT p50 going from {doc_fcfs_ms:.0f} to {doc_prio_ms:.0f} ms. At this "
        "chapter's own rate the queue is rarely long enough for its order to matter.",
        "在每秒 {qps} 个请求时，按优先级调度把对话的首字延迟 p99 从 {chat_fcfs_ms:.0f} 毫秒降到 {chat_prio_ms:.0f} 毫秒；"
        "代价由文档承担，它们的首字延迟 p50 从 {doc_fcfs_ms:.0f} 毫秒变为 {doc_prio_ms:.0f} 毫秒。在本章原本的到达速率下，"
        "队列很少长到让顺序起作用。"),
    "chx.n.chats": ("{n} chats", "{n} 个对话"),
    "chx.n.chats_one": ("1 chat", "1 个对话"),
    "chx.view.label": ("Show", "显示"),
    "chx.view.answer": ("Every budget", "每个预算"),
    "chx.view.lanes": ("The timeline", "时间线"),
    # 7 · knobs
    "chx.body.8": (
        "Every engine has the same two dials under different names: how many tokens one step may carry, and how "
        "many sequences may run at once. The table gives each setting's default, the file or doc where that "
        "default is written, and the simulator setting it maps to. Pick one to see its effect in a run.",
        "每个引擎都有同样的两个旋钮，只是名字不同：一步最多装多少 token，同时最多跑多少条序列。下表列出每个参数的默认值、"
        "默认值所在的文件或文档，以及它对应的模拟器设置。选一个参数，看它在一次运行中的效果。"),
    "chx.knob.engine": ("engine", "引擎"),
    "chx.knob.name": ("setting", "参数"),
    "chx.knob.default": ("default", "默认值"),
    "chx.knob.source": ("source of the default", "默认值出处"),
    "chx.knob.setting": ("simulator setting", "模拟器设置"),
    "chx.knob.not_modelled": ("not modelled", "未建模"),
    "chx.knob.pick": ("See the effect of", "查看效果："),
    "chx.knob.value": ("value", "取值"),
    "chx.knob.col.ttft": ("TTFT p50 (ms)", "首字延迟 p50（毫秒）"),
    "chx.knob.col.tbt": ("TBT p99 (ms)", "字间延迟 p99（毫秒）"),
    "chx.knob.col.gap": ("longest gap (ms)", "最长间隔（毫秒）"),
    "chx.knob.col.thr": ("tok/s (all)", "token/秒（全部）"),
    "chx.knob.col.steps": ("steps", "步数"),
    "chx.knob.col.preempt": ("preemptions", "抢占次数"),
    "chx.knob.col.hits": ("prefix hit rate", "前缀命中率"),
    "chx.knob.runs": ("These runs: {engine}, simulator policy {policy}, {requests} requests; each row sets "
                      "`{setting}` to its value.",
                      "这些运行：{engine}，模拟器策略 {policy}，{requests} 个请求；每一行把 `{setting}` 设为该行的取值。"),
    "chx.off.title": ("When to turn chunking off", "什么时候关掉分块"),
    "chx.off.short_prompts": ("**Short prompts** (32 chats of about 64 tokens): a prompt never exceeds the budget, so "
                              "chunking changes nothing about TTFT; keep it on or off as you like.",
                              "**短提示词**（32 个约 64 token 的对话）：提示词从不超过预算，分块对首字延迟毫无影响，开不开都行。"),
    "chx.off.offline_batch": ("**Offline batch** (64 jobs of about 1,500 tokens arriving together): nobody watches the "
                              "tokens, so big steps win. No chunking (or a large budget) gives lower TTFT and more "
                              "tokens per second than 512-token chunks.",
                              "**离线批量**（64 个约 1,500 token 的任务同时到达）：没人盯着逐字输出，大步更划算。"
                              "不分块（或用大预算）比 512 token 的分块首字延迟更低、每秒 token 更多。"),
    "chx.off.run": ("run", "运行"),
    "chx.q.8": ("SGLang cuts R{rid}'s prompt into chunks. Does every chat get a token in each step that runs one of "
                "those chunks?",
                "SGLang 把 R{rid} 的提示词切成块。运行这些块的每一步里，每个对话都能拿到 token 吗？"),
    "chx.o.8.yes": ("yes, with its defaults", "能，默认设置就能"),
    "chx.o.8.only_with_mixed_chunk": ("only with `--enable-mixed-chunk`", "只有开启 `--enable-mixed-chunk` 才能"),
    "chx.o.8.no": ("no, not even with `--enable-mixed-chunk`", "不能，开启 `--enable-mixed-chunk` 也不行"),
    "chx.a.8": ("SGLang's defaults: {doc_stall_steps:.0f} of the {doc_chunks:.0f} chunk steps leave a chat without "
                "a token, longest gap {tbt_max_ms:.0f} ms. With `--enable-mixed-chunk`: {doc_stall_steps_mixed:.0f}, "
                "longest gap {tbt_max_mixed_ms:.0f} ms.",
                "SGLang 默认设置：{doc_chunks:.0f} 个分块步中有 {doc_stall_steps:.0f} 步让对话拿不到 token，最长间隔 "
                "{tbt_max_ms:.0f} 毫秒。开启 `--enable-mixed-chunk`：{doc_stall_steps_mixed:.0f} 步，最长间隔 "
                "{tbt_max_mixed_ms:.0f} 毫秒。"),
    # 8 · misconceptions
    "chx.body.9": ("Six things people say about chunked prefill, each checked by a run of this simulator, then "
                   "questions to practise with.", "人们常说的六句关于分块预填充的话，逐一用本模拟器跑一遍核对；然后是练习用的面试题。"),
    "chx.q.9": ("Does chunked prefill lower TTFT p50 on this workload?", "在这份负载上，分块预填充会降低首字延迟 p50 吗？"),
    "chx.o.9.lower": ("lower", "降低"),
    "chx.o.9.same": ("about the same", "差不多"),
    "chx.o.9.higher": ("higher", "升高"),
    "chx.a.9": ("Prefill-first {ttft_p50_ms_mono:.1f} ms, chunked {ttft_p50_ms_chunked:.1f} ms: new chats queue behind "
                "the document's chunks. What chunking buys is the longest gap: {tbt_max_ms_mono:.0f} → "
                "{tbt_max_ms_chunked:.0f} ms.",
                "预填充优先 {ttft_p50_ms_mono:.1f} 毫秒，分块 {ttft_p50_ms_chunked:.1f} 毫秒：新来的对话排在文档的各块后面。"
                "分块换来的是最长间隔：{tbt_max_ms_mono:.0f} → {tbt_max_ms_chunked:.0f} 毫秒。"),
    "chx.myth.title": ("Six claims: true or false?", "六个说法：对还是错？"),
    "chx.myth.say_true": ("true", "对"),
    "chx.myth.say_false": ("false", "错"),
    "chx.myth.wrong": ("The run says otherwise:", "运行结果不同："),
    "chx.myth.verdict_false": ("✗ does not hold", "✗ 不成立"),
    "chx.myth.verdict_true": ("✓ holds", "✓ 成立"),
    "chx.myth.lowers_ttft": ("“Chunking lowers TTFT.”", "“分块能降低首字延迟。”"),
    "chx.myth.lowers_ttft.why": ("TTFT p50 goes from {mono_ms:.1f} ms to {chunked_ms:.1f} ms: chunking protects the "
                                 "gaps between tokens, not the first token.",
                                 "首字延迟 p50 从 {mono_ms:.1f} 毫秒变为 {chunked_ms:.1f} 毫秒：分块保护的是字间延迟，不是首字延迟。"),
    "chx.myth.adds_flops": ("“Chunking adds attention FLOPs.”", "“分块会增加注意力 FLOPs。”"),
    "chx.myth.adds_flops.why": ("Chapter 3's example ({n} tokens, head size {d}, chunks of {chunk}): {chunked_flops} "
                                "FLOPs chunked, {one_pass_flops} in one pass, outputs differing by {max_diff:.1e}; "
                                "what grows is the K/V read, {kv_ratio:.1f}×.",
                                "第 3 章的例子（{n} 个 token，头维度 {d}，每块 {chunk} 个）：分块 {chunked_flops} FLOPs，"
                                "一次算完 {one_pass_flops}，输出相差 {max_diff:.1e}；增加的是 K/V 读取量，{kv_ratio:.1f} 倍。"),
    "chx.myth.budget_per_step": ("“The budget counts every token of a step, decodes included.”",
                                 "“预算按一步里的全部 token 计算，解码也算在内。”"),
    "chx.myth.budget_per_step.why": ("The step of the document's first chunk: {decodes:.0f} decode tokens + a "
                                     "{chunk:,.0f}-token chunk = {budget:,.0f}, the budget.",
                                     "文档第一块所在的那一步：{decodes:.0f} 个解码 token + {chunk:,.0f} token 的块 = "
                                     "{budget:,.0f}，正好是预算。"),
    "chx.myth.always_removes_stalls": ("“Chunking always removes stalls.”", "“分块一定能消除卡顿。”"),
    "chx.myth.always_removes_stalls.why": ("SGLang's defaults chunk the prompt but run the chunks back to back: "
                                           "{stall_steps:.0f} steps stall decodes, longest gap {tbt_max_ms:.0f} ms.",
                                           "SGLang 默认会分块，但各块连着跑：{stall_steps:.0f} 步卡住解码，最长间隔 "
                                           "{tbt_max_ms:.0f} 毫秒。"),
    "chx.myth.budget_trades": ("“A bigger budget buys the documents an earlier first token with the chats' gaps.”",
                               "“预算越大，文档首字越早，代价是对话的间隔变长。”"),
    "chx.myth.budget_trades.why": ("From {small:,.0f} to {big:,.0f} tokens: chats' TBT p99 {small_ms:.1f} → "
                                   "{big_ms:.1f} ms, documents' TTFT p50 {small_doc_ms:,.1f} → {big_doc_ms:,.1f} ms.",
                                   "预算从 {small:,.0f} 到 {big:,.0f} token：对话字间延迟 p99 {small_ms:.1f} → "
                                   "{big_ms:.1f} 毫秒，文档首字延迟 p50 {small_doc_ms:,.1f} → {big_doc_ms:,.1f} 毫秒。"),
    "chx.myth.continuous_beats_static": ("“Continuous batching serves more tokens per second than static batching.”",
                                         "“连续批处理每秒产出的 token 比静态批处理多。”"),
    "chx.myth.continuous_beats_static.why": ("Static {static_tps:,.0f}, continuous {continuous_tps:,.0f} output tok/s; "
                                             "TTFT p50 {static_ttft_ms:,.0f} vs {continuous_ttft_ms:,.1f} ms.",
                                             "输出：静态 {static_tps:,.0f}、连续 {continuous_tps:,.0f} token/秒；"
                                             "首字延迟 p50：{static_ttft_ms:,.0f} 对 {continuous_ttft_ms:,.1f} 毫秒。"),
    "chx.interview.title": ("Interview questions", "面试题"),
    "chx.iq.1": ("Why does chunked prefill give the same output as computing the prompt in one pass?",
                 "为什么分块预填充的结果和一次算完整个提示词相同？"),
    "chx.ia.1": ("Causal attention for a query depends only on the keys and values before it. Chunk k's queries read "
                 "the K/V that earlier chunks stored in the cache and their own triangle, which is exactly the set "
                 "one pass would give them (chapter 3).",
                 "因果注意力中，一个查询只依赖它之前的键和值。第 k 块的查询读取前面各块存在缓存里的 K/V 和本块"
                 "自己的三角部分，正好是一次算完时它能看到的集合（第 3 章）。"),
    "chx.iq.2": ("What does max_num_batched_tokens bound, and where do decodes fit in it?",
                 "max_num_batched_tokens 限制的是什么？解码放在哪里？"),
    "chx.ia.2": ("The tokens of one engine step, all requests together. In vLLM V1 the running decodes take one "
                 "token each first; the prompt chunks get what is left (chapter 9, claim 3).",
                 "一个引擎步里所有请求加起来的 token 数。在 vLLM V1 中，正在解码的请求先各拿一个 token，剩下的才给提示词块"
                 "（第 9 章第 3 条）。"),
    "chx.iq.3": ("Why can chunking raise TTFT, and what can an engine do about it?",
                 "为什么分块可能让首字延迟变高？引擎能做什么？"),
    "chx.ia.3": ("A long prompt now spans many steps, and new short prompts queue behind its chunks. vLLM's "
                 "long_prefill_token_threshold caps one prompt's share of a step so short ones get in (chapter 8).",
                 "长提示词要跨很多步，新来的短提示词排在它的各块后面。vLLM 的 long_prefill_token_threshold 限制单个提示词在一步中"
                 "的份额，让短请求插进来（第 8 章）。"),
    "chx.iq.4": ("How do prefix caching and chunking work together?", "前缀缓存和分块如何配合？"),
    "chx.ia.4": ("A cache hit skips whole blocks of the prompt, and chunking starts after them. Only full blocks are "
                 "shared, and the hit stops one token short of the prompt so the last token yields logits (chapter 4).",
                 "缓存命中跳过提示词中的整块，分块从命中之后开始。只有满块会被共享，命中长度最多到提示词少一个 token，"
                 "以便最后一个 token 产生 logits（第 4 章）。"),
    "chx.iq.5": ("When would you turn chunked prefill off?", "什么时候会关掉分块预填充？"),
    "chx.ia.5": ("When nobody waits for tokens (offline batch jobs: bigger steps give more tokens per second) or when "
                 "prompts never exceed the budget (it changes nothing). Measure first (chapter 8).",
                 "没人等着逐字输出时（离线批量任务：大步每秒产出更多 token），或者提示词从不超过预算时（开了也没变化）。"
                 "先测量再决定（第 8 章）。"),
    "chx.iq.6": ("Continuous batching versus decode-first batching: what is the difference?",
                 "连续批处理和解码优先批处理有什么区别？"),
    "chx.ia.6": ("Continuous batching decides per step who is in the batch. Decode-first also decides the order "
                 "inside the step: decodes before prompts, with prompts chunked to fit, so no step freezes the "
                 "chats (chapter 5).",
                 "连续批处理按步决定谁在批里。解码优先还决定了一步之内的顺序：先解码、后提示词，提示词切块填满剩余预算，"
                 "所以没有哪一步会冻住对话（第 5 章）。"),
}
