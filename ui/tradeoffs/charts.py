"""Plotly figures for the trade-offs page: metrics against the budget, the latency–throughput frontier, classes.

Invariant: pure functions of a SweepResult and the page's choices; every point drawn is a swept point (nothing is
interpolated), the budget axis is logarithmic, and the current setting is drawn the same way in every figure.
"""

from __future__ import annotations

import math
from typing import Callable, Sequence

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from chunkviz.request import PRIORITY_BATCH, PRIORITY_INTERACTIVE
from chunkviz.analysis.sweep import ClassPoint, SweepPoint, SweepResult, pareto_frontier
from ui.palette import CACHED, CURSOR, DECODE, PREEMPTED, PREFILL

LOAD_COLORS = {0.5: "#76B7B2", 1.0: DECODE, 2.0: PREFILL, 4.0: PREEMPTED}
MONO = "#79706E"
# Log axes ticked at powers of two (dtick is in log10 units): readable where decade ticks would be too sparse.
LOG_DOUBLING = {"type": "log", "dtick": math.log10(2), "tick0": 0, "tickfont": {"size": 10}}
# (label key, value of a point, log y) for the panels against the budget
PANELS: tuple[tuple[str, Callable[[SweepPoint], float | None], bool], ...] = (
    ("ttft_p50", lambda p: _ms(p.ttft_p50_s), True),
    ("ttft_p99", lambda p: _ms(p.ttft_p99_s), True),
    ("tbt_p99", lambda p: _ms(p.tbt_p99_s), True),
    ("throughput", lambda p: p.throughput_output_tokens_per_s, False),
    ("goodput", lambda p: p.goodput_requests_per_s, False),
    ("within", lambda p: None if p.slo_attainment is None else 100 * p.slo_attainment, False),
)


def _ms(v: float | None) -> float | None:
    return None if v is None else v * 1e3


def budget_tick(budget: int) -> str:
    return f"{budget // 1024}k" if budget >= 1024 and budget % 1024 == 0 else str(budget)


def _point_texts(pts: Sequence[SweepPoint], latency_key: str) -> list[str]:
    """Budget labels; budgets that land on the same spot (say 8k and 16k when no prompt needs more) share one."""
    spots: dict[tuple, list[str]] = {}
    for p in pts:
        spots.setdefault((getattr(p, latency_key), p.throughput_output_tokens_per_s), []).append(
            budget_tick(p.budget_tokens or 0))
    texts, seen = [], set()
    for p in pts:
        spot = (getattr(p, latency_key), p.throughput_output_tokens_per_s)
        texts.append("" if spot in seen else "=".join(spots[spot]))
        seen.add(spot)
    return texts


def _colour(load: float) -> str:
    return LOAD_COLORS.get(load, "#59A14F")


def _vlines(budget: int, num_panels: int) -> list[dict]:
    # Passed at once (never add_shape in a loop); plotly.js 4 places shapes on a log axis by data value.
    suffixes = [""] + [str(i) for i in range(2, num_panels + 1)]  # axes are x, x2, x3, …
    return [{"type": "line", "xref": f"x{s}", "yref": f"y{s} domain", "x0": budget, "x1": budget, "y0": 0, "y1": 1,
             "line": {"color": CURSOR, "width": 1.5, "dash": "dot"}} for s in suffixes]


def _budget_axes(fig: go.Figure, budgets: Sequence[int], title: str, bottom_row: int) -> None:
    fig.update_xaxes(type="log", tickvals=list(budgets), ticktext=[budget_tick(b) for b in budgets],
                     tickfont={"size": 10})
    fig.update_xaxes(title_text=title, title_font={"size": 11}, row=bottom_row)


def _ring(size: int) -> dict:
    return {"size": size, "color": "rgba(0,0,0,0)", "line": {"color": CURSOR, "width": 2.5}}


