"""Chapter 4 · Paged KV cache: a shared system prompt's blocks, their ref counts and a copy-on-write when the sampled
request's two samples first write (the KV stage of the chapter's one run; the text's figures come from that same run)."""

import streamlit as st

from chunkviz.lessons.chapters import SAMPLED_REQUEST_ID
from ui.chapters.common import chapter_traces, footer, header, lesson
from ui.chapters.stages import kv_slide
from ui.chapters.lessons import sharing_facts
from ui.i18n import t

ch = header(4)
facts = sharing_facts()
traces = chapter_traces(ch)
kv_slide(ch, traces)
lesson(t("chx.body.4", refs=facts.max_ref_count, shared=facts.num_shared_blocks, cow=facts.num_copy_on_write,
         r=SAMPLED_REQUEST_ID))
st.page_link("pages/kv_cache_page.py", label=t("nav.kv"))
footer(ch)
