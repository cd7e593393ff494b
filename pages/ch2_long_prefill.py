"""Chapter 2 · Why a long prefill hurts: one long prompt freezes the chats; chunking keeps them typing."""

import streamlit as st

from ui.chapter_common import chapter_traces, cursor, footer, header, predict_then_reveal
from ui.chapter_lanes import draw_lanes
from ui.i18n import t

ch = header(2)
st.markdown(t("chx.body.2"))
traces = chapter_traces(ch)
cur = cursor(ch, traces)
predict_then_reveal(ch, traces, cur)
draw_lanes(ch, traces, cur)
footer(ch)
