"""Texts of the trade-offs page (English, 中文) and the sentences it builds from a sweep."""

from __future__ import annotations

from chunkviz.analysis.sweep import ClassPoint, SweepPoint
from ui.i18n import t

TEXTS: dict[str, tuple[str, str]] = {
    "to.title": ("Trade-offs: choosing the token budget", "权衡：如何选择 token 预算"),
    "to.lesson": (
        "How big a portion should the prep cook cut before the stoves get their turn? Small portions (a small "
        "max_num_batched_tokens) keep every engine step short, so streaming chats never wait long for their next "
        "token, but each step carries a fixed overhead and a long prompt needs many steps; big portions keep the GPU "
        "busy and finish prompts sooner, yet everyone else waits longer between tokens. Below, every budget from 64 "
        "to 16384 tokens runs on the sidebar's workload: set your latency targets and the page names the budget that "
        "serves the most requests within them.",
        "备菜师傅每次切多大一份，才轮到灶台炒菜？切小份（较小的 max_num_batched_tokens）让每个引擎步骤都很短，正在"
        "输出的聊天不用久等下一个 token，但每一步都有固定开销，长提示词也要分很多步才能算完；切大份让 GPU 忙个不停、"
        "提示词更快算完，其他人却要在两个 token 之间等得更久。下面在侧边栏的负载上把 64 到 16384 的每个预算都跑一遍："
        "设好你的延迟目标，页面会指出让最多请求达标的预算。"),
    "to.budget": ("Current setting: max_num_batched_tokens", "当前设置：max_num_batched_tokens"),
    "to.loads": ("Load (× the sidebar's arrival rate)", "负载（侧边栏到达速率的倍数）"),
    "to.slo_ttft": ("TTFT target (ms)", "首字延迟目标（毫秒）"),
    "to.slo_tbt": ("TBT target (ms)", "字间延迟目标（毫秒）"),
    "to.slo_help": ("A request meets the targets when its first token comes within the TTFT target and every gap "
                    "between its later tokens stays within the TBT target.",
                    "一个请求达标，是指它的首个 token 在首字延迟目标内到达，并且之后每两个 token 之间的间隔都不超过"
                    "字间延迟目标。"),
    "to.latency_axis": ("Latency on the frontier", "帕累托前沿图的延迟指标"),
    "to.load.0.5": ("0.5×", "0.5×"),
    "to.load.1": ("1×", "1×"),
    "to.load.2": ("2×", "2×"),
    "to.load.4": ("4×", "4×"),
    "to.lat.tbt_p99_s": ("TBT p99", "字间延迟 p99"),
    "to.lat.ttft_p99_s": ("TTFT p99", "首字延迟 p99"),
    "to.lat.ttft_p50_s": ("TTFT p50", "首字延迟 p50"),
    "to.no_loads": ("Choose at least one load.", "请至少选择一个负载。"),
    "to.running": ("Simulating {done} of {total} settings…", "正在模拟第 {done} / {total} 个设置……"),
    "to.best": ("At {load} load, for TTFT ≤ {ttft} ms and TBT ≤ {tbt} ms the best setting is **{setting}**: "
                "{pct:.0f}% of requests meet both targets (goodput {goodput:.1f} requests/s) at {thr:,.0f} output "
                "tokens/s. (Ties go to the higher throughput, then to the smaller budget.)",
                "在 {load} 负载下，对首字延迟 ≤ {ttft} 毫秒、字间延迟 ≤ {tbt} 毫秒的目标，最好的设置是 **{setting}**："
                "{pct:.0f}% 的请求两项都达标（有效吞吐 {goodput:.1f} 请求/秒），输出吞吐 {thr:,.0f} token/秒。（并列时取吞吐更高者，再取预算更小者。）"),
    "to.setting_budget": ("max_num_batched_tokens = {budget}", "max_num_batched_tokens = {budget}"),
    "to.setting_mono": ("prefill-first, no chunking (vLLM V0)", "预填充优先、不分块（vLLM V0）"),
    "to.none": ("At {load} load, no setting meets TTFT ≤ {ttft} ms and TBT ≤ {tbt} ms: not a single request gets its "
                "first token and every later token that fast. Loosen the targets or lower the load.",
                "在 {load} 负载下，没有任何设置能满足首字延迟 ≤ {ttft} 毫秒、字间延迟 ≤ {tbt} 毫秒：没有一个请求的首个 "
                "token 和之后每个 token 都来得这么快。请放宽目标或降低负载。"),
    "to.current": ("Current setting ({budget} tokens, {load} load); deltas against monolithic prefill.",
                   "当前设置（{budget} 个 token，{load} 负载）；差值相对于整体预填充。"),
    "to.within_slo": ("Within both targets", "两项都达标"),
    "to.pp": ("{v:+.0f} pp", "{v:+.0f} 个百分点"),
    "to.against_budget": ("Latency and throughput against the budget", "延迟与吞吐随预算的变化"),
    "to.budget_note": (
        "At light load the arrivals, not the GPU, set the pace, so throughput flattens once prompts keep up; add 2× "
        "or 4× load to see large budgets pay off. Very small budgets hurt TTFT: the running decodes take most of "
        "each step's tokens and prompts trickle in. Monolithic prefill can look fine on TBT p99 under heavy load: "
        "its stalls are few but can last a second, so they hide above the 99th percentile of all gaps, while "
        "“within targets”, which checks every gap of every request, catches them.",
        "轻载时决定节奏的是请求到达，而不是 GPU，所以一旦提示词算得过来，吞吐就不再上升；加上 2× 或 4× 负载才能看到大"
        "预算的好处。预算太小会拖累首字延迟：正在解码的请求占去每一步的大部分 token，提示词只能一点点挤进来。重载时，"
        "整体预填充的字间延迟 p99 可能看起来不错：它的卡顿次数少，但一次可长达一秒，藏在所有间隔的第 99 百分位之上；"
        "而“达标比例”检查每个请求的每个间隔，能把它们揪出来。"),
    "to.frontier": ("The latency–throughput frontier", "延迟–吞吐帕累托前沿"),
    "to.frontier_note": (
        "Each dot is one budget; the line joins the settings that nothing beats on both axes (lower latency and more "
        "throughput). Anything off the line is a setting you would never pick.",
        "每个点是一个预算；折线连起那些在两个维度上都无人能胜过的设置（延迟更低且吞吐更高）。不在线上的设置，"
        "你永远不会选。"),
    "to.classes": ("One budget per kind of customer", "按客分策：每类请求一个预算"),
    "to.classes_lesson": (
        "A restaurant serves hurried business lunches and relaxed banquets, and one rule for both serves neither "
        "well. A chat user wants the first token fast and then a steady stream: budgets that are too big make every "
        "step long, budgets that are too small leave new prompts queuing behind the decodes. An offline batch job "
        "only wants its documents done: big budgets finish them in fewer, fuller steps. One engine has one "
        "max_num_batched_tokens, so giving each class its own budget means running separate engines (or instances) "
        "for them.",
        "餐厅既有赶时间的商务客，也有不着急的聚餐客，一套规矩对两边都不好。聊天用户要首个 token 来得快，之后稳定地"
        "流出：预算太大，每一步都很长；预算太小，新提示词只能排在解码后面。离线批量任务只在乎文档早点算完：大预算用"
        "更少、更满的步骤完成它们。一个引擎只有一个 max_num_batched_tokens，所以要给每类请求各自的预算，就得为它们"
        "分别运行引擎（或实例）。"),
    "to.class_chat": ("Interactive chat at {load} load: **{budget} tokens** — {pct:.0f}% of chats meet the targets, "
                      "with the smoothest stream among those (worst token gap p99 {gap:.0f} ms).",
                      "交互式聊天（{load} 负载）：**{budget} 个 token**——{pct:.0f}% 的聊天达标，并且在达标程度相同的"
                      "预算里输出最平稳（最长 token 间隔的 p99 为 {gap:.0f} 毫秒）。"),
    "to.class_chat_none": ("Interactive chat at {load} load: no budget gets any chat within the targets.",
                           "交互式聊天（{load} 负载）：没有哪个预算能让任何聊天达标。"),
    "to.class_batch": ("Offline batch at {load} load: **{budget} tokens** — the batch requests move {thr:,.0f} "
                       "tokens/s from their first arrival to their last finish, the most of any budget.",
                       "离线批量（{load} 负载）：**{budget} 个 token**——批量请求从第一个到达到最后一个完成，每秒处理 "
                       "{thr:,.0f} 个 token，是所有预算中最多的。"),
    "to.class_batch_none": ("Offline batch at {load} load: no batch request finished.",
                            "离线批量（{load} 负载）：没有批量请求完成。"),
    "to.class_added": (
        "This workload marks no request as batch, so 30% of its requests were labelled batch at random (same lengths "
        "as the chats; the schedule does not change). The contrast is clearest with “Long prompts among chats”.",
        "这个负载没有标记批量请求，所以随机把 30% 的请求标为批量（长度与聊天相同，调度不变）。在“聊天中夹着长提示词”"
        "场景下对比最明显。"),
    "to.class_missing": ("This workload has no priority classes to compare; choose “Long prompts among chats” or a "
                         "synthetic workload in the sidebar.",
                         "这个负载没有可以比较的优先级类别；请在侧边栏选择“聊天中夹着长提示词”或合成负载。"),
    "to.table": ("All sweep points", "所有扫描点"),
    "to.col.load": ("load", "负载"),
    "to.col.budget": ("budget (tokens)", "预算（token）"),
    "to.col.goodput": ("goodput (req/s)", "有效吞吐（请求/秒）"),
    "to.col.within": ("within targets (%)", "达标比例（%）"),
    "to.col.preemptions": ("preemptions", "抢占次数"),
    "to.col.rejected": ("rejected", "被拒绝"),
    "to.col.steps": ("engine steps", "引擎步数"),
    "to.lbl.mono": ("prefill-first (vLLM V0)", "预填充优先（vLLM V0）"),
    "to.lbl.mono_short": ("monolithic", "整体预填充"),
    "to.lbl.current": ("current setting", "当前设置"),
    "to.lbl.frontier": ("frontier", "帕累托前沿"),
    "to.lbl.budget_tokens": ("max_num_batched_tokens (log scale)", "max_num_batched_tokens（对数刻度）"),
    "to.lbl.ms": ("ms", "毫秒"),
    "to.lbl.ms_log": ("ms, log scale", "毫秒，对数刻度"),
    "to.lbl.tokens": ("tokens", "个 token"),
    "to.lbl.tok_s": ("output tokens/s", "输出 token/秒"),
    "to.lbl.goodput": ("goodput (requests/s)", "有效吞吐（请求/秒）"),
    "to.lbl.within": ("within targets (%)", "达标比例（%）"),
    "to.lbl.chat_within": ("Interactive chat: within targets (%)", "交互式聊天：达标比例（%）"),
    "to.lbl.chat_gap": ("Interactive chat: worst token gap p99 (ms)", "交互式聊天：最长 token 间隔 p99（毫秒）"),
    "to.lbl.batch_thr": ("Offline batch: throughput (tokens/s)", "离线批量：吞吐（token/秒）"),
    "to.lbl.best": ("best for the class", "该类最佳"),
}


