"""Chapter 5 · Continuous batching and decode-first: static vs continuous vs stall-free on one workload."""

import streamlit as st

from chunkviz.lessons.chapters import DECODE_FIRST, PREFILL_FIRST
from ui.chapter_common import chapter_traces, cursor, footer, header, predict_then_reveal
from ui.chapter_lanes import draw_lanes
from ui.chapter_lessons import batching_lesson, utilisation_lesson
from ui.i18n import t

ch = header(5)
st.markdown(t("chx.body.5"))
traces = chapter_traces(ch)
cur = cursor(ch, traces)
predict_then_reveal(ch, traces, cur)
draw_lanes(ch, traces, cur, chats=False)
batching_lesson()
utilisation_lesson({p: traces[p] for p in (PREFILL_FIRST, DECODE_FIRST)})
footer(ch)
