"""Plotly figures for the timeline page: request lanes with an engine-step lane, and one step's batch mix.

Invariant: pure functions of trace-derived data and a cursor time; nothing after the cursor is drawn, so stepping
reveals the schedule as it unfolds.
"""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from chunkviz.analysis.timeline import KINDS, LaneSegment, StepComposition
from chunkviz.simulator.trace import Trace
from ui.palette import CURSOR, DECODE, KIND_COLORS, MIXED, PREFILL


def _clip(segments: tuple[LaneSegment, ...], cursor_s: float, from_s: float) -> list[tuple[LaneSegment, float]]:
    """Segments visible in [from_s, cursor_s], cut at the cursor (fewer bars keep big runs fast to draw)."""
    return [(s, min(s.end_s, cursor_s)) for s in segments if s.start_s < cursor_s and s.end_s > from_s]


def _step_colour(trace: Trace, index: int) -> str:
    phases = {c.phase for c in trace.steps[index].chunks}
    if phases == {"prefill"}:
        return PREFILL
    return DECODE if phases == {"decode"} else MIXED


def x_window_s(cursor_s: float, makespan_s: float, follow: bool, width_s: float = 1.5) -> tuple[float, float]:
    """The time range to draw: the whole run, or the last `width_s` seconds up to the cursor (follow mode)."""
    if not follow:
        return (0.0, makespan_s)
    hi = min(max(cursor_s, width_s * 0.8) + width_s * 0.2, makespan_s)
    return (max(0.0, hi - width_s), hi)


def gantt_figure(trace: Trace, segments: tuple[LaneSegment, ...], cursor_s: float, x_range_s: tuple[float, float],
                 title: str, labels: dict[str, str]) -> go.Figure:
    """Lanes (one per request) under a lane of engine steps, both cut at the cursor."""
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.12, 0.88], vertical_spacing=0.03)
    steps = [i for i, s in enumerate(trace.steps)
             if s.start_s < cursor_s and s.start_s + s.duration_s > x_range_s[0]]
    if steps:
        fig.add_trace(go.Bar(
            orientation="h", y=[labels["steps"]] * len(steps), base=[trace.steps[i].start_s * 1e3 for i in steps],
            x=[max(trace.steps[i].duration_s * 1e3, 0.05) for i in steps],
            marker={"color": [_step_colour(trace, i) for i in steps], "line": {"width": 0.5, "color": "white"}},
            name=labels["steps"], showlegend=False,
            hovertemplate="%{base:.1f} ms + %{x:.1f} ms<extra></extra>"), row=1, col=1)
    clipped = _clip(segments, cursor_s, x_range_s[0])
    for kind in KINDS:
        items = [(s, end) for s, end in clipped if s.kind == kind]
        fig.add_trace(go.Bar(
            orientation="h", y=[s.request_id for s, _ in items], base=[s.start_s * 1e3 for s, _ in items],
            x=[max((end - s.start_s) * 1e3, 0.05) for s, end in items], name=labels[kind],
            marker={"color": KIND_COLORS[kind]}, legendgroup=kind, showlegend=True,
            customdata=[[s.num_tokens] for s, _ in items],
            hovertemplate="R%{y}: from %{base:.0f} ms for %{x:.0f} ms, %{customdata[0]} tokens<extra>"
                          + labels[kind] + "</extra>",
        ), row=2, col=1)
    # Numeric lanes with a fixed range: every request keeps its row even before it has anything drawn.
    num = len(trace.requests)
    tick_every = max(1, num // 16)
    ids = [r.request_id for r in trace.requests][::tick_every]
    fig.update_yaxes(range=[num - 0.5, -0.5], tickvals=ids, ticktext=[f"R{i}" for i in ids], row=2, col=1,
                     tickfont={"size": 10}, title_text=labels["requests"])
    fig.update_xaxes(range=[x_range_s[0] * 1e3, x_range_s[1] * 1e3], title_text=labels["time_ms"], row=2, col=1)
    fig.add_vline(x=cursor_s * 1e3, line={"color": CURSOR, "width": 2, "dash": "dot"})
    height = min(720, 160 + 9 * len(trace.requests))
    fig.update_layout(title=title, barmode="overlay", height=height, margin={"l": 10, "r": 10, "t": 50, "b": 40},
                      legend={"orientation": "h", "y": 1.08, "x": 0.35}, bargap=0.15)
    return fig


def composition_figure(comp: StepComposition, labels: dict[str, str]) -> go.Figure:
    """The current step's tokens (decode, prefill) against the budget."""
    fig = go.Figure()
    fig.add_trace(go.Bar(orientation="h", y=[""], x=[comp.decode_tokens], name=labels["decode"],
                         marker={"color": DECODE}, text=[comp.decode_tokens], textposition="inside"))
    fig.add_trace(go.Bar(orientation="h", y=[""], x=[comp.prefill_tokens], name=labels["prefill"],
                         marker={"color": PREFILL}, text=[comp.prefill_tokens], textposition="inside"))
    fig.add_vline(x=comp.budget_tokens, line={"color": CURSOR, "width": 2},
                  annotation_text=labels["budget"], annotation_position="top")
    fig.update_layout(barmode="stack", height=150, margin={"l": 10, "r": 10, "t": 30, "b": 30},
                      xaxis={"range": [0, comp.budget_tokens * 1.1], "title": labels["tokens"]},
                      legend={"orientation": "h", "y": 1.4}, showlegend=True)
    return fig