def budget_figure(result: SweepResult, current_budget: int, load_names: dict[float, str],
                  labels: dict[str, str]) -> go.Figure:
    """Six panels against the budget, one line per load, the monolithic baseline dashed, the current setting ringed."""
    fig = make_subplots(rows=2, cols=3, subplot_titles=[labels[k] for k, _, _ in PANELS], horizontal_spacing=0.07,
                        vertical_spacing=0.16)
    lo, hi = min(result.budgets_tokens), max(result.budgets_tokens)
    for n, (_, value, log_y) in enumerate(PANELS):
        row, col = n // 3 + 1, n % 3 + 1
        for load in result.load_multipliers:
            pts, c, first = result.chunked(load), _colour(load), n == 0
            fig.add_trace(go.Scatter(x=[p.budget_tokens for p in pts], y=[value(p) for p in pts],
                                     mode="lines+markers", line={"color": c}, name=load_names[load],
                                     legendgroup=f"l{load}", showlegend=first,
                                     hovertemplate="%{x} " + labels["tokens"] + ": %{y:,.1f}<extra></extra>"), row=row, col=col)
            cur = [p for p in pts if p.budget_tokens == current_budget]
            fig.add_trace(go.Scatter(x=[current_budget] * len(cur), y=[value(p) for p in cur], mode="markers",
                                     marker=_ring(14), name=labels["current"], legendgroup="cur",
                                     showlegend=first and load == result.load_multipliers[0], hoverinfo="skip"),
                          row=row, col=col)
            mono = result.baseline(load)
            if mono is not None and value(mono) is not None:
                fig.add_trace(go.Scatter(x=[lo, hi], y=[value(mono)] * 2, mode="lines",
                                         line={"color": c, "dash": "dash", "width": 1.5}, opacity=0.7,
                                         name=labels["mono"], legendgroup="mono",
                                         showlegend=first and load == result.load_multipliers[0],
                                         hovertemplate=labels["mono"] + ": %{y:,.1f}<extra></extra>"), row=row, col=col)
        if log_y:
            fig.update_yaxes(LOG_DOUBLING, row=row, col=col)
    _budget_axes(fig, result.budgets_tokens, labels["budget_tokens"], 2)
    fig.update_layout(height=580, margin={"l": 10, "r": 10, "t": 60, "b": 30}, shapes=_vlines(current_budget, 6),
                      legend={"orientation": "h", "y": 1.13, "x": 0})
    return fig


def frontier_figure(result: SweepResult, latency_key: str, current_budget: int, load_names: dict[float, str],
                    labels: dict[str, str]) -> go.Figure:
    """Throughput against latency: every budget a dot, the non-dominated ones joined, monolithic as a cross."""
    fig = go.Figure()
    for load in result.load_multipliers:
        pts, c = [p for p in result.chunked(load) if getattr(p, latency_key) is not None], _colour(load)
        fig.add_trace(go.Scatter(
            x=[_ms(getattr(p, latency_key)) for p in pts], y=[p.throughput_output_tokens_per_s for p in pts],
            mode="markers+text", text=_point_texts(pts, latency_key), textposition="top center",
            textfont={"size": 10}, marker={"color": c, "size": 9}, name=load_names[load],
            customdata=[budget_tick(p.budget_tokens or 0) for p in pts],
            hovertemplate="%{customdata} " + labels["tokens"] + ": %{x:,.1f} " + labels["ms"] + ", %{y:,.0f} "
                          + labels["tok_s"] + "<extra></extra>"))
        mono = result.baseline(load)
        # The baseline is a setting too: it belongs on the frontier when nothing chunked beats it.
        front = pareto_frontier([*pts, *([mono] if mono is not None else [])], latency_key)
        fig.add_trace(go.Scatter(x=[_ms(getattr(p, latency_key)) for p in front],
                                 y=[p.throughput_output_tokens_per_s for p in front], mode="lines",
                                 line={"color": c, "width": 2, "shape": "hv"}, opacity=0.6,
                                 name=f"{labels['frontier']} ({load_names[load]})", hoverinfo="skip"))
        cur = [p for p in pts if p.budget_tokens == current_budget]
        fig.add_trace(go.Scatter(
            x=[_ms(getattr(p, latency_key)) for p in cur], y=[p.throughput_output_tokens_per_s for p in cur],
            mode="markers", marker=_ring(18), name=labels["current"], legendgroup="cur",
            showlegend=load == result.load_multipliers[0], hoverinfo="skip"))
        if mono is not None and getattr(mono, latency_key) is not None:
            fig.add_trace(go.Scatter(
                x=[_ms(getattr(mono, latency_key))], y=[mono.throughput_output_tokens_per_s], mode="markers+text",
                text=[labels["mono_short"]], textposition="bottom center", textfont={"size": 10, "color": c},
                marker={"symbol": "x", "size": 13, "color": c, "line": {"color": MONO, "width": 1}},
                name=labels["mono"], legendgroup="mono", showlegend=load == result.load_multipliers[0],
                hovertemplate=labels["mono"] + ": %{x:,.1f} ms, %{y:,.0f} tok/s<extra></extra>"))
    fig.update_xaxes(LOG_DOUBLING, title_text=f"{labels[latency_key]} ({labels['ms_log']})")
    fig.update_yaxes(title_text=labels["tok_s"])
    fig.update_layout(height=460, margin={"l": 10, "r": 10, "t": 30, "b": 40},
                      legend={"orientation": "h", "y": -0.18, "x": 0})
    return fig


