"""Chapter 7 · Split the kitchen: chapter 2's workload on two GPUs, colocated chunked against 1P+1D."""

from ui.chapters.common import footer, header, lesson
from ui.chapters.lanes import answered
from ui.chapters.split import slide, sweep_lesson
from ui.chapters.split_load import load_lesson
from ui.i18n import t

ch = header(7)
slide(ch)
if answered(ch):  # the sweep says where each wins: drawn once the learner has predicted
    sweep_lesson()
    load_lesson()
lesson(t("chx.body.7"))
footer(ch)
