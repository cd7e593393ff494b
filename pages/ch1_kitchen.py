"""Chapter 1 · The kitchen: the serving engine as a restaurant kitchen; a banquet order stops every table.

The slide draws the kitchen beside the lanes: each chat window is a table with its order ticket (prompt tokens),
and the line above them is the one stove (what the step at the cursor cooks)."""

import re

import streamlit as st

from ui.chapters.common import chapter_traces, footer, header, lesson
from ui.chapters.lanes import slide
from ui.i18n import t

ch = header(1)
traces = chapter_traces(ch)
slide(ch, traces, kitchen=True)
rows = [row.split("|") for row in re.split("[;；]", t("chx.glossary.rows"))]  # 中文 rows end in a full-width ；
with st.expander(f"{t('chx.glossary.kitchen')} ↔ {t('chx.glossary.engine')}", expanded=False):
    st.table({t("chx.glossary.kitchen"): [r[0] for r in rows], t("chx.glossary.engine"): [r[1] for r in rows]})
lesson(t("chx.body.1"))
footer(ch)
