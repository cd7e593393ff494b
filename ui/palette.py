"""The one colour system of every page: one colour per meaning, mid-luminance Tableau 10 hues that read on both the
light and the dark theme (checked on screenshots of both).

Invariant: prefill, decode, stall, waiting, mixed, preempted and the cursor each have exactly one colour, used by
every chart and by the timeline component; no two meanings share a colour (the cursor is not the stall red).
"""

PREFILL = "#F28E2B"  # orange
DECODE = "#4E79A7"  # blue
WAITING = "#A0A7B4"  # grey
STALL = "#E15759"  # red
PREEMPTED = "#B07AA1"  # purple
MIXED = "#59A14F"  # green: a step that runs prefill and decode tokens together
FREE = "#8C96A6"  # free KV block (a blue-grey, lighter role than waiting)
CACHED = "#EDC948"  # cached KV block (yellow)
CURSOR = "#17A2B8"  # teal: the cursor, unlike any bar colour
REFERENCE = "#9C755F"  # brown: a reference line or baseline that is none of the meanings above
KIND_COLORS = {"waiting": WAITING, "prefill": PREFILL, "decode": DECODE, "stall": STALL, "preempted": PREEMPTED}
MEANINGS = {"prefill": PREFILL, "decode": DECODE, "waiting": WAITING, "stall": STALL, "preempted": PREEMPTED,
            "mixed": MIXED, "cursor": CURSOR}
