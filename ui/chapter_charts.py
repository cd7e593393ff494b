"""Plotly figures for the lecture chapters: request lanes with labels drawn where the point is, GPU work per step,
compute- vs memory-bound time per step, and the per-class budget sweep.

Invariant: pure functions of lesson data and a cursor time; nothing after the cursor is drawn on the lanes.
"""

from __future__ import annotations

from dataclasses import dataclass

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from chunkviz.analysis.timeline import KINDS, lane_segments
from chunkviz.lessons.budgets import BudgetPoint, ClassSlo
from chunkviz.lessons.utilisation import StepUtil
from chunkviz.simulator.trace import Trace
from ui.palette import CURSOR, DECODE, KIND_COLORS, MIXED, PREFILL, WAITING


@dataclass(frozen=True, slots=True)
class Note:
    """A label drawn on the chart, pointing at (time, lane)."""

    time_s: float
    lane: int
    text: str


def lanes_figure(trace: Trace, cursor_s: float, x_max_s: float, title: str, labels: dict[str, str],
                 notes: tuple[Note, ...] = ()) -> go.Figure:
    """One lane per request, bars cut at the cursor, labels for the bookmarks already passed."""
    fig = go.Figure()
    for kind in KINDS:
        items = [(s, min(s.end_s, cursor_s)) for s in lane_segments(trace) if s.kind == kind and s.start_s < cursor_s]
        if not items:
            continue
        fig.add_trace(go.Bar(
            orientation="h", y=[s.request_id for s, _ in items], base=[s.start_s * 1e3 for s, _ in items],
            x=[max((end - s.start_s) * 1e3, 0.3) for s, end in items], name=labels[kind],
            marker={"color": KIND_COLORS[kind]}, customdata=[[s.num_tokens] for s, _ in items],
            hovertemplate="R%{y}: %{base:.0f} ms + %{x:.1f} ms, %{customdata[0]} tokens<extra></extra>"))
    num = len(trace.requests)
    fig.update_yaxes(range=[num - 0.5, -0.5], tickvals=list(range(num)), ticktext=[f"R{i}" for i in range(num)],
                     title_text=None)
    fig.update_xaxes(range=[0, x_max_s * 1e3], title_text=labels["time_ms"])
    fig.add_vline(x=cursor_s * 1e3, line={"color": CURSOR, "width": 2, "dash": "dot"})
    fig.update_layout(
        title={"text": title, "font": {"size": 15}}, barmode="overlay", bargap=0.25, height=130 + 30 * num,
        margin={"l": 10, "r": 10, "t": 40, "b": 36}, legend={"orientation": "h", "y": 1.0, "x": 1.0,
                                                            "xanchor": "right", "yanchor": "bottom"},
        annotations=[{"x": n.time_s * 1e3, "y": n.lane, "text": f"<b>{n.text}</b>", "showarrow": True,
                      "arrowhead": 2, "ax": 40 if n.time_s < 0.6 * x_max_s else -40, "ay": -26,
                      "xanchor": "left" if n.time_s < 0.6 * x_max_s else "right",
                      "bgcolor": "rgba(255,255,255,0.85)", "bordercolor": CURSOR, "font": {"size": 13,
                                                                                             "color": "#222"}}
                     for n in notes])
    return fig


def work_per_step_figure(series: dict[str, tuple[int, ...]], title: str, axis_label: str) -> go.Figure:
    """Tokens computed in each step, one line per batching mode (x: step number)."""
    fig = go.Figure()
    for name, tokens in series.items():
        fig.add_trace(go.Scatter(x=list(range(len(tokens))), y=list(tokens), mode="lines", name=name,
                                 line={"shape": "hv", "width": 1.5}))
    fig.update_layout(title={"text": title, "font": {"size": 15}}, height=260, yaxis_type="log",
                      yaxis_title=axis_label, margin={"l": 10, "r": 10, "t": 40, "b": 30},
                      legend={"orientation": "h", "y": -0.25})
    return fig


def utilisation_figure(panels: dict[str, tuple[StepUtil, ...]], labels: dict[str, str]) -> go.Figure:
    """Per step: compute-bound, memory-bound and overhead milliseconds stacked, MFU on a second axis; one row per
    engine, so the roller coaster (prefill-first) sits above the flat road (decode-first)."""
    fig = make_subplots(rows=len(panels), cols=1, shared_xaxes=False, subplot_titles=list(panels),
                        specs=[[{"secondary_y": True}] for _ in panels], vertical_spacing=0.16)
    for row, utils in enumerate(panels.values(), start=1):
        x = [u.step for u in utils]
        for name, values, color in ((labels["compute"], [u.compute_bound_s * 1e3 for u in utils], PREFILL),
                                    (labels["memory"], [u.memory_bound_s * 1e3 for u in utils], DECODE),
                                    (labels["other"], [u.other_s * 1e3 for u in utils], WAITING)):
            fig.add_trace(go.Bar(x=x, y=values, name=name, marker={"color": color}, showlegend=row == 1,
                                 legendgroup=name), row=row, col=1)
        fig.add_trace(go.Scatter(x=x, y=[u.mfu for u in utils], name=labels["mfu"], mode="lines",
                                 line={"color": MIXED, "width": 1.5}, showlegend=row == 1, legendgroup="mfu"),
                      row=row, col=1, secondary_y=True)
        fig.update_yaxes(title_text=labels["step_ms"], type="log", row=row, col=1)
        fig.update_yaxes(title_text=labels["mfu"], range=[0, 1], tickformat=".0%", row=row, col=1, secondary_y=True)
    fig.update_layout(barmode="stack", bargap=0, height=220 * len(panels) + 60,
                      margin={"l": 10, "r": 10, "t": 40, "b": 30}, legend={"orientation": "h", "y": -0.12})
    return fig


def budget_figure(points: tuple[BudgetPoint, ...], slo: ClassSlo, labels: dict[str, str]) -> go.Figure:
    """Chats' TBT p99 and documents' TTFT p50 against the budget, each with its SLO line; green = meets both."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=[labels["chat"], labels["doc"]], horizontal_spacing=0.12)
    x = [str(p.budget_tokens) for p in points]
    colors = [MIXED if p.meets_both else CURSOR for p in points]
    for col, values, limit in ((1, [p.chat_tbt_p99_s * 1e3 for p in points], slo.chat_tbt_p99_s * 1e3),
                               (2, [p.doc_ttft_p50_s * 1e3 for p in points], slo.doc_ttft_p50_s * 1e3)):
        fig.add_trace(go.Bar(x=x, y=values, marker={"color": colors}, showlegend=False,
                             text=[f"{v:.0f}" for v in values], textposition="outside"), row=1, col=col)
        fig.add_hline(y=limit, line={"color": CURSOR, "dash": "dash"}, annotation_text=labels["slo"], row=1, col=col)
        fig.update_xaxes(title_text=labels["axis"], type="category", row=1, col=col)
    fig.update_layout(height=300, margin={"l": 10, "r": 10, "t": 40, "b": 30})
    return fig
