"""Plotly figures for the page-replacement page: the frames-by-reference grid, fault counts side by side, the
faults-vs-frames curves with Belady's anomaly marked, and prefix-cache hit rates against cache capacity.

Invariant: pure functions of data computed in chunkviz.lessons.paging_bridge and a dict of translated labels; colours are
mid-luminance so cells, bars and lines read on light and dark themes, and empty or future cells stay transparent.
"""

from __future__ import annotations

import plotly.graph_objects as go

from chunkviz.lessons.paging_bridge import CELL_KINDS, AlgorithmCurves, KvCurves, SlotGrid
from ui.palette import CURSOR, DECODE, FREE, MIXED, PREEMPTED, PREFILL, STALL

KIND_COLORS = {"resident": FREE, "loaded": PREFILL, "hit_page": MIXED, "miss": STALL, "hit": MIXED,
               "victim": PREEMPTED}
ALG_COLORS = {"fifo": PREFILL, "lru": DECODE, "opt": MIXED, "clock": PREEMPTED, "lfu": "#76B7B2"}
POLICY_COLORS = {"fifo": PREFILL, "lru": DECODE, "lfu": "#76B7B2"}
DIMMED = "#A0A7B4"


def _discrete_scale() -> list[list[object]]:
    # Each kind k owns the band [k, k+1) / n of the normalised range, so z = k (with zmin -0.5, zmax n-0.5) gets
    # exactly its colour and never a blend.
    n = len(CELL_KINDS)
    scale: list[list[object]] = []
    for k, kind in enumerate(CELL_KINDS):
        scale += [[k / n, KIND_COLORS[kind]], [(k + 1) / n, KIND_COLORS[kind]]]
    return scale


def slot_grid_figure(grid: SlotGrid, refs: tuple[int, ...], cursor: int, labels: dict[str, str]) -> go.Figure:
    """Rows = frames, then hit/miss, then the evicted page; columns = references; the current column outlined."""
    num_rows = len(grid.kinds)
    num_cols = len(grid.kinds[0]) if grid.kinds else 0
    xs = list(range(grid.first, grid.first + num_cols))
    code = {kind: k for k, kind in enumerate(CELL_KINDS)}
    z = [[None if kind is None else code[kind] for kind in row] for row in grid.kinds]
    text = [list(row) for row in grid.labels]
    result_row = [labels["hit"] if kind == "hit" else labels["miss"] if kind == "miss" else ""
                  for kind in grid.kinds[num_rows - 2]]
    if num_cols > 14:  # words need wide cells; narrow ones get a tick or a cross
        result_row = ["✓" if kind == "hit" else "✗" if kind == "miss" else "" for kind in grid.kinds[num_rows - 2]]
    text[num_rows - 2] = result_row
    y_names = [labels["frame"].format(n=r + 1) for r in range(num_rows - 2)] + [labels["result"], labels["victim"]]
    hover = [[f"#{x + 1} · {labels['page']} {refs[x]}" for x in xs] for _ in range(num_rows)]
    fig = go.Figure(go.Heatmap(
        z=z, x=xs, y=list(range(num_rows)), text=text, texttemplate="%{text}", textfont={"size": 15},
        colorscale=_discrete_scale(), zmin=-0.5, zmax=len(CELL_KINDS) - 0.5, showscale=False, xgap=2, ygap=2,
        customdata=hover, hovertemplate="%{customdata}<extra></extra>", hoverongaps=False))
    for kind in ("loaded", "hit_page", "resident", "miss", "victim"):  # a legend for the colours
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=labels[f"kind_{kind}"],
                                 marker={"symbol": "square", "size": 12, "color": KIND_COLORS[kind]}))
    shapes = []
    if grid.first < cursor <= grid.first + num_cols:
        shapes.append({"type": "rect", "x0": cursor - 1.5, "x1": cursor - 0.5, "y0": -0.5, "y1": num_rows - 0.5,
                       "line": {"color": CURSOR, "width": 3}, "fillcolor": "rgba(0,0,0,0)"})
    fig.update_xaxes(side="top", tickvals=xs, ticktext=[str(refs[x]) for x in xs], tickfont={"size": 14},
                     range=[grid.first - 0.5, grid.first + num_cols - 0.5], showgrid=False, zeroline=False,
                     title_text=labels["refs_axis"])
    fig.update_yaxes(tickvals=list(range(num_rows)), ticktext=y_names, autorange="reversed", showgrid=False,
                     zeroline=False)
    fig.update_layout(height=150 + 38 * num_rows, margin={"l": 10, "r": 10, "t": 60, "b": 10}, shapes=shapes,
                      legend={"orientation": "h", "y": -0.02, "yanchor": "top", "x": 0},
                      plot_bgcolor="rgba(0,0,0,0)")
    return fig


