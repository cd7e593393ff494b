"""Plotly figures for the lecture's lessons: GPU work per step, compute- vs memory-bound time per step, and the
per-class budget sweep (the lane chart lives in chapter_charts_lanes).

Invariant: pure functions of lesson data; every number drawn comes from chunkviz.lessons.
"""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from chunkviz.lessons.budgets import BudgetPoint, ClassSlo
from chunkviz.lessons.utilisation import StepUtil
from ui.fmt import deciding
from ui.palette import CURSOR, DECODE, MIXED, PREFILL, WAITING


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
    # One y range for every engine: the flat road must look flat next to the roller coaster's peaks.
    top_ms = 1.05 * max(u.duration_s * 1e3 for utils in panels.values() for u in utils)
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
        fig.update_yaxes(title_text=labels["step_ms"], range=[0, top_ms], row=row, col=1, secondary_y=False)
        fig.update_yaxes(title_text=labels["mfu"], range=[0, 1], tickformat=".0%", row=row, col=1, secondary_y=True)
    fig.update_layout(barmode="stack", bargap=0, height=220 * len(panels) + 60,
                      margin={"l": 10, "r": 10, "t": 40, "b": 30}, legend={"orientation": "h", "y": -0.12})
    return fig


def budget_figure(points: tuple[BudgetPoint, ...], slo: ClassSlo, labels: dict[str, str],
                  height_px: int = 300) -> go.Figure:
    """Chats' TBT p99 and documents' TTFT p50 against the budget, each with its SLO line; green = meets both.

    No label covers another or the line: the SLO's value is in its panel's title (`labels`: chapter 6's
    chx.budget.panel; an "SLO" tag on the line sat on the first bar's value), and each bar writes its value inside its top while the dashed line runs behind the bars (written
    above the bars, the line crossed "18", "259" and "257")."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=[labels["chat"], labels["doc"]], horizontal_spacing=0.12)
    x = [str(p.budget_tokens) for p in points]
    colors = [MIXED if p.meets_both else CURSOR for p in points]
    for col, values, limit in ((1, [p.chat_tbt_p99_s * 1e3 for p in points], slo.chat_tbt_p99_s * 1e3),
                               (2, [p.doc_ttft_p50_s * 1e3 for p in points], slo.doc_ttft_p50_s * 1e3)):
        fig.add_trace(go.Bar(x=x, y=values, marker={"color": colors}, showlegend=False,
                             text=[deciding(v, limit) for v in values], textposition="inside",
                             insidetextanchor="end", textangle=0, constraintext="none"), row=1, col=col)
        fig.add_hline(y=limit, line={"color": CURSOR, "dash": "dash"}, layer="below", row=1, col=col)
        fig.update_xaxes(title_text=labels["axis"], type="category", row=1, col=col)
    fig.update_layout(height=height_px, margin={"l": 10, "r": 10, "t": 40, "b": 30})
    return fig
