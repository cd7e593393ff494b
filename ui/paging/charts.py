"""Plotly figures for the page-replacement page: fault counts side by side, the faults-vs-frames curves with
Belady's anomaly marked, and prefix-cache hit rates against cache capacity; and the cell colours the stepping stage
(stage.py) uses.

Invariant: pure functions of data computed in chunkviz.lessons.paging_bridge and a dict of translated labels; colours are
mid-luminance so cells, bars and lines read on light and dark themes.
"""

from __future__ import annotations

import plotly.graph_objects as go

from chunkviz.lessons.paging_bridge import AlgorithmCurves, KvCurves
from ui.palette import CURSOR, DECODE, FREE, MIXED, PREEMPTED, PREFILL, STALL

KIND_COLORS = {"resident": FREE, "loaded": PREFILL, "hit_page": MIXED, "miss": STALL, "hit": MIXED,
               "victim": PREEMPTED}
ALG_COLORS = {"fifo": PREFILL, "lru": DECODE, "opt": MIXED, "clock": PREEMPTED, "lfu": "#76B7B2"}
POLICY_COLORS = {"fifo": PREFILL, "lru": DECODE, "lfu": "#76B7B2"}
DIMMED = "#A0A7B4"


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
