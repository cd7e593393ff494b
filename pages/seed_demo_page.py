"""The article's demo: the toy's printed figures reproduced, re-measured, set against a real engine, and explained."""

from dataclasses import replace

import streamlit as st

from chunkviz.errors import InputError
from chunkviz.analysis.metrics import summarize
from chunkviz.lessons.seed_demo import TOY_BUDGET, TOY_PREFILL_WEIGHT, run_seed_demo
from ui.article import charts
from ui.i18n import t
from ui.page_common import base_scenario, metric_cards
from ui.plain import md_escape
from ui.runs import trace_or_error
from ui.url_state import number
from ui.plotly_config import chart_config, lecture_fonts

REAL_BUDGET_TOKENS = 512
MAX_TOY_REQUESTS = 400  # the sidebar's limit, so the realistic run below can use the same count


@st.cache_data(max_entries=32, show_spinner=False)
def toy_report(n: int, seed: int, chunk: int):
    return run_seed_demo(num_requests=n, seed=seed, chunk_tokens=chunk)


st.title(t("sd.title"))
st.markdown(t("sd.lesson"))
c = st.columns(3)
chunk = int(number(c[0], t("sd.chunk"), 1, 16, 8, 1, "sd_chunk"))
seed = int(number(c[1], t("sd.seed"), 0, 1_000_000, 7, 1, "sd_seed"))
n = int(number(c[2], t("sd.n"), 1, MAX_TOY_REQUESTS, 30, 1, "sd_n"))
try:
    report = toy_report(n, seed, chunk)
except InputError as exc:
    st.error(t("sd.error", error=md_escape(exc)))
    st.stop()

col_keys = ("mode", "steps", "mean", "p95_toy", "mean_arr", "p95_arr")
labels = {k: t(f"sd.col.{k}") for k in col_keys}
labels |= {"monolithic": t("sd.mode.monolithic"), "chunked": t("sd.mode.chunked", chunk=chunk)}
left, right = st.columns(2)
with left:
    st.subheader(t("sd.printed"))
    st.table(charts.printed_rows(report, labels), border="horizontal", hide_index=True)
    st.caption(t("sd.printed_note"))
with right:
    st.subheader(t("sd.corrected"))
    st.table(charts.corrected_rows(report, labels), border="horizontal", hide_index=True)
    st.caption(t("sd.corrected_note"))
chart_keys = ("request", "steps", "wait_mono", "wait_chunked", "abs_mono", "abs_chunked", "prompt")
chart_labels = {k: t(f"sd.lbl.{k}") for k in chart_keys} | {"title": t("sd.chart_title")}
st.plotly_chart(lecture_fonts(charts.ttft_figure(report, chart_labels)), width="stretch",
                key="sd_ttft", config=chart_config())

st.subheader(t("sd.real"))
base = base_scenario()
real = replace(base, workload_preset="seed-article", workload=replace(base.workload, num_requests=n, seed=seed))
st.caption(t("sd.real_note", n=n, seed=seed, qps=real.workload.qps, model=md_escape(real.model.model_id), gpu=md_escape(real.gpu.gpu_id)))
trace_mono = trace_or_error(real.with_policy("monolithic", None))
trace_chunked = trace_or_error(real.with_policy("chunked", REAL_BUDGET_TOKENS))
if trace_mono is not None and trace_chunked is not None:
    m_mono = summarize(trace_mono)
    st.markdown(f"**{t('sd.real_mono')}**")
    metric_cards(m_mono)
    st.markdown(f"**{t('sd.real_chunked')}**")
    metric_cards(summarize(trace_chunked), m_mono)

st.subheader(t("sd.why"))
st.markdown(t("sd.why_text", mono_rate=TOY_BUDGET / TOY_PREFILL_WEIGHT, budget=TOY_BUDGET, weight=TOY_PREFILL_WEIGHT,
              chunk=chunk))
st.markdown(f"**{t('sd.flaws')}**")
for code in report.flaw_codes:
    st.markdown(t("sd.flaw_item", title=t(f"sd.flaw_title.{code}"), text=t(f"sd.flaw.{code}")))
