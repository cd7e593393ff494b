"""Chapter-specific blocks drawn from the lessons core: batching table and work per step, utilisation per step,
the budget sweep, the knobs table with effect runs, and the misconceptions. Core results are cached per process.

Invariant: every number shown comes from a chunkviz.lessons function; this module only formats and draws.
"""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from chunkviz.lessons import batching, budgets, knobs, misconceptions, priority, sharing, utilisation
from chunkviz.lessons.attention_math import LECTURE_EXAMPLE
from chunkviz.lessons.batching import mode_scenario
from chunkviz.lessons.chapters import LECTURE
from chunkviz.simulator.trace import Trace
from ui.chapters.charts import budget_figure, utilisation_figure, work_per_step_figure
from ui.chapters.common import ROLES, chapter_chart, engine_label, is_present, sentences
from ui.chapters.text_knobs import default_key
from ui.fmt import si
from ui.i18n import current_lang, t
from ui.runs import CACHE_TTL_S


@st.cache_resource(max_entries=1, ttl=CACHE_TTL_S, show_spinner=False)
def _batching() -> tuple[batching.ModeResult, ...]:
    return batching.compare_batching()


@st.cache_resource(max_entries=1, ttl=CACHE_TTL_S, show_spinner=False)
def _sweep() -> tuple[budgets.BudgetPoint, ...]:
    return budgets.sweep_budgets()


@st.cache_resource(max_entries=1, ttl=CACHE_TTL_S, show_spinner=False)
def _priority() -> tuple[priority.PriorityRow, ...]:
    return priority.priority_rows()


@st.cache_resource(max_entries=16, ttl=CACHE_TTL_S, show_spinner=False)  # one per knob of the chapter
def _effect(knob: knobs.Knob) -> tuple[knobs.RunFigures, ...]:
    return knobs.knob_effect(knob)


@st.cache_resource(max_entries=16, ttl=CACHE_TTL_S, show_spinner=False)  # one per case of the chapter
def _off(case: str) -> tuple[knobs.RunFigures, ...]:
    return knobs.chunking_off_case(case)


@st.cache_resource(max_entries=1, ttl=CACHE_TTL_S, show_spinner=False)
def claims() -> tuple[misconceptions.Claim, ...]:
    return misconceptions.check_claims()


@st.cache_resource(max_entries=1, ttl=CACHE_TTL_S, show_spinner=False)
def sharing_facts() -> sharing.SharingFigures:
    return sharing.sharing_figures()


def batching_lesson() -> None:
    st.subheader(t("chx.batch.title"))
    results = _batching()
    cols = ("mode", "ttft_p50", "ttft_p99", "tbt_p99", "tbt_max", "throughput", "steps")
    rows = [(t(f"chx.batch.mode.{r.mode}"), r.ttft_p50_s * 1e3, r.ttft_p99_s * 1e3, r.tbt_p99_s * 1e3,
             r.tbt_max_s * 1e3, r.throughput_tokens_per_s, r.num_steps) for r in results]
    st.dataframe({t(f"chx.batch.col.{c}"): [row[i] for row in rows] for i, c in enumerate(cols)},
                 hide_index=True, column_config={t(f"chx.batch.col.{c}"): st.column_config.NumberColumn(format="%.1f")
                                                 for c in cols[1:6]})
    series = {t(f"chx.batch.mode.{r.mode}"): r.step_tokens for r in results}
    chapter_chart("c5_work", work_per_step_figure(series, t("chx.batch.work"), t("lbl.tokens")))


def utilisation_lesson(traces: dict[str, Trace]) -> None:
    st.subheader(t("chx.util.title"))
    st.markdown(t("chx.util.body"))
    panels, lines = {}, []
    for policy, trace in traces.items():
        config = mode_scenario(LECTURE, policy).sim_config()
        utils = utilisation.step_utilisation(trace, config)
        panels[engine_label(policy)] = utils
        kinds = utilisation.summarize_kinds(utils)
        pct = {k: (f"{kinds[k].mean_mfu:.1%}" if k in kinds else t("chx.util.none")) for k in utilisation.STEP_KINDS}
        lines.append(t("chx.util.summary", engine=engine_label(policy), decode=pct["decode_only"],
                       mixed=pct["mixed"], prefill=pct["prefill_only"]))
    labels = {k: t(f"chx.util.{k}") for k in ("compute", "memory", "other", "mfu", "step_ms")}
    chapter_chart("c5_util", utilisation_figure(panels, labels))
    for line in lines:
        st.caption(line)


