"""Real traces: logged requests (bundled Azure sample or an upload) replayed through monolithic and chunked prefill."""

import streamlit as st

from chunkviz.analysis.trace_summary import summarize_requests
from ui.traces import charts
from ui.i18n import t
from ui.traces.parts import pick_requests, pick_source, replay, study
from ui.plotly_config import chart_config, lecture_fonts

st.title(t("rt.title"))
st.markdown(t("rt.lesson"))
st.markdown(t("rt.sample_about"))
st.caption(t("rt.attribution"))
source, load = pick_source()

st.subheader(t("rt.select"))
window_s, in_window, requests = pick_requests(load)

st.subheader(t("rt.summary"))
replayed = summarize_requests(requests)
rows = {key: t(f"rt.row.{key}") for key in charts.ROW_KEYS} | {"none": t("rt.none")}
st.table(charts.summary_frame({t("rt.col_loaded"): summarize_requests(load.requests),
                               t("rt.col_replayed"): replayed}, rows))
st.caption(t("rt.cv_help"))
labels = {key: t(f"rt.lbl.{key}") for key in charts.LABEL_KEYS}
c = st.columns(2)
c[0].plotly_chart(lecture_fonts(charts.arrivals_figure(requests, replayed.arrival_rate_per_s, labels)), width="stretch",
                  key="rt_arrivals_chart", config=chart_config())
c[1].plotly_chart(lecture_fonts(charts.lengths_figure(requests, labels)), width="stretch",
                  key="rt_lengths_chart", config=chart_config())

st.subheader(t("rt.replay"))
replay(requests, labels)

st.subheader(t("rt.prefix"))
if any(r.segments is not None for r in in_window):
    st.markdown(t("rt.prefix_lesson"))
    with st.spinner(t("rt.studying", n=len(in_window))):
        curve = study(*source, window_s)
    st.plotly_chart(lecture_fonts(charts.prefix_figure(curve, labels)), width="stretch",
                    key="rt_prefix_chart", config=chart_config())
    st.caption(t("rt.prefix_caption", r=curve.ceiling.num_requests, d=curve.num_distinct_blocks,
                 c=curve.ceiling.hit_rate))
else:
    st.info(t("rt.prefix_none"))
