"""Plotly figures for the attention-math page: the causal mask by chunk, and per-chunk work against one pass.

Invariant: pure functions of the demo's numbers and a cursor (0 = the whole prefill, k = chunk k at work); a mask
wider than MAX_CELLS per side is sampled, but the rows of the chunk at the cursor are always drawn.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from chunkviz.lessons.attention_math import ChunkedAttentionDemo
from chunkviz.cost.prefill import PrefillCost
from ui.palette import CACHED, DECODE, PREFILL, REFERENCE, WAITING

MAX_CELLS = 256
# Colours cycled over chunks, so neighbouring chunks always differ (Tableau 10, mid-luminance).
CHUNK_CYCLE = ("#4E79A7", "#F28E2B", "#59A14F", "#B07AA1", "#76B7B2", "#EDC948", "#E15759", "#9C755F")
DONE, LATER = "#7F8FA6", "#D5DAE1"
STAGES = (("done", DONE), ("cached", CACHED), ("fresh", PREFILL), ("later", LATER))


def _step_scale(colours: list[str]) -> list[list[object]]:
    """A colorscale giving each integer 1..len(colours) its own flat colour (zmin 0.5, zmax len + 0.5)."""
    n, scale = len(colours), []
    for i, colour in enumerate(colours):
        scale += [[i / n, colour], [(i + 1) / n, colour]]
    return scale


def _axes(num_tokens: int, rows: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    stride = -(-num_tokens // MAX_CELLS)
    cols = np.arange(0, num_tokens, stride)
    return np.union1d(cols, np.arange(*rows)), cols


def mask_figure(mask: np.ndarray, chunk_tokens: int, cursor: int, labels: dict[str, str]) -> go.Figure:
    """The (query, key) grid: by chunk at cursor 0; else done / read from cache / fresh / later for chunk `cursor`."""
    n = mask.shape[0]
    start, end = (cursor - 1) * chunk_tokens, min(cursor * chunk_tokens, n)
    ys, xs = _axes(n, (start, end) if cursor else (0, 0))
    sub = mask[np.ix_(ys, xs)].astype(np.float32)  # float32 halves the JSON; NaN marks masked cells
    fig = go.Figure()
    if cursor == 0:
        num_chunks = int(mask.max())
        colours = [CHUNK_CYCLE[i % len(CHUNK_CYCLE)] for i in range(num_chunks)]
        z, zmax, hover = np.where(sub > 0, sub, np.float32(np.nan)), num_chunks + 0.5, labels["chunk_no"] + " %{z}"
    else:
        colours = [c for _, c in STAGES]
        rows, keys = ys[:, None], xs[None, :]
        stage = np.select([rows < start, keys < start, rows < end], [1.0, 2.0, 3.0], 4.0).astype(np.float32)
        z, zmax, hover = np.where(sub > 0, stage, np.float32(np.nan)), 4.5, ""
        for name, colour in STAGES:  # legend entries only: a heatmap has none of its own
            fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=labels[name],
                                     marker={"color": colour, "size": 12, "symbol": "square"}))
    fig.add_trace(go.Heatmap(x=xs, y=ys, z=z, zmin=0.5, zmax=zmax, colorscale=_step_scale(colours),
                             showscale=False, xgap=0, ygap=0,
                             hovertemplate=f"{labels['query']} %{{y}}, {labels['key']} %{{x}}"
                                           + (f"<br>{hover}" if hover else "") + "<extra></extra>"))
    fig.update_yaxes(autorange="reversed", title_text=labels["query"], scaleanchor="x", constrain="domain")
    fig.update_xaxes(title_text=labels["key"], constrain="domain")
    fig.update_layout(title=labels["mask_title"], height=520, margin={"l": 10, "r": 10, "t": 60, "b": 10},
                      legend={"orientation": "h", "y": -0.16, "yanchor": "top"}, plot_bgcolor="rgba(0,0,0,0)")
    return fig


def work_figure(demo: ChunkedAttentionDemo, cursor: int, labels: dict[str, str]) -> go.Figure:
    """Per-chunk FLOPs and KV bytes (bars), their running totals (lines) and the one-pass totals (dashed)."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=(labels["flops_panel"], labels["bytes_panel"]),
                        horizontal_spacing=0.14)
    x = [r.chunk_index + 1 for r in demo.chunks]
    colours = [PREFILL if cursor in (0, i) else (DECODE if i < cursor else WAITING) for i in x]
    panels = (([r.qk_flops + r.av_flops for r in demo.chunks], demo.one_pass_attention_flops),
              ([r.kv_read_bytes for r in demo.chunks], demo.one_pass_kv_read_bytes))
    for col, (values, one_pass) in enumerate(panels, start=1):
        first = col == 1
        fig.add_trace(go.Bar(x=x, y=values, marker={"color": colours}, name=labels["per_chunk"], showlegend=first,
                             hovertemplate=labels["chunk_no"] + " %{x}: %{y:,}<extra></extra>"), row=1, col=col)
        fig.add_trace(go.Scatter(x=x, y=np.cumsum(values), mode="lines+markers", name=labels["cumulative"],
                                 line={"color": DECODE, "width": 2}, marker={"size": 5}, showlegend=first,
                                 hovertemplate="%{y:,}<extra></extra>"), row=1, col=col)
        # The reference as a trace (not a shape), so it has a legend entry and a hover value.
        fig.add_trace(go.Scatter(x=[0.5, len(x) + 0.5], y=[one_pass, one_pass], mode="lines",
                                 name=labels["one_pass"], line={"color": REFERENCE, "width": 2, "dash": "dash"},
                                 showlegend=first, hovertemplate="%{y:,}<extra></extra>"), row=1, col=col)
        fig.update_xaxes(title_text=labels["chunk_index"], row=1, col=col, range=[0.5, len(x) + 0.5],
                         dtick=1 if len(x) <= 16 else None)
        fig.update_yaxes(rangemode="tozero", row=1, col=col)
    fig.update_layout(title=labels["work_title"], height=520, bargap=0.15,
                      margin={"l": 10, "r": 10, "t": 90, "b": 10},
                      legend={"orientation": "h", "y": -0.18, "yanchor": "top"})
    return fig



def real_model_rows(costs: tuple[PrefillCost, ...], labels: dict[str, str]) -> list[dict[str, object]]:
    """Rows of the real-model table, one per chunk size, in display units (TFLOP, GB, ms)."""
    rows = []
    for c in costs:
        whole = c.num_steps == 1
        rows.append({labels["col.chunk"]: labels["col.whole"] if whole else f"{c.chunk_tokens:,}",
                     labels["col.steps"]: c.num_steps,
                     labels["col.flops"]: round(c.flops / 1e12, 2),
                     labels["col.attn_flops"]: round(c.attention_flops / 1e12, 2),
                     labels["col.weights"]: round(c.weight_read_bytes / 1e9, 1),
                     labels["col.kv"]: round(c.kv_read_bytes / 1e9, 2),
                     labels["col.time"]: round(c.time_s * 1e3, 1)})
    return rows
