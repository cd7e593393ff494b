"""Plotly figure for the paged-KV page: paged vs contiguous memory over the run (the block grid, free queue and block
tables are drawn in the browser by the KV stage, ui/components/kv_stage/kv_stage.js).

Invariant: a pure function of kv_view data and a label dict.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from chunkviz.lessons.kv_view import MemorySeries
from ui.palette import DECODE, FREE, MIXED, PREEMPTED, PREFILL
def memory_figure(series: MemorySeries, labels: dict[str, str]) -> go.Figure:
    """KV tokens per step (top) and sequences held (bottom): paged vs two contiguous reservation rules. No cursor:
    the step being looked at lives in the browser, and the KV stage draws its own blocks-in-use line with it."""
    # Two stacked axes and the line as a layout shape, without make_subplots, and numpy arrays, which plotly
    # validates whole (lists element by element): a settings change rebuilds this figure.
    x = np.arange(len(series.paged_tokens))
    # (name, values, colour, dash, y axis): tokens on top, sequences held below; the paged lines come last so they
    # stay visible where a contiguous rule gives the same number.
    lines = ((labels["max_len"], series.reserved_max_len_tokens, PREEMPTED, "solid", "y"),
             (labels["exact"], series.reserved_exact_tokens, PREFILL, "solid", "y"),
             (labels["paged"], series.paged_tokens, DECODE, "solid", "y"),
             (labels["used_kv"], series.used_tokens, MIXED, "dot", "y"),
             (labels["max_len"], series.num_placed_max_len, PREEMPTED, "solid", "y2"),
             (labels["exact"], series.num_placed_exact, PREFILL, "solid", "y2"),
             (labels["running"], series.num_running, DECODE, "solid", "y2"))
    data = [go.Scatter(x=x, y=np.asarray(y), name=name, mode="lines", line_shape="hv", legendgroup=name,
                       line={"color": color, "dash": dash, "width": 2}, yaxis=axis,
                       showlegend=axis == "y" or name == labels["running"])
            for name, y, color, dash, axis in lines]
    shapes = [{"type": "line", "xref": "x", "yref": "y", "x0": 0, "x1": max(len(x) - 1, 1),
               "y0": series.capacity_tokens, "y1": series.capacity_tokens,
               "line": {"color": FREE, "dash": "dash", "width": 1}}]
    return go.Figure(data=data, layout={
        "height": 460, "margin": {"l": 10, "r": 10, "t": 30, "b": 40},
        "legend": {"orientation": "h", "y": 1.12, "x": 0},
        "xaxis": {"anchor": "y2", "title": {"text": labels["step"]}},
        "yaxis": {"domain": [0.4, 1.0], "title": {"text": labels["tokens"]}, "rangemode": "tozero"},
        "yaxis2": {"domain": [0.0, 0.32], "title": {"text": labels["seqs"]}, "rangemode": "tozero"},
        "shapes": shapes,
        "annotations": [{"x": 0, "y": series.capacity_tokens, "xref": "x", "yref": "y", "text": labels["capacity"],
                         "showarrow": False, "xanchor": "left", "yanchor": "bottom", "font": {"size": 10}}]})