def load_label(load: float) -> str:
    return f"{load:g}×"


def chart_labels() -> dict[str, str]:
    keys = ("mono", "mono_short", "current", "frontier", "budget_tokens", "ms", "ms_log", "tokens", "tok_s", "goodput", "within",
            "chat_within", "chat_gap", "batch_thr", "best")
    labels = {k: t(f"to.lbl.{k}") for k in keys}
    for k in ("ttft_p50", "ttft_p99", "tbt_p99", "throughput"):
        labels[k] = t(f"metric.{k}")
        labels[f"{k}_s"] = t(f"metric.{k}")
    return labels


def best_sentence(best: SweepPoint | None, load: float, slo_ttft_ms: int, slo_tbt_ms: int) -> str:
    """The best setting for the targets in one sentence, or why there is none."""
    if best is None:
        return t("to.none", load=load_label(load), ttft=slo_ttft_ms, tbt=slo_tbt_ms)
    setting = (t("to.setting_mono") if best.budget_tokens is None
               else t("to.setting_budget", budget=best.budget_tokens))
    return t("to.best", load=load_label(load), ttft=slo_ttft_ms, tbt=slo_tbt_ms, setting=setting,
             pct=100 * (best.slo_attainment or 0.0), goodput=best.goodput_requests_per_s or 0.0,
             thr=best.throughput_output_tokens_per_s)


