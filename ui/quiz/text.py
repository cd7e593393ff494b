"""Texts of the quiz page (English, 中文): questions, options, what was run, figure labels and explanations."""

TEXTS: dict[str, tuple[str, str]] = {
    "qz.title": ("Quiz: misconceptions, settled by running the code", "测验：用运行结果澄清常见误区"),
    "qz.lesson": (
        "Eight common misconceptions and interview questions about chunked prefill and KV caches. Pick an answer: the "
        "page then runs the simulator, the cost model, the block manager or the paging code, and shows the numbers "
        "that settle it. The verdict is computed from those numbers, not written in advance.",
        "这里有八个关于分块预填充和 KV 缓存的常见误区与面试题。选一个答案后，页面会运行模拟器、成本模型、块管理器或"
        "页面置换代码，给出能下结论的数字。判定是根据这些数字算出来的，而不是事先写好的。"),
    "qz.score": ("Answered {answered} of {total}; {right} right.", "已答 {answered}/{total} 题，答对 {right} 题。"),
    "qz.right": ("Right. The numbers below show it.", "答对了。下面的数字可以证明。"),
    "qz.wrong": ("Not quite. The numbers below point to: {answer}", "不太对。下面的数字指向的是：{answer}"),
    "qz.how_title": ("How these numbers were computed", "这些数字是怎么算出来的"),
    "qz.pick": ("Your answer", "你的答案"),
    # --- 1. attention FLOPs ---
    "qz.q.attention_flops": ("Does chunked prefill add attention FLOPs?", "分块预填充会增加注意力的 FLOPs 吗？"),
    "qz.opt.attention_flops.more_flops": ("Yes: every chunk recomputes attention over all earlier chunks.",
                                          "会：每个分块都要把之前所有分块的注意力重算一遍。"),
    "qz.opt.attention_flops.same_flops_more_bytes": ("No: the same (query, key) pairs are computed, but more bytes "
                                                     "are read.", "不会：计算的 (query, key) 对完全相同，但读取的字节更多。"),
    "qz.opt.attention_flops.fewer_flops": ("No, fewer: small chunks mean small attention matrices.",
                                           "不会，反而更少：分块小，注意力矩阵也小。"),
    "qz.opt.attention_flops.no_cost": ("No, and it costs nothing else either.", "不会，而且也没有任何其他代价。"),
    "qz.how.attention_flops": ("One attention head in float64 (512 tokens, d = 64, chunks of 48) computed both ways, "
                               "and the cost model summed over the steps of an 8,192-token prefill on Llama-3-8B / "
                               "H100, whole and in chunks of 512.",
                               "用 float64 把一个注意力头（512 个 token，d = 64，分块 48）按两种方式各算一遍；再用成本"
                               "模型把 Llama-3-8B / H100 上 8,192 token 预填充的各步加总，分别是整体计算和 512 分块。"),
    "qz.explain.attention_flops": (
        "A chunk's queries attend to the cached keys of earlier chunks plus their own causal triangle. Over all "
        "chunks these are exactly the n(n+1)/2 cells of the causal mask, each computed once, so the FLOPs match one "
        "pass and the output agrees up to float rounding. Earlier keys are re-read, not recomputed: each chunk reads "
        "the whole cached prefix again, and a real engine also reads the weights once per step. That is the real "
        "cost of chunking: bytes and time, not FLOPs.",
        "分块的 query 关注的是之前分块已缓存的 key，加上自己内部的因果三角。所有分块加起来，正好是因果掩码的 "
        "n(n+1)/2 个格子，每个只算一次，所以 FLOPs 与整体计算相同，输出也只差浮点舍入。之前的 key 是被重新读取，而不"
        "是重新计算：每个分块都要把缓存的前缀再读一遍，真实引擎每一步还要再读一遍权重。这才是分块真正的代价：字节和"
        "时间，而不是 FLOPs。"),
    # --- 2. the long request's TTFT ---
    "qz.q.long_request_ttft": ("Does chunked prefill lower the long request's own time to first token?",
                               "分块预填充会降低长请求自身的首字延迟吗？"),
    "qz.opt.long_request_ttft.lower": ("Yes: its first chunk starts right away.", "会：它的第一个分块马上就能开始。"),
    "qz.opt.long_request_ttft.same": ("It stays the same: the total work is unchanged.", "不变：总工作量没变。"),
    "qz.opt.long_request_ttft.higher": ("No, it gets later: its prefill is spread over many steps, each shared with "
                                        "decodes and paying a fixed overhead.",
                                        "不会，反而更晚：它的预填充被拆到很多步里，每步都要与解码共享预算，还要付固定开销。"),
    "qz.how.long_request_ttft": ("The engine, twice: 32 chats are streaming on Llama-3-8B / H100 when an 8,000-token "
                                 "document arrives; prefill-first whole prompts (vLLM V0), then vLLM V1 chunked prefill with a budget of 512.",
                                 "把引擎跑两遍：Llama-3-8B / H100 上有 32 个聊天正在输出，这时一个 8,000 token 的文档"
                                 "到达；先用预填充优先的整段预填充（vLLM V0），再用预算 512 的 vLLM V1 分块预填充。"),
    "qz.explain.long_request_ttft": (
        "Chunking protects the others, not the long prompt. Its 8,000 tokens now take many steps, each of which also "
        "carries the chats' decodes and pays the per-step overhead and another read of the weights and the cache, so "
        "its first token comes later. What improves is the chats' worst gap between tokens, which no longer contains "
        "a whole long prefill. Short requests queued behind a long prompt can get their first token sooner, if the "
        "scheduler lets them in.",
        "分块保护的是别人，而不是这个长提示词。它的 8,000 个 token 现在要分很多步完成，每一步还要捎带聊天的解码，"
        "并付出每步的固定开销、再读一遍权重和缓存，所以它的首个 token 来得更晚。改善的是聊天的最长字间延迟：其中"
        "不再包含一整次长预填充。排在长提示词后面的短请求，如果调度器让它们插进来，首字反而可能更早。"),
    # --- 3. the budget ---
    "qz.q.budget_is_per_step": ("Is max_num_batched_tokens a per-request chunk size?",
                                "max_num_batched_tokens 是每个请求的分块大小吗？"),
    "qz.opt.budget_is_per_step.per_request_chunk": ("Yes: each prompt is cut into chunks of exactly that many "
                                                    "tokens.", "是：每个提示词都被切成正好这么多 token 的分块。"),
    "qz.opt.budget_is_per_step.per_step_total": ("No: it caps the whole step, decodes included; a prompt gets what "
                                                 "the running decodes leave.",
                                                 "不是：它限制的是一整步的 token 总数，包括解码；提示词只能拿到解码剩下"
                                                 "的部分。"),
    "qz.opt.budget_is_per_step.decodes_on_top": ("No: it caps prompt tokens only; decodes come on top.",
                                                 "不是：它只限制提示词 token，解码另算。"),
    "qz.how.budget_is_per_step": ("The chunked run of the previous question (budget 512): the first step in which "
                                  "the document's prefill shares the step with decodes.",
                                  "上一题中的分块运行（预算 512）：文档的预填充第一次与解码同处一步的那一步。"),
    "qz.explain.budget_is_per_step": (
        "In vLLM, as in Sarathi-Serve and TensorRT-LLM, the budget is the token total of one engine step. Running "
        "decodes are scheduled first, one token each, and a waiting prompt's chunk is whatever is left. With 256 "
        "decodes running and a budget of 512, a prompt moves only 256 tokens per step.",
        "在 vLLM 中（Sarathi-Serve 和 TensorRT-LLM 也一样），预算是一个引擎步骤的 token 总数。正在运行的解码先被调度，"
        "每个一个 token；等待中的提示词，分块大小就是剩下的部分。如果有 256 个解码在运行、预算为 512，提示词每步只能"
        "前进 256 个 token。"),
    # --- 4. SGLang and ITL ---
    "qz.q.sglang_itl": ("Does chunked prefill always smooth the gaps between output tokens (ITL)?",
                        "分块预填充一定能让字间延迟更平稳吗？"),
    "qz.opt.sglang_itl.always": ("Yes: any engine that chunks prompts stops stalling decodes.",
                                 "是：只要把提示词分块，解码就不会再卡住。"),
    "qz.opt.sglang_itl.never": ("No: chunking never helps the token gaps.", "不会：分块对字间延迟从来没有帮助。"),
    "qz.opt.sglang_itl.depends_on_mixing": ("Only if decodes share the steps with the chunks: SGLang's default runs "
                                            "a prompt's chunks back to back, and decodes still stall.",
                                            "只有当解码与分块同处一步时才行：SGLang 默认把一个提示词的分块连续跑完，"
                                            "解码照样卡住。"),
    "qz.how.sglang_itl": ("The same document-among-chats workload, three engines: prefill-first (vLLM V0), vLLM V1's "
                          "chunked prefill and SGLang's default, both chunking at 512.",
                          "同样的“聊天中来了一个长文档”负载，三种引擎：预填充优先（vLLM V0）、vLLM V1 分块预填充、SGLang 默认设置，"
                          "后两者都按 512 分块。"),
    "qz.explain.sglang_itl": (
        "Gaps shrink only when each step carries the running decodes next to a chunk, as vLLM's does. SGLang by "
        "default gives prefill priority: it runs every chunk of the new prompt back to back in prefill-only batches, "
        "so the chats wait about as long as under vLLM V0's prefill-first scheduler (its `--enable-mixed-chunk` flag changes that). "
        "Even with decodes mixed in, a step with a chunk is slower than a pure decode step, so the gaps still vary; "
        "chunking bounds the jitter by the chunk size rather than removing it.",
        "只有当每一步都把正在运行的解码和分块放在一起时（vLLM 就是这样），字间延迟才会缩短。SGLang 默认预填充优先："
        "它用只含预填充的批次把新提示词的所有分块连续跑完，所以聊天要等的时间和 vLLM V0 的预填充优先调度差不多（打开 "
        "`--enable-mixed-chunk` 可以改变这一点）。即使解码混在一起，带分块的一步也比纯解码的一步慢，所以间隔仍有波动；"
        "分块只是用分块大小给抖动设了上限，而不是消除它。"),
    # --- 5. budget and TBT p99 ---
    "qz.q.budget_tbt_p99": ("On the app's default workload, what happens to TBT p99 when the chunked budget goes "
                            "from 512 to 8192 tokens?",
                            "在本应用的默认负载上，把分块预算从 512 提高到 8192 个 token，字间延迟 p99 会怎样？"),
    "qz.opt.budget_tbt_p99.falls": ("It falls: fewer, larger steps.", "下降：步数更少、每步更大。"),
    "qz.opt.budget_tbt_p99.unchanged": ("Nothing: the budget only changes throughput.", "不变：预算只影响吞吐。"),
    "qz.opt.budget_tbt_p99.rises": ("It rises: one step can now carry a whole long prompt, and every decode in that "
                                    "step waits for it.", "上升：一步现在能装下整个长提示词，这一步里的所有解码都得等它。"),
    "qz.how.budget_tbt_p99": ("The engine on the default scenario (64 requests, long documents among chats, "
                              "Llama-3-8B / H100), chunked at 512 and at 8192.",
                              "在默认场景上运行引擎（64 个请求，聊天中夹着长文档，Llama-3-8B / H100），分别按 512 和 "
                              "8192 分块。"),
    "qz.explain.budget_tbt_p99": (
        "With a budget of 8192, a 6,000–8,000-token document fits into one step, which then takes a large share of a "
        "second; every chat decoding in that step gets its next token only when the step ends. At 512 the document "
        "is spread over many short steps. For TTFT the trade goes the other way: the large budget prefills prompts "
        "in fewer steps, so first tokens come sooner. This is the latency dial the article's section 5 describes.",
        "预算为 8192 时，一个 6,000–8,000 token 的文档可以塞进一步，这一步要花零点几秒；这一步里每个正在解码的聊天，"
        "都要等它结束才能拿到下一个 token。预算为 512 时，文档被摊到很多短步里。对首字延迟来说则正好相反：大预算用更少"
        "的步数完成预填充，首字来得更早。这就是原文第五节讲的延迟权衡。"),
    # --- 6. tail-first free ---
    "qz.q.tail_first_free": ("Why does vLLM free a finished request's KV blocks tail-first?",
                             "为什么 vLLM 释放一个已完成请求的 KV 块时，要从最后一块开始？"),
    "qz.opt.tail_first_free.allocator_speed": ("It is simply faster for the allocator.", "只是因为这样分配器更快。"),
    "qz.opt.tail_first_free.keep_prefix_head": ("So that the deepest blocks are evicted first and the shared head of "
                                                "a prefix stays cached.",
                                                "为了让最靠后的块先被淘汰，让前缀开头的共享块留在缓存里。"),
    "qz.opt.tail_first_free.no_difference": ("It makes no difference; any order works.", "没有区别，哪种顺序都行。"),
    "qz.how.tail_first_free": ("The block manager with 6 blocks of 4 tokens and prefix caching: a 16-token document "
                               "fills 4 blocks and finishes, an unrelated request takes 4 blocks, then the document "
                               "is sent again; once freeing tail-first (vLLM), once head-first.",
                               "块管理器，6 个块、每块 4 个 token，开启前缀缓存：一个 16 token 的文档占满 4 个块后完成，"
                               "一个无关的请求拿走 4 个块，然后再次发送这个文档；一次从尾部开始释放（vLLM 的做法），"
                               "一次从头部开始。"),
    "qz.explain.tail_first_free": (
        "Prefix-cache keys are chained: a block's key covers every block before it, so a hit must start at the first "
        "block and stops at the first missing one. Freed blocks join the back of the free queue in the order they "
        "are released, and allocation takes from the front. Releasing the last block first puts the deepest blocks "
        "nearest the front, so memory pressure evicts the tail and the head survives: here the document still hits "
        "its first 8 tokens. Released head-first, the first block dies, the chain breaks at once, and the blocks that "
        "are still cached are useless.",
        "前缀缓存的键是链式的：一个块的键涵盖它之前的所有块，所以命中必须从第一块开始，遇到第一个缺失的块就停止。"
        "释放的块按释放顺序排到空闲队列末尾，分配则从队首取。先释放最后一块，最深的块就离队首最近，内存紧张时被淘汰"
        "的是尾部，开头得以保留：这里文档仍能命中前 8 个 token。如果从头部开始释放，第一块最先被淘汰，链条立刻断开，"
        "剩下还在缓存里的块也用不上了。"),
    # --- 7. KV per token ---
    "qz.q.kv_per_token": ("How much KV cache does Llama-2-7B store per token compared with Llama-3-8B, and why?",
                          "Llama-2-7B 每个 token 存的 KV 缓存与 Llama-3-8B 相比是多少？为什么？"),
    "qz.opt.kv_per_token.same": ("The same: both have 32 layers and a hidden size of 4096.",
                                 "一样：两者都是 32 层、隐藏维度 4096。"),
    "qz.opt.kv_per_token.llama2_more": ("Llama-2-7B stores 4× more: it has 32 KV heads, while Llama-3-8B uses "
                                        "grouped-query attention with 8.",
                                        "Llama-2-7B 多 4 倍：它有 32 个 KV 头，而 Llama-3-8B 用分组查询注意力，只有 8 个。"),
    "qz.opt.kv_per_token.llama3_more": ("Llama-3-8B stores more: its vocabulary is four times larger.",
                                        "Llama-3-8B 更多：它的词表大了四倍。"),
    "qz.how.kv_per_token": ("The model catalogue (shapes from each model's Hugging Face config.json) and its KV "
                            "formula.", "模型目录（各模型的形状取自 Hugging Face 的 config.json）及其中的 KV 公式。"),
    "qz.explain.kv_per_token": (
        "KV bytes per token = 2 (K and V) × layers × KV heads × head dim × bytes per value. Both models have 32 "
        "layers, a head dim of 128 and 16-bit values; Llama-3-8B shares each K/V head among 4 query heads "
        "(grouped-query attention), so it keeps 8 KV heads instead of 32. The vocabulary only changes the embedding "
        "and lm_head weights, never the cache. A quarter of the bytes per token means four times as many tokens in "
        "the same memory.",
        "每个 token 的 KV 字节数 = 2（K 和 V）× 层数 × KV 头数 × 头维度 × 每个值的字节数。两个模型都是 32 层、头维度 "
        "128、16 位数值；Llama-3-8B 让每个 K/V 头由 4 个 query 头共享（分组查询注意力），所以只保留 8 个 KV 头，而不是 "
        "32 个。词表只影响嵌入层和 lm_head 的权重，与缓存无关。每个 token 的字节数变成四分之一，同样的显存就能放下四倍"
        "的 token。"),
    # --- 8. Belady ---
    "qz.q.belady": ("FIFO and LRU on the reference string 1,2,3,4,1,2,5,1,2,3,4,5: what does a fourth frame do?",
                    "在引用串 1,2,3,4,1,2,5,1,2,3,4,5 上运行 FIFO 和 LRU：增加第四个页框会怎样？"),
    "qz.opt.belady.more_is_better": ("More frames never hurt: both fault less with 4.",
                                     "页框越多越好：两种算法在 4 个页框时缺页都更少。"),
    "qz.opt.belady.both_worse": ("Both fault more with 4 frames on this string.",
                                 "在这个串上，两种算法在 4 个页框时缺页都更多。"),
    "qz.opt.belady.fifo_anomaly": ("FIFO faults more with 4 frames than with 3 (Belady's anomaly); LRU does not.",
                                   "FIFO 在 4 个页框时反而比 3 个缺页更多（Belady 异常）；LRU 不会。"),
    "qz.how.belady": ("The page-replacement simulator, FIFO and LRU, each with 3 and with 4 frames.",
                      "页面置换模拟器：FIFO 和 LRU，各用 3 个和 4 个页框。"),
    "qz.explain.belady": (
        "FIFO evicts the page loaded longest ago, however often it is used, and the pages it holds with 4 frames are "
        "not always a superset of those it holds with 3, so one more frame can cost a fault. LRU is a stack "
        "algorithm: with n + 1 frames it always holds what it would hold with n, plus one page, so more memory never "
        "hurts it. vLLM's free queue evicts cached blocks in LRU order.",
        "FIFO 淘汰最早装入的页，不管它用得多频繁；它在 4 个页框时持有的页，并不总是包含 3 个页框时持有的页，所以多一"
        "个页框反而可能多一次缺页。LRU 是栈算法：n + 1 个页框时持有的页，总是包含 n 个页框时持有的页再加一页，所以内存"
        "越多越不会吃亏。vLLM 的空闲队列就是按 LRU 顺序淘汰缓存块的。"),
    # --- figure labels ---
    "qz.fig.max_abs_diff": ("max |Δ|, toy head", "最大 |Δ|（单头玩具）"),
    "qz.fig.toy_flops_one_pass": ("toy head FLOPs, one pass", "单头 FLOPs，整体"),
    "qz.fig.toy_flops_chunked": ("toy head FLOPs, chunked", "单头 FLOPs，分块"),
    "qz.fig.real_attn_flops_whole": ("Llama-3-8B attention, whole", "Llama-3-8B 注意力，整体"),
    "qz.fig.real_attn_flops_chunked": ("Llama-3-8B attention, chunks of 512", "Llama-3-8B 注意力，512 分块"),
    "qz.fig.real_bytes_whole": ("Llama-3-8B bytes read, whole", "Llama-3-8B 读取字节，整体"),
    "qz.fig.real_bytes_chunked": ("Llama-3-8B bytes read, chunks of 512", "Llama-3-8B 读取字节，512 分块"),
    "qz.fig.doc_ttft_mono": ("document TTFT, prefill-first (V0)", "文档首字延迟，预填充优先（V0）"),
    "qz.fig.doc_ttft_chunked": ("document TTFT, chunked", "文档首字延迟，分块预填充"),
    "qz.fig.doc_prefill_steps_chunked": ("steps of its chunked prefill", "分块预填充用的步数"),
    "qz.fig.chat_gap_mono": ("chats' worst token gap, prefill-first (V0)", "聊天最长字间延迟，预填充优先（V0）"),
    "qz.fig.chat_gap_chunked": ("chats' worst token gap, chunked", "聊天最长字间延迟，分块预填充"),
    "qz.fig.chat_gap_vllm": ("chats' worst token gap, vLLM chunked", "聊天最长字间延迟，vLLM 分块"),
    "qz.fig.chat_gap_sglang": ("chats' worst token gap, SGLang default", "聊天最长字间延迟，SGLang 默认"),
    "qz.fig.stall_steps_mono": ("stalled steps, prefill-first (V0)", "解码卡住的步数，预填充优先（V0）"),
    "qz.fig.stall_steps_vllm": ("stalled steps, vLLM chunked", "解码卡住的步数，vLLM 分块"),
    "qz.fig.stall_steps_sglang": ("stalled steps, SGLang default", "解码卡住的步数，SGLang 默认"),
    "qz.fig.budget": ("budget of the step", "这一步的预算"),
    "qz.fig.step_decode_tokens": ("decode tokens in it", "其中的解码 token"),
    "qz.fig.step_doc_tokens": ("document chunk in it", "其中的文档分块"),
    "qz.fig.step_total_tokens": ("tokens in the step", "这一步的 token 总数"),
    "qz.fig.tbt_p99_512": ("TBT p99, budget 512", "字间延迟 p99，预算 512"),
    "qz.fig.tbt_p99_8192": ("TBT p99, budget 8192", "字间延迟 p99，预算 8192"),
    "qz.fig.ttft_p50_512": ("TTFT p50, budget 512", "首字延迟 p50，预算 512"),
    "qz.fig.ttft_p50_8192": ("TTFT p50, budget 8192", "首字延迟 p50，预算 8192"),
    "qz.fig.evicted_tail_first": ("document blocks evicted, tail-first", "被淘汰的文档块，尾部先释放"),
    "qz.fig.evicted_head_first": ("document blocks evicted, head-first", "被淘汰的文档块，头部先释放"),
    "qz.fig.hit_tokens_tail_first": ("prefix hit when it returns, tail-first", "再次到来时的前缀命中，尾部先释放"),
    "qz.fig.hit_tokens_head_first": ("prefix hit when it returns, head-first", "再次到来时的前缀命中，头部先释放"),
    "qz.fig.kv_llama2": ("Llama-2-7B KV per token", "Llama-2-7B 每 token 的 KV"),
    "qz.fig.kv_llama3": ("Llama-3-8B KV per token", "Llama-3-8B 每 token 的 KV"),
    "qz.fig.kv_ratio": ("ratio", "倍数"),
    "qz.fig.kv_heads_llama2": ("Llama-2-7B KV heads", "Llama-2-7B 的 KV 头"),
    "qz.fig.kv_heads_llama3": ("Llama-3-8B KV heads", "Llama-3-8B 的 KV 头"),
    "qz.fig.faults_fifo_3": ("FIFO, 3 frames", "FIFO，3 个页框"),
    "qz.fig.faults_fifo_4": ("FIFO, 4 frames", "FIFO，4 个页框"),
    "qz.fig.faults_lru_3": ("LRU, 3 frames", "LRU，3 个页框"),
    "qz.fig.faults_lru_4": ("LRU, 4 frames", "LRU，4 个页框"),
    # --- units: {v} is the value (FLOPs and bytes get SI prefixes in the page instead) ---
    "qz.unit.ms": ("{v:.1f} ms", "{v:.1f} 毫秒"),
    "qz.unit.tokens": ("{v:,.0f} tokens", "{v:,.0f} 个 token"),
    "qz.unit.steps": ("{v:,.0f} steps", "{v:,.0f} 步"),
    "qz.unit.blocks": ("{v:,.0f} blocks", "{v:,.0f} 个块"),
    "qz.unit.faults": ("{v:,.0f} faults", "{v:,.0f} 次缺页"),
    "qz.unit.kib": ("{v:,.0f} KiB", "{v:,.0f} KiB"),
    "qz.unit.heads": ("{v:,.0f}", "{v:,.0f} 个"),
    "qz.unit.ratio": ("{v:g}×", "{v:g} 倍"),
    "qz.unit.diff": ("{v:.1e}", "{v:.1e}"),
}
