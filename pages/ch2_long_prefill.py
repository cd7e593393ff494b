"""Chapter 2 · Why a long prefill hurts: one long prompt freezes the chats; chunking keeps them typing."""

from ui.chapters.common import chapter_traces, footer, header, lesson
from ui.chapters.lanes import slide
from ui.i18n import t

ch = header(2)
traces = chapter_traces(ch)
slide(ch, traces)
lesson(t("chx.body.2"))
footer(ch)
