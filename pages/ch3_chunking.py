"""Chapter 3 · Chunking and prefix-incremental attention: the attention stage (the attention page's example), exact
attention chunk by chunk; the question is about the lecture run's document in budget-sized chunks."""

import streamlit as st

from chunkviz.lessons.attention_math import LECTURE_EXAMPLE, run_attention_demo
from ui.chapters.common import chapter_traces, footer, header, lesson
from ui.chapters.stages import attention_slide
from ui.fmt import si
from ui.i18n import t

# The lecture's example (chunkviz/lessons/attention_math.py, also chapter 9's FLOPs claim), opened on the attention
# page by the link below with these same values (its ?am_n, ?am_d, ?am_chunk), and its FLOPs written as that page
# writes them (ui.fmt.si), so the pages show the same figures.
EXAMPLE = {"am_n": LECTURE_EXAMPLE["num_tokens"], "am_d": LECTURE_EXAMPLE["head_dim"],
           "am_chunk": LECTURE_EXAMPLE["chunk_tokens"]}
ch = header(3)
demo = run_attention_demo(**LECTURE_EXAMPLE)
traces = chapter_traces(ch)
attention_slide(ch, traces, demo)
lesson(t("chx.body.3", n=demo.num_tokens, d=demo.head_dim, chunk=demo.chunk_tokens, diff=demo.max_abs_diff,
         flops=si(demo.total_attention_flops), ratio=demo.total_kv_read_bytes / demo.one_pass_kv_read_bytes))
st.page_link("pages/attention_page.py", label=t("nav.attention"), query_params={k: str(v) for k, v in EXAMPLE.items()})
footer(ch)
