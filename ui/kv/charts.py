"""Plotly figures for the paged-KV page: the physical block grid, the free-queue head, paged vs contiguous memory.

Invariant: pure functions of kv_view data, a cursor and a label dict; the grid draws one heatmap cell per block
(never shapes), so a 512-block cache is one trace.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from chunkviz.lessons.kv_view import GridCell, MemorySeries
from ui.palette import CACHED, CURSOR, DECODE, FREE, MIXED, PREEMPTED, PREFILL

# Tableau 10 without its yellow and grey, which mean "free, cached" and "free, empty" here.
REQUEST_COLORS = ("#4E79A7", "#F28E2B", "#E15759", "#76B7B2", "#59A14F", "#B07AA1", "#FF9DA7", "#9C755F",
                  "#3B8BC2", "#86BC86")
_STATE_COLORS = (FREE, CACHED)  # categories 0 and 1; requests follow


def grid_columns(num_blocks: int) -> int:
    """16 blocks a row, 32 for big caches so the grid stays under ~16 rows."""
    return 16 if num_blocks <= 256 else 32


def _category(cell: GridCell) -> int:
    if cell.state == "used" and cell.request_id is not None:
        return 2 + cell.request_id % len(REQUEST_COLORS)
    return 1 if cell.state == "cached" else 0


def _discrete_scale(colors: tuple[str, ...]) -> list[list]:
    n = len(colors)
    scale = []
    for i, color in enumerate(colors):
        scale += [[i / n, color], [(i + 1) / n, color]]
    return scale


def _cell_text(cell: GridCell) -> str:
    text = f"R{cell.request_id}" if cell.state == "used" else ""
    if cell.ref_count > 1:
        text += f"×{cell.ref_count}"
    return text + ("●" if cell.key is not None else "")


def _hover(cell: GridCell, labels: dict[str, str]) -> str:
    owners = ", ".join(f"R{r}" + (f".{s}" if s else "") for r, s in cell.owners) or labels["none"]
    pos = labels["none"] if cell.free_position is None else str(cell.free_position)
    return (f"{labels['block']} {cell.block_id} ({labels[cell.state]})<br>{labels['owners']}: {owners}<br>"
            f"{labels['ref']}: {cell.ref_count}<br>{labels['key']}: {cell.key or labels['none']}<br>"
            f"{labels['filled']}: {cell.num_filled_tokens}<br>{labels['free_pos']}: {pos}")


def _legend_marker(name: str, color: str) -> go.Scatter:
    return go.Scatter(x=[None], y=[None], mode="markers", name=name, hoverinfo="skip",
                      marker={"symbol": "square", "size": 12, "color": color})


def grid_figure(cells: tuple[GridCell, ...], title: str, labels: dict[str, str]) -> go.Figure:
    """The physical blocks in id order, row by row; colour = owner request, grey/yellow = free."""
    cols = grid_columns(len(cells))
    rows = -(-len(cells) // cols)
    z = [[None] * cols for _ in range(rows)]
    text = [[""] * cols for _ in range(rows)]
    hover = [[""] * cols for _ in range(rows)]
    for cell in cells:
        r, c = divmod(cell.block_id, cols)
        z[r][c], text[r][c], hover[r][c] = _category(cell) + 0.5, _cell_text(cell), _hover(cell, labels)
    colors = _STATE_COLORS + REQUEST_COLORS
    heatmap = go.Heatmap(
        z=z, text=text, texttemplate="%{text}", textfont={"size": 10 if cols == 16 else 8}, hovertext=hover,
        hovertemplate="%{hovertext}<extra></extra>", colorscale=_discrete_scale(colors), zmin=0, zmax=len(colors),
        showscale=False, xgap=2, ygap=2, hoverongaps=False)
    # One layout dict, not update_* calls: this figure is rebuilt on every step click.
    return go.Figure(data=[heatmap, _legend_marker(labels["empty"], FREE), _legend_marker(labels["cached"], CACHED)],
                     layout={
        "title": {"text": title, "y": 0.98}, "height": 110 + 26 * rows, "margin": {"l": 10, "r": 10, "t": 70, "b": 10},
        "legend": {"orientation": "h", "y": -0.02, "yanchor": "top", "x": 0},
        "yaxis": {"autorange": "reversed", "tickvals": list(range(rows)), "showgrid": False, "zeroline": False,
                  "ticktext": [f"{r * cols}–{min((r + 1) * cols, len(cells)) - 1}" for r in range(rows)],
                  "tickfont": {"size": 10}, "title": {"text": labels["row"]}},
        "xaxis": {"tickvals": list(range(cols)), "ticktext": [f"+{c}" for c in range(cols)], "showgrid": False,
                  "zeroline": False, "tickfont": {"size": 9}, "side": "top"}})


def free_queue_figure(head: tuple[int, ...], cells: tuple[GridCell, ...], labels: dict[str, str]) -> go.Figure:
    """The first blocks of the free queue, left = reused next; yellow ones still hold a cached prefix."""
    cached = [cells[b].state == "cached" if b < len(cells) else False for b in head]
    fig = go.Figure(go.Heatmap(
        z=[[1.5 if c else 0.5 for c in cached]], text=[[str(b) for b in head]], texttemplate="%{text}",
        textfont={"size": 10}, colorscale=_discrete_scale(_STATE_COLORS), zmin=0, zmax=2, showscale=False,
        xgap=2, customdata=[[labels["cached"] if c else labels["empty"] for c in cached]],
        hovertemplate=labels["block"] + " %{text}: %{customdata}, " + labels["free_pos"] + " %{x}<extra></extra>"))
    fig.update_layout(height=110, margin={"l": 10, "r": 10, "t": 10, "b": 40}, yaxis={"visible": False},
                      xaxis={"title": {"text": labels["queue_pos"]}, "tickfont": {"size": 9}, "showgrid": False,
                             "zeroline": False})
    return fig


def memory_figure(series: MemorySeries, cursor: int, labels: dict[str, str]) -> go.Figure:
    """KV tokens per step (top) and sequences held (bottom): paged vs two contiguous reservation rules."""
    # Two stacked axes and the lines as layout shapes, without make_subplots/add_vline, and numpy arrays, which
    # plotly validates whole (lists element by element): each step click rebuilds this figure.
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
    cursor_line = {"color": CURSOR, "width": 2, "dash": "dot"}
    shapes = [{"type": "line", "xref": "x", "yref": "y", "x0": 0, "x1": max(len(x) - 1, 1),
               "y0": series.capacity_tokens, "y1": series.capacity_tokens,
               "line": {"color": FREE, "dash": "dash", "width": 1}},
              {"type": "line", "xref": "x", "yref": "paper", "x0": cursor, "x1": cursor, "y0": 0, "y1": 1,
               "line": cursor_line}]
    return go.Figure(data=data, layout={
        "height": 460, "margin": {"l": 10, "r": 10, "t": 30, "b": 40},
        "legend": {"orientation": "h", "y": 1.12, "x": 0},
        "xaxis": {"anchor": "y2", "title": {"text": labels["step"]}},
        "yaxis": {"domain": [0.4, 1.0], "title": {"text": labels["tokens"]}, "rangemode": "tozero"},
        "yaxis2": {"domain": [0.0, 0.32], "title": {"text": labels["seqs"]}, "rangemode": "tozero"},
        "shapes": shapes,
        "annotations": [{"x": 0, "y": series.capacity_tokens, "xref": "x", "yref": "y", "text": labels["capacity"],
                         "showarrow": False, "xanchor": "left", "yanchor": "bottom", "font": {"size": 10}}]})
