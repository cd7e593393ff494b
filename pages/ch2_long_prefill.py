"""Chapter 2 · Why a long prefill hurts: one long prompt freezes the chats; chunking keeps them typing."""

from chunkviz.lessons.chapters import PREFILL_FIRST
from ui.chapters.common import chapter_traces, footer, header, lesson
from ui.chapters.lanes import long_prefill_fields, slide
from ui.i18n import t

ch = header(2)
traces = chapter_traces(ch)
slide(ch, traces)
lesson(t("chx.body.2", **long_prefill_fields(traces[PREFILL_FIRST])))  # every figure from the run on the stage
footer(ch)