def class_sentences(chat: ClassPoint | None, batch: ClassPoint | None, load: float) -> tuple[str, str]:
    name = load_label(load)
    chat_text = (t("to.class_chat_none", load=name) if chat is None else
                 t("to.class_chat", load=name, budget=chat.budget_tokens, pct=100 * (chat.slo_attainment or 0.0),
                   gap=(chat.worst_tbt_p99_s or 0.0) * 1e3))
    batch_text = (t("to.class_batch_none", load=name) if batch is None else
                  t("to.class_batch", load=name, budget=batch.budget_tokens, thr=batch.throughput_tokens_per_s))
    return chat_text, batch_text


def table_rows(points: tuple[SweepPoint, ...]) -> list[dict[str, object]]:
    """One row per sweep point, latencies in ms, with localized column names."""
    def ms(v: float | None) -> float | None:
        return None if v is None else round(v * 1e3, 1)

    return [{t("to.col.load"): load_label(p.load_multiplier),
             t("to.col.budget"): t("to.lbl.mono") if p.budget_tokens is None else str(p.budget_tokens),
             t("metric.ttft_p50"): ms(p.ttft_p50_s), t("metric.ttft_p99"): ms(p.ttft_p99_s),
             t("metric.tbt_p50"): ms(p.tbt_p50_s), t("metric.tbt_p99"): ms(p.tbt_p99_s),
             t("metric.throughput"): round(p.throughput_output_tokens_per_s),
             t("to.col.goodput"): None if p.goodput_requests_per_s is None else round(p.goodput_requests_per_s, 2),
             t("to.col.within"): None if p.slo_attainment is None else round(100 * p.slo_attainment, 1),
             t("to.col.preemptions"): p.num_preemptions, t("to.col.rejected"): p.num_rejected,
             t("to.col.steps"): p.num_steps} for p in points]


