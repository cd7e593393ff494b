"""Chapter 8 · Misconceptions and interview questions, each answer backed by a run."""

from ui.chapters.common import chapter_traces, cursor, footer, header, lesson
from ui.chapters.lanes import draw_lanes
from ui.chapters.lessons import misconceptions_lesson
from ui.i18n import t

ch = header(8)
traces = chapter_traces(ch)
cur = cursor(ch, traces)
draw_lanes(ch, traces, cur, chats=False)
lesson(t("chx.body.8"))
misconceptions_lesson()
footer(ch)
