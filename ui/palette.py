"""The one colour system of every page: one colour per meaning, safe under colour-vision deficiencies.

The hues are Okabe & Ito's colour-blind-safe set ("Color Universal Design", 2008: orange, blue, vermillion,
reddish purple) plus three of Paul Tol's (sky, wine, sand; personal.sron.nl/~pault), two greys and a brown, picked
so that every pair of meanings differs by ΔE00 ≥ 10 under normal vision and under simulated deuteranopia,
protanopia and tritanopia (Machado et al. 2009, severity 1), and each has a contrast ratio ≥ 1.5 against both the
light (#FFFFFF) and the dark (#0E1117) Streamlit background; tests/ui/test_palette.py computes both.

Invariant: prefill, decode, stall, waiting, mixed, preempted, the cursor, free and cached blocks, a reference
line and a KV transfer each have exactly one colour, used by every chart and by the timeline component; no two share a colour. Stall,
preempted and mixed also carry a pattern (PATTERNS), so they read without colour too.
"""

PREFILL = "#E69F00"  # Okabe–Ito orange
DECODE = "#0072B2"  # Okabe–Ito blue
WAITING = "#808080"  # mid grey
STALL = "#D55E00"  # Okabe–Ito vermillion: the stall red (frozen chats too)
PREEMPTED = "#CC79A7"  # Okabe–Ito reddish purple
MIXED = "#88CCEE"  # Tol sky: a step that runs prefill and decode tokens together
FREE = "#BBBBBB"  # free KV block: a light grey, lighter role than waiting
CACHED = "#DDCC77"  # cached KV block: Tol sand
CURSOR = "#AA3377"  # Tol wine: the cursor, unlike any bar colour
REFERENCE = "#9C755F"  # brown: a reference line or baseline that is none of the meanings above
# A KV cache crossing the link from a prefill GPU to a decode GPU (chapter 7): a light violet, the colour of the
# sRGB grid (steps of 0x11) farthest from every other meaning (ΔE00 ≥ 10 in all four visions, tests/ui/test_palette.py)
# among those with contrast ≥ 3:1 on both themes (3.1 on white, 6.1 on dark; the indigo #3311DD had 2.0 on dark).
TRANSFER = "#AA77FF"
KIND_COLORS = {"waiting": WAITING, "prefill": PREFILL, "decode": DECODE, "stall": STALL, "preempted": PREEMPTED}
MEANINGS = {"prefill": PREFILL, "decode": DECODE, "waiting": WAITING, "stall": STALL, "preempted": PREEMPTED,
            "mixed": MIXED, "cursor": CURSOR, "free": FREE, "cached": CACHED, "reference": REFERENCE,
            "transfer": TRANSFER}
# The non-colour cue of the kinds a reader must tell apart without colour: a Plotly bar pattern (marker.pattern
# shape) and the same hatching on the timeline component's canvas (ui/timeline/timeline.js HATCH) and legend.
PATTERNS = {"stall": "x", "preempted": "/", "mixed": "."}
LIGHT_BACKGROUND, DARK_BACKGROUND = "#FFFFFF", "#0E1117"  # Streamlit's two theme backgrounds


def pattern_of(kind: str) -> dict:
    """Plotly `marker.pattern` for a kind: its hatching, or none."""
    return {"shape": PATTERNS.get(kind, ""), "fillmode": "overlay", "solidity": 0.35, "fgcolor": "#000000",
            "fgopacity": 0.45}  # overlay: the hatching lies on the bar's own colour
# Owners of KV blocks: Tableau 10 without its yellow and grey, which mean "free, cached" and "free, empty"; request
# r takes REQUEST_COLORS[r % 10] on the /kv grid, its block tables and the KV stage alike.
REQUEST_COLORS = ("#4E79A7", "#F28E2B", "#E15759", "#76B7B2", "#59A14F", "#B07AA1", "#FF9DA7", "#9C755F",
                  "#3B8BC2", "#86BC86")
# What happened to a KV block in a step (the KV stage's change badges; each badge also carries a glyph, so colour
# is never the only cue): new = green, prefix hit = teal, copy-on-write = orange, evicted = the
# stall red, freed = grey, preempted = the preemption purple, shared by a fork = blue.
KV_CHANGE_COLORS = {"alloc": "#2E8B3E", "hit": "#138496", "cow": "#D4711C", "evict": STALL, "free": "#6C7585",
                    "unref": "#6C7585", "preempt": PREEMPTED, "fork": "#3B6FA0"}
