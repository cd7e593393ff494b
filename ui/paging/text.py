"""Texts of the page-replacement page (English, 中文), the label dict its charts take, and the anomaly sentence
(the stepping stage's texts are in text_stage.py)."""

from __future__ import annotations

from chunkviz.lessons.paging_bridge import AlgorithmCurves
from ui.i18n import t

TEXTS: dict[str, tuple[str, str]] = {
    "pr.title": ("Page replacement: what goes back to the storeroom?", "页面置换：哪一盒料该送回储藏间？"),
    "pr.lesson": (
        "The prep counter holds only a few boxes of ingredients; everything else waits in the storeroom. When the "
        "cook needs a box that is not on the counter (a page fault), some box has to go back first, and the rule "
        "that picks it decides how many trips to the storeroom the evening takes. Step through a reference string, "
        "compare FIFO, LRU, OPT, Clock and LFU, and see the Belady preset make FIFO fault more with four frames "
        "than with three.",
        "备菜台上只摆得下几盒料，其余的都放在储藏间。厨师要用的料盒不在台上时（缺页），得先把台上某一盒送回去腾出位置；"
        "挑哪一盒的规则，决定了这一晚要往储藏间跑多少趟。下面沿着引用串逐个引用走一遍，比较 FIFO、LRU、OPT、Clock 和 LFU；"
        "选 Belady 预设，还能看到 FIFO 有 4 个页框时反而比 3 个页框缺页更多。"),
    "pr.preset": ("Reference string", "引用串"),
    "pr.preset.belady": ("Belady's anomaly (12 refs)", "Belady 异常（12 个引用）"),
    "pr.preset.textbook": ("Textbook classic (20 refs)", "教科书经典（20 个引用）"),
    "pr.preset.random": ("Random (seeded)", "随机（按种子）"),
    "pr.preset.custom": ("Your own (edit the text)", "自定义（编辑文本）"),
    "pr.refs": ("Pages referenced, in order", "按顺序引用的页面"),
    "pr.refs_help": ("Page numbers separated by commas or spaces, e.g. 1,2,3,4,1,2 (at most 500).",
                     "用逗号或空格分隔的页号，例如 1,2,3,4,1,2（最多 500 个）。"),
    "pr.seed": ("Seed (random preset)", "种子（随机预设）"),
    "pr.alg": ("Algorithm", "算法"),
    "pr.alg.fifo": ("FIFO: first in, first out", "FIFO：先进先出"),
    "pr.alg.lru": ("LRU: least recently used", "LRU：最近最少使用"),
    "pr.alg.opt": ("OPT: Belady's optimal (sees the future)", "OPT：Belady 最优（能预知未来）"),
    "pr.alg.clock": ("Clock: second chance", "Clock：二次机会"),
    "pr.alg.lfu": ("LFU: least frequently used", "LFU：最不经常使用"),
    "pr.frames": ("Frames (room in memory)", "页框数（内存容量）"),
    "pr.clock_bit": ("Clock: R bit of a new page", "Clock：新页面的引用位"),
    "pr.clock_bit_help": ("With R=1 (the textbook rule) Clock acts like FIFO until some page is hit again; with R=0 a "
                          "newly loaded page gets no second chance until it is used.",
                          "R=1（教科书约定）时，在有页面再次命中之前，Clock 的行为与 FIFO 相同；R=0 时，新装入的页面在被"
                          "使用之前没有第二次机会。"),
    "pr.clock_bit.1": ("R=1 (textbook)", "R=1（教科书约定）"),
    "pr.clock_bit.0": ("R=0", "R=0"),
    "pr.lfu_tie": ("LFU: among equal counts evict", "LFU：次数相同时淘汰"),
    "pr.lfu_tie.fifo": ("the page loaded first", "最早装入的页面"),
    "pr.lfu_tie.lru": ("the page used least recently", "最久未使用的页面"),
    "pr.bad_refs": ("Cannot read this reference string: {error}. Still showing: {refs}",
                    "无法解析这个引用串：{error}。仍在显示：{refs}"),
    "pr.compare_head": ("Same string, all five algorithms", "同一个引用串，五种算法"),
    "pr.compare_note": (
        "OPT is the floor no real algorithm can beat, because it needs the future. LRU and OPT never fault more "
        "with more frames (they are stack algorithms); FIFO and Clock can.",
        "OPT 是任何实际算法都无法超越的下限，因为它需要知道未来。LRU 和 OPT 在页框变多时缺页绝不会增加（它们是栈算法）；"
        "FIFO 和 Clock 却可能增加。"),
    "pr.anomaly_found": ("Belady's anomaly here: {alg} makes {fa} faults with {a} frames but {fb} with {b}.",
                         "这里出现了 Belady 异常：{alg} 在 {a} 个页框时缺页 {fa} 次，{b} 个页框时反而缺页 {fb} 次。"),
    "pr.anomaly_none": ("No algorithm shows Belady's anomaly on this string; try the Belady preset with FIFO.",
                        "在这个引用串上没有算法出现 Belady 异常；试试 Belady 预设配 FIFO。"),
    "pr.kv_head": ("The same choice inside an LLM server", "大模型推理服务里的同一个选择"),
    "pr.kv_lesson": (
        "An LLM server keeps the KV cache of earlier prompts in GPU memory, in fixed-size blocks, so that a new "
        "prompt starting with the same tokens skips that part of its prefill. When memory runs short the engine "
        "must drop cached blocks, and it faces exactly the question above: vLLM evicts the least recently used "
        "free blocks, and SGLang's radix cache evicts least recently used leaves by default. Here {n} requests of "
        "a workload are cut into blocks and replayed through FIFO, LRU and LFU caches of growing size; a hit is a "
        "block of prompt that is not computed again.",
        "大模型推理服务把之前提示词的 KV 缓存按固定大小的块存在显存里，新的提示词只要开头的 token 相同，就能跳过这部分"
        "预填充。显存不够时，引擎必须丢掉一些缓存块，面对的正是上面的问题：vLLM 淘汰最近最少使用的空闲块，SGLang 的"
        "基数树缓存默认也淘汰最近最少使用的叶子节点。这里把某个负载的 {n} 个请求切成块，依次送进容量不断增大的 FIFO、"
        "LRU、LFU 缓存；命中的块就是不必重新计算的那部分提示词。"),
    "pr.kv_workload": ("Workload", "负载"),
    "pr.kv_block": ("Block size (tokens)", "块大小（token）"),
    "pr.kv_note.multi-turn": (
        "Each turn repeats the whole conversation so far, so recency is what counts: LRU keeps the live "
        "conversations, while LFU's counts hold on to blocks of old ones and FIFO evicts blocks that are still "
        "in use.",
        "每一轮都会重复此前的整段对话，所以关键在于“最近”：LRU 留住正在进行的对话，LFU 的计数却让旧对话的块赖着不走，"
        "FIFO 则会把仍在使用的块赶出去。"),
    "pr.kv_note.shared-system-prompt": (
        "Every request starts with the same system prompt: LRU and LFU keep those hot blocks even in a tiny cache, "
        "while FIFO lets them age out and computes them again.",
        "每个请求都以同一段系统提示词开头：即使缓存很小，LRU 和 LFU 也能留住这些热门块，FIFO 却让它们按时间“过期”，"
        "只好重新计算。"),
    "pr.lbl.kind_loaded": ("loaded on a miss", "缺页时装入"),
    "pr.lbl.kind_hit_page": ("the page hit", "被命中的页面"),
    "pr.lbl.kind_resident": ("already in memory", "已在内存中"),
    "pr.lbl.kind_miss": ("miss", "缺页"),
    "pr.lbl.kind_victim": ("evicted page", "被淘汰的页面"),
    "pr.lbl.faults": ("page faults", "缺页次数"),
    "pr.lbl.bar_title": ("Faults with {n} frames", "{n} 个页框时的缺页次数"),
    "pr.lbl.curve_title": ("Faults as memory grows", "内存变大时的缺页次数"),
    "pr.lbl.frames_axis": ("frames", "页框数"),
    "pr.lbl.anomaly": ("{alg}: {a}→{b} frames, {fa}→{fb} faults", "{alg}：{a}→{b} 个页框，缺页 {fa}→{fb}"),
    "pr.lbl.ceiling": ("never evict (ceiling)", "从不淘汰（上限）"),
    "pr.lbl.capacity_axis": ("cache capacity (blocks of {n} tokens, log scale)", "缓存容量（每块 {n} 个 token，对数刻度）"),
    "pr.lbl.hit_rate_axis": ("prompt blocks reused (%)", "复用的提示词块（%）"),
    "pr.lbl.alg_fifo": ("FIFO", "FIFO"),
    "pr.lbl.alg_lru": ("LRU", "LRU"),
    "pr.lbl.alg_opt": ("OPT", "OPT"),
    "pr.lbl.alg_clock": ("Clock", "Clock"),
    "pr.lbl.alg_lfu": ("LFU", "LFU"),
}

_LABELS = ("faults", "bar_title", "curve_title", "frames_axis", "anomaly", "ceiling", "capacity_axis", "hit_rate_axis",
           "alg_fifo", "alg_lru", "alg_opt", "alg_clock", "alg_lfu")


def chart_labels() -> dict[str, str]:
    """Chart labels in the current language; templates with fields ({n}, {alg}) are left for the chart to fill."""
    return {k: t(f"pr.lbl.{k}") for k in _LABELS}


def anomaly_markdown(curves: AlgorithmCurves) -> str:
    """One sentence per algorithm whose faults rise with one more frame, or a hint where to find one."""
    curve_of = dict(curves.alg_to_curve)
    lines = []
    for alg, (a, b) in curves.alg_to_anomaly:
        points = dict(curve_of[alg])
        lines.append(t("pr.anomaly_found", alg=t(f"pr.lbl.alg_{alg}"), a=a, b=b, fa=points[a], fb=points[b]))
    return "\n\n".join(lines) if lines else t("pr.anomaly_none")