# Lecture mode draws the sweep in chapter 6's stage above the answered question: 250 px keeps both inside 720 px.
SLIDE_SWEEP_PX = 250


def budget_lesson() -> None:
    slo = budgets.ClassSlo()
    labels = {"chat": t("chx.budget.panel", what=t("chx.budget.chat"), slo=slo.chat_tbt_p99_s * 1e3),
              "doc": t("chx.budget.panel", what=t("chx.budget.doc"), slo=slo.doc_ttft_p50_s * 1e3),
              "axis": t("chx.budget.axis")}
    height = SLIDE_SWEEP_PX if is_present() else 300
    chapter_chart("c6_budgets", budget_figure(_sweep(), slo, labels, height))


def priority_lesson() -> None:
    """Chapter 6, after the question: what vLLM's --scheduling-policy priority buys the chats, run by run."""
    st.subheader(t("chx.prio.title"))
    st.markdown(t("chx.prio.body"))
    rows = _priority()
    cols = {t("chx.prio.col.qps"): [r.qps for r in rows],
            t("chx.prio.col.chat_fcfs"): [r.chat_ttft_p99_fcfs_s * 1e3 for r in rows],
            t("chx.prio.col.chat_prio"): [r.chat_ttft_p99_priority_s * 1e3 for r in rows],
            t("chx.prio.col.doc_fcfs"): [r.doc_ttft_p50_fcfs_s * 1e3 for r in rows],
            t("chx.prio.col.doc_prio"): [r.doc_ttft_p50_priority_s * 1e3 for r in rows]}
    st.dataframe(cols, hide_index=True, key="c6_priority", column_config={
        k: st.column_config.NumberColumn(format="%.0f") for k in cols})
    st.caption(t("chx.prio.units"))
    best = priority.largest_gain(rows)
    st.markdown(t("chx.prio.result", qps=f"{best.qps:g}", chat_fcfs_ms=best.chat_ttft_p99_fcfs_s * 1e3,
                  chat_prio_ms=best.chat_ttft_p99_priority_s * 1e3, doc_fcfs_ms=best.doc_ttft_p50_fcfs_s * 1e3,
                  doc_prio_ms=best.doc_ttft_p50_priority_s * 1e3))
    st.caption(t("chx.prio.command", command=priority.cli_command(best.qps, "priority")))


def _figures_table(rows: tuple[knobs.RunFigures, ...], first_col: str) -> None:
    cols = {first_col: [r.label for r in rows], t("chx.knob.col.ttft"): [r.ttft_p50_ms for r in rows],
            t("chx.knob.col.tbt"): [r.tbt_p99_ms for r in rows], t("chx.knob.col.gap"): [r.tbt_max_ms for r in rows],
            t("chx.knob.col.thr"): [r.throughput_tokens_per_s for r in rows],
            t("chx.knob.col.preempt"): [r.num_preemptions for r in rows],
            t("chx.knob.col.hits"): [r.prefix_hit_rate for r in rows]}
    st.dataframe(cols, hide_index=True, column_config={k: st.column_config.NumberColumn(format="%.1f")
                                                       for k in list(cols)[1:5]})


# The knobs table wraps inside 1280 px: fixed layout, and long names, defaults and sources break inside a cell
# instead of pushing the page sideways (chapter 8, then 7, overflowed to x = 1505 before).
_KNOBS_CSS = """<style>
.st-key-c7_knobs table {table-layout: fixed; width: 100%}
.st-key-c7_knobs td, .st-key-c7_knobs th {overflow-wrap: anywhere; word-break: break-word; white-space: normal}
.st-key-c7_knobs code {white-space: normal; overflow-wrap: anywhere; font-size: 16px}
</style>"""


