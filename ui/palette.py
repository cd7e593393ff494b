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
# Owners of KV blocks: Tableau 10 without its yellow and grey, which mean "free, cached" and "free, empty"; request
# r takes REQUEST_COLORS[r % 10] on the /kv grid, its block tables and the KV stage alike.
REQUEST_COLORS = ("#4E79A7", "#F28E2B", "#E15759", "#76B7B2", "#59A14F", "#B07AA1", "#FF9DA7", "#9C755F",
                  "#3B8BC2", "#86BC86")
# What happened to a KV block in a step (the KV stage's change badges; each badge also carries a glyph, so colour
# is never the only cue): new = green, prefix hit = the cursor's teal family, copy-on-write = orange, evicted = the
# stall red, freed = grey, preempted = the preemption purple, shared by a fork = blue.
KV_CHANGE_COLORS = {"alloc": "#2E8B3E", "hit": "#138496", "cow": "#D4711C", "evict": STALL, "free": "#6C7585",
                    "unref": "#6C7585", "preempt": PREEMPTED, "fork": "#3B6FA0"}