def current_cards(cur: SweepPoint, mono: SweepPoint | None) -> list[tuple[str, str, str | None, str]]:
    """(label, value, delta against monolithic, delta colour) for the current setting's cards."""
    def ms(v: float | None) -> str:
        return "–" if v is None else t("unit.ms", v=v * 1e3)

    def d_ms(a: float | None, b: float | None) -> str | None:
        return None if a is None or b is None else f"{(a - b) * 1e3:+.1f} ms"

    pct = None if cur.slo_attainment is None else 100 * cur.slo_attainment
    base_pct = None if mono is None or mono.slo_attainment is None else 100 * mono.slo_attainment
    return [
        (t("metric.ttft_p99"), ms(cur.ttft_p99_s), d_ms(cur.ttft_p99_s, mono and mono.ttft_p99_s), "inverse"),
        (t("metric.tbt_p99"), ms(cur.tbt_p99_s), d_ms(cur.tbt_p99_s, mono and mono.tbt_p99_s), "inverse"),
        (t("metric.throughput"), f"{cur.throughput_output_tokens_per_s:,.0f}",
         None if mono is None else f"{cur.throughput_output_tokens_per_s - mono.throughput_output_tokens_per_s:+,.0f}",
         "normal"),
        (t("to.within_slo"), "–" if pct is None else f"{pct:.0f}%",
         None if pct is None or base_pct is None or round(pct - base_pct) == 0 else t("to.pp", v=pct - base_pct),
         "normal"),
    ]
