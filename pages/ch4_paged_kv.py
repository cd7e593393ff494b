"""Chapter 4 · Paged KV cache: a shared system prompt's blocks, their ref counts, and copy-on-write."""

import streamlit as st

from ui.chapter_common import chapter_traces, cursor, footer, header, predict_then_reveal
from ui.chapter_lanes import draw_lanes
from ui.chapter_lessons import sharing_facts
from ui.i18n import t

ch = header(4)
facts = sharing_facts()
st.markdown(t("chx.body.4", refs=facts.max_ref_count, shared=facts.num_shared_blocks, cow=facts.num_copy_on_write))
traces = chapter_traces(ch)
cur = cursor(ch, traces)
predict_then_reveal(ch, traces, cur)
draw_lanes(ch, traces, cur)
st.page_link("pages/kv_cache_page.py", label=t("nav.kv"), icon="🧊")
footer(ch)
