"""Chapter 5 · Continuous batching and decode-first: static vs continuous vs stall-free on one workload."""

from chunkviz.lessons.chapters import DECODE_FIRST, PREFILL_FIRST
from ui.chapters.common import chapter_traces, footer, header, lesson
from ui.chapters.lanes import answered, slide
from ui.chapters.lessons import batching_lesson, utilisation_lesson
from ui.i18n import t

ch = header(5)
traces = chapter_traces(ch)
slide(ch, traces, chats=False)
lesson(t("chx.body.5"))
if answered(ch):  # the modes' TTFT / TBT table answers the question: drawn once the learner has predicted
    batching_lesson()
    utilisation_lesson({p: traces[p] for p in (PREFILL_FIRST, DECODE_FIRST)})
footer(ch)
