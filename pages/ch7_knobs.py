"""Chapter 7 · The engines' knobs: vLLM, SGLang, TensorRT-LLM settings, defaults, sources, effects."""

import streamlit as st

from ui.chapter_common import chapter_traces, cursor, footer, header, predict_then_reveal
from ui.chapter_lanes import draw_lanes
from ui.chapter_lessons import knobs_lesson
from ui.i18n import t

ch = header(7)
st.markdown(t("chx.body.7"))
traces = chapter_traces(ch)
cur = cursor(ch, traces)
predict_then_reveal(ch, traces, cur)
draw_lanes(ch, traces, cur)
knobs_lesson()
footer(ch)
