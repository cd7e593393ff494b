"""Chapter 3 · Chunking and prefix-incremental attention: the document in budget-sized chunks, exact attention."""

import streamlit as st

from chunkviz.lessons.attention_math import run_attention_demo
from ui.chapters.common import chapter_traces, footer, header, lesson
from ui.chapters.lanes import slide
from ui.i18n import t

ch = header(3)
demo = run_attention_demo(num_tokens=64, head_dim=16, chunk_tokens=16)
traces = chapter_traces(ch)
slide(ch, traces)
lesson(t("chx.body.3", diff=demo.max_abs_diff, flops=demo.total_attention_flops,
         ratio=demo.total_kv_read_bytes / demo.one_pass_kv_read_bytes))
st.page_link("pages/attention_page.py", label=t("nav.attention"))
footer(ch)
