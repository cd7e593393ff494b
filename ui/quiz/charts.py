"""Plotly figure for a quiz answer: the evidence figures that share a unit, side by side."""

from __future__ import annotations

import plotly.graph_objects as go

from ui.i18n import t
from ui.palette import DECODE, FREE, PREFILL, STALL


def kind_colour(label_key: str) -> str:
    """A bar's colour says what it measures (palette meanings), never its position: decode tokens are blue."""
    if "decode" in label_key:
        return DECODE
    if "gap" in label_key or "stall" in label_key:
        return STALL
    if "doc_tokens" in label_key or "prefill" in label_key:
        return PREFILL
    return FREE  # a quantity that is none of the kinds (a budget, a total, a TTFT) stays neutral


def evidence_figure(figures, labels: dict[str, str]) -> go.Figure | None:
    """Bars of the largest group of figures sharing a unit (None when no two figures can be compared)."""
    groups: dict[str, list] = {}
    for fig in figures:
        groups.setdefault(fig.unit, []).append(fig)
    unit, items = max(groups.items(), key=lambda kv: len(kv[1]))
    if len(items) < 2:
        return None
    names = [labels[f.label_key] for f in items]
    colours = [kind_colour(f.label_key) for f in items]
    chart = go.Figure(go.Bar(x=names, y=[f.value for f in items], marker={"color": colours},
                             text=[f"{f.value:.4g}" for f in items], textposition="outside", cliponaxis=False))
    chart.update_layout(height=260, margin={"l": 10, "r": 10, "t": 30, "b": 10},
                        yaxis={"title": t(f"axis.{unit}")},
                        showlegend=False)
    return chart
