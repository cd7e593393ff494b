"""Paged KV cache: step a teaching-size cache block by block: sharing, copy-on-write, eviction, preemption."""

import streamlit as st

from chunkviz.lessons.kv_view import next_step, rejections
from ui.kv import charts
from ui.i18n import t
from ui.kv.parts import JUMPS, derived, kv_controls, kv_metric_cards, kv_step_view
from ui.playback import playback
from ui.runs import trace_or_error
from ui.kv.text import chart_labels, rejection_markdown

st.title(t("kv.title"))
st.markdown(t("kv.lesson"))
scenario, other, caching = kv_controls()
trace, other_trace = trace_or_error(scenario), trace_or_error(other)
if trace is None or other_trace is None:
    st.stop()
if rejections(trace):
    st.warning(rejection_markdown(rejections(trace)))
if not trace.steps:
    st.info(t("kv.no_steps"))
    st.stop()

steps_of, series, m, m_other = derived(scenario, other, trace, other_trace)
st.subheader(t("kv.run_title"))
kv_metric_cards(trace, m, *((m, m_other) if caching else (m_other, m)))

jumps = {t(f"kv.jump.{name}"): (lambda i, s=steps_of[kind]: next_step(s, i)) for name, kind in JUMPS}
cursor = playback("kv_step", len(trace.steps), jumps)
labels = chart_labels()
kv_step_view(trace, cursor, labels)

st.subheader(t("kv.mem_title"))
st.plotly_chart(charts.memory_figure(series, cursor, labels), width="stretch", key="kv_memory")
st.caption(t("kv.mem_caption", max_len=series.max_model_len_tokens))
st.markdown(t("kv.fit", n=series.num_seqs, paged_prompts=series.num_fit_paged_prompts,
              paged_full=series.num_fit_paged_full, exact=series.num_fit_exact, max_len=series.num_fit_max_len))
