"""Paged KV cache: step a teaching-size cache block by block: sharing, copy-on-write, eviction, preemption."""

import streamlit as st

from chunkviz.lessons.kv_view import rejections
from ui.i18n import current_lang, t
from ui.kv import charts
from ui.kv.export import html_for, offline_caption
from ui.kv.parts import derived, kv_controls, kv_metric_cards
from ui.kv.stage import render_stage
from ui.kv.text import chart_labels, rejection_markdown
from ui.components.offline.download import download_view
from ui.runs import trace_or_error
from ui.plotly_config import chart_config, lecture_fonts

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

# Right under the controls, so a projector shows the grid and its caption together: the steps are stepped,
# scrubbed and played in the browser, with no rerun per step (ui/components/kv_stage/kv_stage.js).
mounted = render_stage(trace, scenario.cache.eviction)
caption = offline_caption(scenario, current_lang())
download_view(lambda: html_for(mounted, current_lang(), caption), f"chunkviz-kv-{scenario.workload_preset}",
              "kv_dl_view")

series, m, m_other = derived(scenario, other, trace, other_trace)
st.subheader(t("kv.run_title"))
kv_metric_cards(trace, m, *((m, m_other) if caching else (m_other, m)))

labels = chart_labels()
st.subheader(t("kv.mem_title"))
st.plotly_chart(lecture_fonts(charts.memory_figure(series, labels)), width="stretch",
                key="kv_memory", config=chart_config())
st.caption(t("kv.mem_caption", max_len=series.max_model_len_tokens))
st.markdown(t("kv.fit", n=series.num_seqs, paged_prompts=series.num_fit_paged_prompts,
              paged_full=series.num_fit_paged_full, exact=series.num_fit_exact, max_len=series.num_fit_max_len))