def faults_bar_figure(curves: AlgorithmCurves, selected: str, labels: dict[str, str]) -> go.Figure:
    """Total faults of every algorithm at the chosen frame count; the selected one in colour, the rest dimmed."""
    algs = [alg for alg, _ in curves.alg_to_faults]
    faults = [f for _, f in curves.alg_to_faults]
    fig = go.Figure(go.Bar(
        x=[labels[f"alg_{a}"] for a in algs], y=faults, text=faults, textposition="outside",
        marker={"color": [ALG_COLORS[a] if a == selected else DIMMED for a in algs],
                "line": {"color": [CURSOR if a == selected else "rgba(0,0,0,0)" for a in algs], "width": 3}},
        hovertemplate="%{x}: %{y}<extra></extra>"))
    fig.update_yaxes(title_text=labels["faults"], range=[0, max(faults) * 1.25 + 1])
    fig.update_layout(title=labels["bar_title"].format(n=curves.num_frames), height=330,
                      margin={"l": 10, "r": 10, "t": 50, "b": 10}, showlegend=False)
    return fig


def faults_curve_figure(curves: AlgorithmCurves, selected: str, labels: dict[str, str]) -> go.Figure:
    """Faults against frames, one line per algorithm; each anomaly (more frames, more faults) is annotated."""
    fig = go.Figure()
    for alg, curve in curves.alg_to_curve:
        fig.add_trace(go.Scatter(
            x=[f for f, _ in curve], y=[n for _, n in curve], mode="lines+markers", name=labels[f"alg_{alg}"],
            line={"color": ALG_COLORS[alg], "width": 4 if alg == selected else 2,
                  "dash": "solid" if alg == selected else "dot"},
            hovertemplate="%{x} → %{y}<extra>" + labels[f"alg_{alg}"] + "</extra>"))
    curve_of = dict(curves.alg_to_curve)
    annotations = []
    for k, (alg, (before, after)) in enumerate(curves.alg_to_anomaly):
        points = dict(curve_of[alg])
        annotations.append({
            "x": after, "y": points[after], "ax": 50, "ay": -45 - 30 * k, "showarrow": True, "arrowhead": 2,
            "arrowcolor": ALG_COLORS[alg], "font": {"color": ALG_COLORS[alg], "size": 13},
            "text": labels["anomaly"].format(alg=labels[f"alg_{alg}"], a=before, b=after, fa=points[before],
                                             fb=points[after])})
    fig.add_vline(x=curves.num_frames, line={"color": CURSOR, "width": 1, "dash": "dot"})
    fig.update_xaxes(title_text=labels["frames_axis"], dtick=1)
    fig.update_yaxes(title_text=labels["faults"], rangemode="tozero")
    fig.update_layout(title=labels["curve_title"], height=380, annotations=annotations,
                      margin={"l": 10, "r": 10, "t": 50, "b": 10}, legend={"orientation": "h", "y": -0.2})
    return fig


def kv_figure(kv: KvCurves, labels: dict[str, str]) -> go.Figure:
    """Prefix-cache hit rate against capacity (log axis), one line per policy, the no-eviction ceiling dashed."""
    fig = go.Figure()
    for policy, rates in kv.policy_to_hit_rates:
        fig.add_trace(go.Scatter(
            x=list(kv.capacities_blocks), y=[100 * r for r in rates], mode="lines+markers",
            name=labels[f"alg_{policy}"],
            # LRU and LFU often coincide: LFU dashed and thinner on top, so the LRU line stays visible under it.
            line={"color": POLICY_COLORS[policy], "width": 2 if policy == "lfu" else 4,
                  "dash": "dash" if policy == "lfu" else "solid"},
            hovertemplate="%{x} → %{y:.1f}%<extra>" + labels[f"alg_{policy}"] + "</extra>"))
    fig.add_hline(y=100 * kv.ceiling_hit_rate, line={"color": DIMMED, "dash": "dash"},
                  annotation_text=labels["ceiling"], annotation_position="top left")
    fig.update_xaxes(type="log", title_text=labels["capacity_axis"].format(n=kv.block_tokens),
                     tickvals=list(kv.capacities_blocks), ticktext=[str(c) for c in kv.capacities_blocks])
    fig.update_yaxes(title_text=labels["hit_rate_axis"], range=[0, 100])
    fig.update_layout(height=380, margin={"l": 10, "r": 10, "t": 30, "b": 10}, legend={"orientation": "h", "y": 1.1})
    return fig
