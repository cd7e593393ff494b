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


def deciding(value: float, threshold: float, max_decimals: int = 6) -> str:
    """`value` with the fewest decimals (0…max_decimals) that show on which side of `threshold` it lies: 300.3
    against an SLO of 300 reads "300.3", not "300" (which would read as meeting it); 237.5 reads "238"."""
    for decimals in range(max_decimals + 1):
        shown = round(value, decimals)
        if (shown > threshold) == (value > threshold) and (shown == threshold) == (value == threshold):
            return f"{value:,.{decimals}f}"
    return f"{value:,.{max_decimals}f}"
