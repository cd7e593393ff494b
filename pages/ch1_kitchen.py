"""Chapter 1 · The kitchen: the serving engine as a restaurant kitchen; a banquet order stops every table."""

import streamlit as st

from ui.chapters.common import chapter_traces, cursor, footer, header, lesson
from ui.chapters.lanes import draw_lanes
from ui.i18n import t

ch = header(1)
rows = [row.split("|") for row in t("chx.glossary.rows").split(";")]
with st.expander(f"{t('chx.glossary.kitchen')} ↔ {t('chx.glossary.engine')}", expanded=False):
    st.table({t("chx.glossary.kitchen"): [r[0] for r in rows], t("chx.glossary.engine"): [r[1] for r in rows]})
traces = chapter_traces(ch)
cur = cursor(ch, traces)
draw_lanes(ch, traces, cur)
lesson(t("chx.body.1"))
footer(ch)