def class_figure(result: SweepResult, best: dict[tuple[int, float], ClassPoint | None],
                 load_names: dict[float, str], labels: dict[str, str]) -> go.Figure:
    """Chats (share within targets, worst gap) and batch (throughput) against the budget, best budgets starred."""
    panels: tuple[tuple[str, int, Callable[[ClassPoint], float | None]], ...] = (
        ("chat_within", PRIORITY_INTERACTIVE, lambda c: None if c.slo_attainment is None else 100 * c.slo_attainment),
        ("chat_gap", PRIORITY_INTERACTIVE, lambda c: _ms(c.worst_tbt_p99_s)),
        ("batch_thr", PRIORITY_BATCH, lambda c: c.throughput_tokens_per_s),
    )
    fig = make_subplots(rows=1, cols=3, subplot_titles=[labels[k] for k, _, _ in panels], horizontal_spacing=0.07)
    for n, (_, priority, value) in enumerate(panels):
        for load in result.load_multipliers:
            pts = [c for c in result.class_points
                   if c.priority == priority and c.load_multiplier == load and c.budget_tokens is not None]
            fig.add_trace(go.Scatter(x=[c.budget_tokens for c in pts], y=[value(c) for c in pts],
                                     mode="lines+markers", line={"color": _colour(load)}, name=load_names[load],
                                     legendgroup=f"l{load}", showlegend=n == 0,
                                     hovertemplate="%{x} " + labels["tokens"] + ": %{y:,.1f}<extra></extra>"), row=1, col=n + 1)
            chosen = best.get((priority, load))
            if chosen is not None and value(chosen) is not None:
                fig.add_trace(go.Scatter(x=[chosen.budget_tokens], y=[value(chosen)], mode="markers",
                                         marker={"symbol": "star", "size": 16, "color": CACHED,
                                                 "line": {"color": "#333333", "width": 1}},
                                         name=labels["best"], legendgroup="best",
                                         showlegend=n == 0 and load == result.load_multipliers[0],
                                         hoverinfo="skip"), row=1, col=n + 1)
    fig.update_yaxes(LOG_DOUBLING, row=1, col=2)
    _budget_axes(fig, result.budgets_tokens, labels["budget_tokens"], 1)
    fig.update_layout(height=360, margin={"l": 10, "r": 10, "t": 50, "b": 30},
                      legend={"orientation": "h", "y": -0.15, "x": 0})
    return fig
