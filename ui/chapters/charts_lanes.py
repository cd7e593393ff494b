"""The chapters' lane chart: one row of request lanes per engine on a shared time axis, bars cut at the cursor,
and the bookmarks' sentences drawn where they happen.

Invariant: nothing after the cursor is drawn; each note sits in its own engine's row.
"""

from __future__ import annotations

from dataclasses import dataclass

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from chunkviz.analysis.timeline import KINDS, lane_segments
from chunkviz.simulator.trace import Trace
from ui.palette import CURSOR, KIND_COLORS

LANE_PX = 20  # height of one request lane; six lanes and a title fit in about 200 px per engine


@dataclass(frozen=True, slots=True)
class Note:
    """A label drawn on the chart, pointing at (time, lane)."""

    time_s: float
    lane: int
    text: str


@dataclass(frozen=True, slots=True)
class EngineRow:
    title: str
    trace: Trace
    notes: tuple[Note, ...]


def _bars(fig: go.Figure, trace: Trace, cursor_s: float, row: int, labels: dict[str, str]) -> None:
    for kind in KINDS:
        items = [(s, min(s.end_s, cursor_s)) for s in lane_segments(trace) if s.kind == kind and s.start_s < cursor_s]
        if not items:
            continue
        fig.add_trace(go.Bar(
            orientation="h", y=[s.request_id for s, _ in items], base=[s.start_s * 1e3 for s, _ in items],
            x=[max((end - s.start_s) * 1e3, 0.3) for s, end in items], name=labels[kind], legendgroup=kind,
            showlegend=row == 1, marker={"color": KIND_COLORS[kind]}, customdata=[[s.num_tokens] for s, _ in items],
            hovertemplate="R%{y}: %{base:.0f} ms + %{x:.1f} ms, %{customdata[0]} tokens<extra></extra>"),
            row=row, col=1)


def _note(n: Note, row: int, x_max_s: float, big: bool, stack: int = 0) -> dict:
    """A callout; the `stack`-th note of a row sits one line further from its point so notes never overlap."""
    left = n.time_s < 0.55 * x_max_s
    ay = (-18 - 24 * stack) if n.lane >= 2 else (22 + 24 * stack)
    suffix = "" if row == 1 else str(row)
    return {"x": n.time_s * 1e3, "y": n.lane, "xref": f"x{suffix}", "yref": f"y{suffix}", "text": f"<b>{n.text}</b>",
            # Callouts on the top lanes point up from below so they never cover the engine's title.
            "showarrow": True, "arrowhead": 2, "arrowcolor": CURSOR, "ax": 30 if left else -30,
            "ay": ay,
            "xanchor": "left" if left else "right", "bgcolor": "rgba(255,255,255,0.92)", "bordercolor": CURSOR,
            "borderpad": 3, "font": {"size": 15 if big else 13, "color": "#1f1f1f"}}


def lanes_figure(rows: tuple[EngineRow, ...], cursor_s: float, x_max_s: float, labels: dict[str, str],
                 big: bool = False) -> go.Figure:
    """One subplot per engine (same x axis), lanes R0…Rn, the cursor as a dotted line, notes as callouts."""
    num = max(len(r.trace.requests) for r in rows)
    lane_px = LANE_PX if num <= 8 else 11
    fig = make_subplots(rows=len(rows), cols=1, shared_xaxes=True, vertical_spacing=0.09 if len(rows) > 1 else 0,
                        subplot_titles=[r.title for r in rows])
    for i, r in enumerate(rows, start=1):
        _bars(fig, r.trace, cursor_s, i, labels)
        ticks = list(range(0, len(r.trace.requests), 1 if num <= 8 else 4))
        fig.update_yaxes(range=[len(r.trace.requests) - 0.5, -0.5], tickvals=ticks, ticktext=[f"R{j}" for j in ticks],
                         row=i, col=1, tickfont={"size": 13 if big else 11})
        fig.add_vline(x=cursor_s * 1e3, line={"color": CURSOR, "width": 2, "dash": "dot"}, row=i, col=1)
    # Milliseconds on the ticks instead of an axis title: the legend gets the row under the last engine.
    fig.update_xaxes(range=[0, x_max_s * 1e3], tickfont={"size": 14 if big else 11}, ticksuffix=" ms")
    fig.update_annotations(font={"size": 14 if big else 12}, xanchor="left", x=0)  # subplot titles, left-aligned
    notes = [_note(n, i, x_max_s, big, k) for i, r in enumerate(rows, start=1) for k, n in enumerate(r.notes)]
    plot_px = len(rows) * (num * lane_px + 40)
    fig.update_layout(
        barmode="overlay", bargap=0.2, height=plot_px + 86,
        margin={"l": 8, "r": 8, "t": 26, "b": 60}, annotations=list(fig.layout.annotations) + notes,
        legend={"orientation": "h", "y": -30 / plot_px, "x": 1.0, "xanchor": "right", "yanchor": "top",
                "font": {"size": 12}, "bgcolor": "rgba(0,0,0,0)"})
    return fig
