"""Chapter 1 · The kitchen: the serving engine as a restaurant kitchen; a banquet order stops every table.

The slide draws the kitchen beside the lanes (ui/chapters/kitchen.py → comparison.js drawKitchen): the one stove
(what the step at the cursor cooks), a table per request with its order ticket, the fridge (the KV cache), and the
kitchen ↔ engine map in one line under them (it replaced the folded table; the lesson tells the rest)."""

from ui.chapters.common import chapter_traces, footer, header, lesson
from ui.chapters.lanes import slide
from ui.i18n import t

ch = header(1)
traces = chapter_traces(ch)
slide(ch, traces, kitchen=True)
lesson(t("chx.body.1"))
footer(ch)
