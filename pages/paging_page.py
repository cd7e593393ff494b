"""Page replacement: step a reference string through FIFO/LRU/OPT/Clock/LFU, compare them, then see the same
policies choose which KV-cache blocks an LLM server evicts."""

import streamlit as st

from chunkviz.lessons.paging_bridge import KV_BLOCK_TOKENS, KV_WORKLOADS
from ui.paging import charts
from ui.i18n import current_lang, labeler, t
from ui.components.offline.download import download_view
from ui.paging.export import caption, html_for
from ui.paging.parts import compare, kv_curves, load_belady, reference_input, rule_controls
from ui.paging.stage import render as render_stage
from ui.paging.text import anomaly_markdown, chart_labels
from ui.url_state import choice, stepped_choice
from ui.plotly_config import chart_config, lecture_fonts

st.title(t("pr.title"))
st.markdown(t("pr.lesson"))
refs = reference_input()
alg, frames, bit, tie = rule_controls()
mounted = render_stage(refs, frames, alg, bit, tie, load_belady)  # steps in the browser; the cursor is ?pr_step
download_view(lambda: html_for(mounted, current_lang(), caption(refs, frames, alg, current_lang())),
              f"chunkviz-replacement-{alg}-{frames}-frames", "pr_dl_view")
labels = chart_labels()

st.subheader(t("pr.compare_head"))
curves = compare(refs, frames, bit, tie)
c = st.columns(2)
c[0].plotly_chart(lecture_fonts(charts.faults_bar_figure(curves, alg, labels)), width="stretch",
                  key="pr_bar", config=chart_config())
c[1].plotly_chart(lecture_fonts(charts.faults_curve_figure(curves, alg, labels)), width="stretch",
                  key="pr_curve", config=chart_config())
st.markdown(anomaly_markdown(curves))
st.caption(t("pr.compare_note"))

st.subheader(t("pr.kv_head"))
c = st.columns([3, 2])
workload = choice(c[0], t("pr.kv_workload"), KV_WORKLOADS, "pr_kv_workload", "shared-system-prompt",
                  labeler("preset."))
block_tokens = int(stepped_choice(c[1], t("pr.kv_block"), KV_BLOCK_TOKENS, "pr_kv_block", 16))
kv = kv_curves(workload, block_tokens)
st.markdown(t("pr.kv_lesson", n=kv.num_requests))
st.plotly_chart(lecture_fonts(charts.kv_figure(kv, labels)), width="stretch", key="pr_kv", config=chart_config())
st.caption(t(f"pr.kv_note.{workload}"))
