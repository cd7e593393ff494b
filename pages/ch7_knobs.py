"""Chapter 7 · The engines' knobs: vLLM, SGLang, TensorRT-LLM settings, defaults, sources, effects."""

from ui.chapter_common import chapter_traces, cursor, footer, header, lesson
from ui.chapter_lanes import draw_lanes
from ui.chapter_lessons import knobs_lesson
from ui.i18n import t

ch = header(7)
traces = chapter_traces(ch)
cur = cursor(ch, traces)
draw_lanes(ch, traces, cur)
lesson(t("chx.body.7"))
knobs_lesson()
footer(ch)
