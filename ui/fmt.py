"""Number formats shared by several pages.

Invariant: pure functions of numbers to strings, no Streamlit and no language (units are SI symbols).
"""

from __future__ import annotations


def si(value: float, unit: str = "") -> str:
    """A number with an SI prefix (k, M, G, T) and two decimals, for metrics and captions."""
    for scale, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= scale:
            return f"{value / scale:.2f} {prefix}{unit}"
    return f"{value:.0f} {unit}".strip()