def knobs_table() -> None:
    """The knobs of one engine at a time (vLLM, SGLang, TensorRT-LLM): name, default, source, simulator setting."""
    engines = list(dict.fromkeys(k.engine for k in knobs.KNOBS))
    st.html(_KNOBS_CSS)
    with st.container(key="c7_knobs"):
        engine = st.segmented_control(t("chx.knob.engine"), engines, default=engines[0], key="c7_engine",
                                      format_func=lambda e: t(f"chx.knob.engine.{e}")) or engines[0]
        head = [t(f"chx.knob.{c}") for c in ("name", "default", "source", "setting")]
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for k in knobs.KNOBS:
            if k.engine == engine:
                setting = f"`{k.setting}`" if k.setting else f"*{t('chx.knob.not_modelled')}*"
                lines.append(f"| `{k.name}` | {t(default_key(k))} | `{k.source}` | {setting} |")
        st.markdown("\n".join(lines))


def knob_runs_caption(knob: knobs.Knob) -> str:
    """What the knob's rows run, read from the scenarios they run (knobs.knob_scenario): the engine's simulator
    policy or policies, the preset's requests, the setting each row changes."""
    scenarios = [knobs.knob_scenario(knob, v) for v in knob.try_values]
    comma = "、" if current_lang() == "zh" else ", "
    policies = comma.join(f"`{p}`" for p in dict.fromkeys(s.scheduler.policy for s in scenarios))
    return t("chx.knob.runs", engine=t(f"chx.knob.engine.{knob.engine}"), policy=policies,
             requests=len(scenarios[0].requests()), setting=knob.setting)


def knobs_effects() -> None:
    """What each modelled knob does in a run, and when to turn chunking off: results, so shown after the answer."""
    modelled = [k for k in knobs.KNOBS if k.setting != knobs.NOT_MODELLED]
    pick = st.selectbox(t("chx.knob.pick"), range(len(modelled)), key="c7_knob",
                        format_func=lambda i: f"{t('chx.knob.engine.' + modelled[i].engine)} · {modelled[i].name}")
    rows = tuple(replace(r, label=engine_label(r.label)) if r.label in ROLES else r for r in _effect(modelled[pick]))
    _figures_table(rows, t("chx.knob.value"))
    st.caption(knob_runs_caption(modelled[pick]))
    st.subheader(t("chx.off.title"))
    for case in knobs.CHUNKING_OFF_CASES:
        st.markdown(t(f"chx.off.{case}"))
        _figures_table(_off(case), t("chx.off.run"))


def claim_fields(c: misconceptions.Claim) -> dict[str, object]:
    """A claim's figures as its sentence prints them: the attention example's FLOPs as chapter 3 and /attention
    write them (ui.fmt.si), with the example's size."""
    out: dict[str, object] = dict(c.figures)
    if c.claim_id == "adds_flops":
        out.update(chunked_flops=si(out["chunked_flops"]), one_pass_flops=si(out["one_pass_flops"]),
                   n=LECTURE_EXAMPLE["num_tokens"], d=LECTURE_EXAMPLE["head_dim"],
                   chunk=LECTURE_EXAMPLE["chunk_tokens"])
    return out


def misconceptions_lesson() -> None:
    """The claims one at a time: each asks true or false first, then shows the run's verdict and figures; the next
    claim appears once this one is answered (no verdict is on screen before the learner commits)."""
    st.subheader(t("chx.myth.title"))
    options = ("true", "false")
    for c in claims():
        with st.container(border=True, key=f"c8_claim_box_{c.claim_id}"):
            st.markdown(f"**{t(f'chx.myth.{c.claim_id}')}**")
            said = st.radio(t(f"chx.myth.{c.claim_id}"), options, index=None, horizontal=True,
                            key=f"c8_claim_{c.claim_id}", label_visibility="collapsed",
                            format_func=lambda o: t(f"chx.myth.say_{o}"))
            if said is None:
                return
            verdict = t("chx.myth.verdict_true" if c.holds else "chx.myth.verdict_false")
            why = t(f"chx.myth.{c.claim_id}.why", **claim_fields(c))
            right = (said == "true") == c.holds
            (st.success if right else st.error)(sentences(t("chx.pred.right") if right else t("chx.myth.wrong"),
                                                          f"{verdict} — {why}"))
    st.subheader(t("chx.interview.title"))
    for i in range(1, 7):
        with st.expander(t(f"chx.iq.{i}")):
            st.markdown(t(f"chx.ia.{i}"))
