"""Chapter 8 · Misconceptions and interview questions, each answer backed by a run."""

from ui.chapter_common import chapter_traces, cursor, footer, header, lesson
from ui.chapter_lanes import draw_lanes
from ui.chapter_lessons import misconceptions_lesson
from ui.i18n import t

ch = header(8)
traces = chapter_traces(ch)
cur = cursor(ch, traces)
draw_lanes(ch, traces, cur, chats=False)
lesson(t("chx.body.8"))
misconceptions_lesson()
footer(ch)
