"""Chapter 8 · The engines' knobs: vLLM, SGLang, TensorRT-LLM settings, defaults, sources, effects."""

from ui.chapters.common import chapter_traces, footer, header, lesson
from ui.chapters.lanes import answered, slide
from ui.chapters.lessons import knobs_effects, knobs_table
from ui.i18n import t

ch = header(8)
traces = chapter_traces(ch)
slide(ch, traces)
lesson(t("chx.body.8"))
knobs_table()
if answered(ch):  # the runs' figures would answer the question: shown once the learner has predicted
    knobs_effects()
footer(ch)
