"""Texts of chapter 7, "Split the kitchen" (English, 中文): the engines' labels, the transfer's note, the question,
its answer and the sweep. Every figure is a format field filled from a run (chunkviz/lessons/split.py)."""

TEXTS: dict[str, tuple[str, str]] = {
    "chx.preset.two-gpus": ("chapter 2's 6 requests on two H100s (Llama-3-8B, budget 512 on each): two colocated "
                            "instances, or 1P+1D (one prefill GPU, one decode GPU)",
                            "第 2 章的 6 个请求放到两块 H100 上（Llama-3-8B，每块预算 512）：两个同置实例，或者 "
                            "1P+1D（一块预填充 GPU、一块解码 GPU）"),
    "chx.split.eng.colocated": ("colocated · GPU {n}/2", "同置 · GPU {n}/2"),
    "chx.split.eng.prefill": ("1P+1D · prefill GPU", "1P+1D · 预填充 GPU"),
    "chx.split.eng.decode": ("1P+1D · decode GPU", "1P+1D · 解码 GPU"),
    "chx.split.run.colocated": ("colocated, 2 GPUs", "同置，2 块 GPU"),
    "chx.split.run.disagg": ("1P+1D", "1P+1D"),
    "chx.split.link": ("**1P+1D:** the KV cache crosses **{link}**, {how}, {setup_ms:.0f} ms of connector setup "
                       "per transfer",
                       "**1P+1D：** KV 缓存经 **{link}** 传过去，{how}，每次传输另有 {setup_ms:.0f} 毫秒的连接器准备时间"),
    "chx.split.how.after-prefill": ("pulled by the decode GPU once the prompt is done (vLLM's NIXL connector)",
                                    "提示词算完后由解码 GPU 拉取（vLLM 的 NIXL 连接器）"),
    "chx.split.how.per-chunk": ("sent chunk by chunk as the prompt runs (SGLang)", "提示词计算时逐块发送（SGLang）"),
    "chx.split.how.layerwise": ("layer by layer while the prompt runs", "提示词计算时逐层发送"),
    "chx.split.mode.layerwise": ("layer by layer", "逐层"),
    "chx.split.mode.after-prefill": ("after the prefill", "预填充后"),
    "chx.split.mode.per-chunk": ("chunk by chunk", "逐块"),
    "chx.split.sweep.verdict": ("1P+1D reaches colocated's goodput (within the search's tolerance) only over: "
                                "{wins}. Over {loses} colocated serves more at every length.",
                                "1P+1D 只有在这些链路上才追得上同置的有效吞吐（在搜索精度内）：{wins}。"
                                "走 {loses} 时，每种长度都是同置服务得更多。"),
    "chx.split.sweep.none": ("none", "无"),
    "chx.split.bm.kv": ("R{rid}'s KV at the decode GPU", "R{rid} 的 KV 到达解码 GPU"),
    "chx.split.lbl.kv": ("R{rid}'s KV → decode GPU: {gb:.2f} GB over {link}, {ms:.1f} ms after its prefill",
                         "R{rid} 的 KV → 解码 GPU：{gb:.2f} GB 经 {link}，预填充结束后再等 {ms:.1f} 毫秒"),
    "chx.split.legend.kv": ("KV transfer (prefill GPU → decode GPU)", "KV 传输（预填充 GPU → 解码 GPU）"),
    "chx.split.legend.kv_link": ("KV transfer, prefill GPU → decode GPU: {link}, {setup_ms:.0f} ms setup each",
                                 "KV 传输：预填充 GPU → 解码 GPU，经 {link}，每次建立连接 {setup_ms:.0f} 毫秒"),
    "chx.split.tip.kv": ("R{rid}'s KV cache: {gb:.2f} GB over {link}\n{a:,.1f} → {b:,.1f} ms, {ms:.1f} ms after its "
                         "prefill", "R{rid} 的 KV 缓存：{gb:.2f} GB 经 {link}\n{a:,.1f} → {b:,.1f} 毫秒，预填充结束后再等 "
                         "{ms:.1f} 毫秒"),
    "chx.body.7": (
        "Two GPUs can share the work in two ways. **Colocated**: each GPU is a whole kitchen that takes every "
        "second order and both prepares (prefill) and plates (decode) it, in chunks as in chapter 3. "
        "**Disaggregated** (1P+1D, as DistServe, Splitwise and Mooncake run it): one GPU only prepares, the other "
        "only plates, and each finished order's KV cache is carried across the link between them. The decode GPU "
        "never runs a prompt, so the chats' token gaps stay short; but every prompt now queues on one prefill "
        "GPU, and the KV has to cross the link before the first token reaches the user. Which wins per GPU "
        "depends on how long the prompts are, how busy the service is, and how fast the link is: the table after "
        "the question measures it.",
        "两块 GPU 分担工作有两种方式。**同置**：每块 GPU 都是一个完整的后厨，隔一单接一单，既备料（预填充）"
        "又出菜（解码），像第 3 章那样分块。**分离**（1P+1D，DistServe、Splitwise、Mooncake 都这样做）："
        "一块 GPU 只备料，另一块只出菜，每单备好的 KV 缓存经两者之间的链路送过去。解码 GPU 从不计算提示词，"
        "所以对话的字间延迟一直很短；代价是所有提示词都要在同一块预填充 GPU 上排队，而且 KV 要先过链路，"
        "首个 token 才能到用户手里。按每块 GPU 算谁更划算，取决于提示词多长、服务多忙、链路多快："
        "回答问题后的表格会量给你看。"),
    "chx.q.7": ("Two GPUs either way: which gives the requests the smaller worst token gap?",
                "两种方式都是两块 GPU：哪一种让请求的最长字间延迟更短？"),
    "chx.o.7.colocated": ("colocated chunked", "同置分块"),
    "chx.o.7.disagg": ("1P+1D", "1P+1D"),
    "chx.o.7.same": ("about the same", "差不多"),
    "chx.a.7": ("Worst token gap: colocated {tbt_max_ms_colocated:.1f} ms, 1P+1D {tbt_max_ms_disagg:.1f} ms: the "
                "decode GPU never runs a prompt chunk. The price is paid at the first token: the slowest chat's takes "
                "{chat_ttft_max_ms_colocated:,.0f} ms colocated and {chat_ttft_max_ms_disagg:,.0f} ms on 1P+1D, "
                "where it queues behind the document on the one prefill GPU; R{doc_rid:.0f}'s {doc_gb:.2f} GB of KV "
                "reached the decode GPU {doc_exposed_ms:.1f} ms after its prefill.",
                "最长字间延迟：同置 {tbt_max_ms_colocated:.1f} 毫秒，1P+1D {tbt_max_ms_disagg:.1f} 毫秒，因为"
                "解码 GPU 从不计算提示词块。代价落在首个 token 上：最慢的对话首字延迟同置是 "
                "{chat_ttft_max_ms_colocated:,.0f} 毫秒，1P+1D 是 {chat_ttft_max_ms_disagg:,.0f} 毫秒，因为它在唯一的"
                "预填充 GPU 上排在文档后面；R{doc_rid:.0f} 的 {doc_gb:.2f} GB KV 在它的预填充结束后 "
                "{doc_exposed_ms:.1f} 毫秒到达解码 GPU。"),
    "chx.split.sweep.title": ("Where each wins, per GPU", "按每块 GPU 算，谁在哪里更划算"),
    "chx.split.sweep.body": (
        "Goodput per GPU (requests/s): the highest load at which {n} requests (chats of 300 tokens, every 8th a "
        "document) meet TTFT p90 ≤ {ttft_ms:.0f} ms and TBT p99 ≤ {tbt_ms:.0f} ms, divided by the 2 GPUs. "
        "Rows: the documents' length; columns: colocated, and 1P+1D over each link. Prefix caching is off here: "
        "these prompts share nothing, so it would not change a figure.",
        "每块 GPU 的有效吞吐（请求/秒）：{n} 个请求（300 token 的对话，每 8 个里有 1 篇文档）同时满足首字延迟 "
        "p90 ≤ {ttft_ms:.0f} 毫秒、字间延迟 p99 ≤ {tbt_ms:.0f} 毫秒的最高负载，再除以 2 块 GPU。"
        "行：文档长度；列：同置，以及经各条链路的 1P+1D。这里关闭前缀缓存：这些提示词互不共享前缀，开启也不会改变任何数字。"),
    "chx.split.sweep.doc": ("document tokens", "文档 token 数"),
    "chx.split.sweep.colocated": ("colocated", "同置"),
    "chx.split.sweep.disagg": ("1P+1D · {link}", "1P+1D · {link}"),
    "chx.split.sweep.winner": ("wins", "胜出"),
    "chx.split.sweep.tie": ("tie", "持平"),
    "chx.split.load.title": ("Who wins at what load", "多大负载下谁胜出"),
    "chx.split.load.body": (
        "The same requests offered faster: each cell is one run per deployment on the same two GPUs, and says "
        "which meets TTFT p90 ≤ {ttft_ms:.0f} ms and TBT p99 ≤ {tbt_ms:.0f} ms at that load (requests/s to both "
        "GPUs together). 1P+1D crosses {link}. Below, the two figures against the load at {doc:,} document tokens.",
        "同一批请求，来得越来越快：每格是两种部署在同样两块 GPU 上各跑一次的结果，写的是在这个负载（两块 GPU "
        "合计的请求/秒）下谁满足首字延迟 p90 ≤ {ttft_ms:.0f} 毫秒且字间延迟 p99 ≤ {tbt_ms:.0f} 毫秒。"
        "1P+1D 走 {link}。下图是文档 {doc:,} token 时这两个指标随负载的变化。"),
    "chx.split.load.col": ("{qps:g} req/s", "{qps:g}/秒"),  # 中文: the unit (请求/秒) is in the text above; nine fit
    "chx.split.load.both": ("both", "都满足"),
    "chx.split.load.colocated": ("colocated", "同置"),
    "chx.split.load.disagg": ("1P+1D", "1P+1D"),
    "chx.split.load.neither": ("neither", "都不满足"),
    "chx.split.load.ttft": ("TTFT p90 (ms)", "首字延迟 p90（毫秒）"),
    "chx.split.load.tbt": ("TBT p99 (ms)", "字间延迟 p99（毫秒）"),
    "chx.split.load.axis": ("load (requests/s, both GPUs)", "负载（请求/秒，两块 GPU 合计）"),
    "chx.split.load.ms": ("ms", "毫秒"),
    "chx.split.load.slo": ("SLO", "SLO"),
    "chx.split.load.limits": ("At {doc:,} document tokens colocated meets the SLO up to {colocated} and 1P+1D up "
                              "to {disagg} of the loads run.",
                              "文档 {doc:,} token 时，在跑过的负载里同置最高到 {colocated} 仍满足 SLO，1P+1D 最高到 "
                              "{disagg}。"),
}
