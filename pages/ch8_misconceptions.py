"""Chapter 8 · Misconceptions and interview questions, each answer backed by a run."""

import streamlit as st

from ui.chapter_common import chapter_traces, cursor, footer, header, predict_then_reveal
from ui.chapter_lanes import draw_lanes
from ui.chapter_lessons import misconceptions_lesson
from ui.i18n import t

ch = header(8)
st.markdown(t("chx.body.8"))
traces = chapter_traces(ch)
cur = cursor(ch, traces)
predict_then_reveal(ch, traces, cur)
draw_lanes(ch, traces, cur, chats=False)
misconceptions_lesson()
footer(ch)
