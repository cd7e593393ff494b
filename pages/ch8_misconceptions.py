"""Chapter 9 · Misconceptions and interview questions, each answer backed by a run."""

from ui.chapters.common import chapter_traces, footer, header, lesson
from ui.chapters.lanes import slide
from ui.chapters.lessons import misconceptions_lesson
from ui.i18n import t

ch = header(9)
traces = chapter_traces(ch)
slide(ch, traces, chats=False)
lesson(t("chx.body.9"))
misconceptions_lesson()
footer(ch)
