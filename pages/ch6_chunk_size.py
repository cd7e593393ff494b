"""Chapter 6 · Choosing the chunk size: per-class SLOs and the budget that meets both."""

import streamlit as st

from ui.chapters.answers import lesson_fields
from ui.chapters.budget_handle import budget_variants
from ui.chapters.common import chapter_traces, footer, header, is_present, lesson
from ui.chapters.lanes import answered, slide
from ui.chapters.lessons import budget_lesson, priority_lesson
from ui.i18n import t

ch = header(6)
traces = chapter_traces(ch)
# The sweep is the answer: in the stage once predicted. The budget is a handle on the slide (its runs sent once).
slide(ch, traces, chats=False, answer_view=budget_lesson,
      variants=lambda done, extra: budget_variants(ch, is_present(), done, extra))
if answered(ch):  # what the queue's order buys, once the learner has predicted
    priority_lesson()
lesson(t("chx.body.6", **lesson_fields(ch)))  # the SLOs, budgets and requests of the runs
st.page_link("pages/tradeoffs_page.py", label=t("nav.tradeoffs"))
footer(ch)
