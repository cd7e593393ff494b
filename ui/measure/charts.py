"""Plotly figure and table of the Measure page: measured step times beside the roofline, per point.

Invariant: pure functions of PointComparison rows (no Streamlit); one measured and one roofline line per
(kind, context), so a full plan draws a few dozen traces at most.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from chunkviz.cost.profiled import PointComparison

# Text keys the page translates (me.lbl.<key>) and passes in as `labels`.
LABEL_KEYS = ("prefill", "decode", "tokens", "batch", "context", "time_ms", "measured", "roofline", "kind", "size",
              "measured_ms", "p10_ms", "p90_ms", "roofline_ms", "ratio")
# Mid-luminance hues that read on light and dark themes, one per context length (cycled past six).
CONTEXT_COLORS = ("#4E79A7", "#F28E2B", "#59A14F", "#B07AA1", "#E15759", "#76B7B2")


def comparison_figure(rows: Sequence[PointComparison], labels: dict[str, str]) -> go.Figure:
    """Two panels (prefill chunks, decode steps): measured medians with p10-p90 bars, roofline dashed; each panel
    has its own legend below it, so equal context lengths in the two panels cannot be confused."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=(labels["prefill"], labels["decode"]), horizontal_spacing=0.08)
    for col, kind, legend in ((1, "prefill", "legend"), (2, "decode", "legend2")):
        contexts = sorted({r.context_tokens for r in rows if r.kind == kind})
        for i, context in enumerate(contexts):
            pts = sorted((r for r in rows if r.kind == kind and r.context_tokens == context),
                         key=lambda r: r.num_tokens)
            color = CONTEXT_COLORS[i % len(CONTEXT_COLORS)]
            x = [r.num_tokens for r in pts]
            name = f"{labels['context']} {context:,}"
            fig.add_trace(go.Scatter(
                x=x, y=[r.measured_s * 1e3 for r in pts], mode="lines+markers", line={"color": color, "width": 2},
                name=f"{labels['measured']}, {name}", legendgroup=f"{kind}{context}", legend=legend,
                error_y={"type": "data", "symmetric": False, "array": [(r.p90_s - r.measured_s) * 1e3 for r in pts],
                         "arrayminus": [(r.measured_s - r.p10_s) * 1e3 for r in pts], "thickness": 1}),
                row=1, col=col)
            fig.add_trace(go.Scatter(
                x=x, y=[r.roofline_s * 1e3 for r in pts], mode="lines", line={"color": color, "dash": "dash"},
                name=f"{labels['roofline']}, {name}", legendgroup=f"{kind}{context}", legend=legend),
                row=1, col=col)
        fig.update_xaxes(type="log", title_text=labels["tokens" if kind == "prefill" else "batch"], row=1, col=col)
        fig.update_yaxes(type="log", title_text=labels["time_ms"] if col == 1 else None, row=1, col=col)
    below = {"orientation": "h", "y": -0.22, "yanchor": "top", "font": {"size": 11}}
    fig.update_layout(height=460, margin={"l": 10, "r": 10, "t": 40, "b": 40},
                      legend={**below, "x": 0}, legend2={**below, "x": 0.54})
    return fig


def comparison_frame(rows: Sequence[PointComparison], labels: dict[str, str]) -> pd.DataFrame:
    """One row per measured point: times in ms and the measured / roofline ratio."""
    return pd.DataFrame({
        labels["kind"]: [labels[r.kind] for r in rows],
        labels["size"]: [r.num_tokens for r in rows],
        labels["context"]: [r.context_tokens for r in rows],
        labels["measured_ms"]: [round(r.measured_s * 1e3, 3) for r in rows],
        labels["p10_ms"]: [round(r.p10_s * 1e3, 3) for r in rows],
        labels["p90_ms"]: [round(r.p90_s * 1e3, 3) for r in rows],
        labels["roofline_ms"]: [round(r.roofline_s * 1e3, 3) for r in rows],
        labels["ratio"]: [round(r.ratio, 2) for r in rows],
    })
