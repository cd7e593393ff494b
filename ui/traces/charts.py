"""Plotly figures and the summary table of the real-traces page.

Invariant: pure functions of requests, summaries, metrics and prefix-study results (no Streamlit); every figure has
a bounded number of marks (arrival bins are widened until there are at most MAX_ARRIVAL_BINS).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from chunkviz.analysis.metrics import Metrics
from chunkviz.request import Request
from chunkviz.analysis.trace_summary import PrefixCurve, TokenStats, TraceSummary
from ui.palette import DECODE, MIXED, PREEMPTED, PREFILL, WAITING

# Text keys the page translates (rt.lbl.<key>, rt.row.<key>) and passes in as `labels`.
LABEL_KEYS = ("arrivals", "arrival_rate", "mean_rate", "time_s", "lengths", "prompt_tokens", "output_tokens", "compare",
              "ttft", "tbt", "capacity", "hit_rate", "ceiling", "prefix_title", "requests", "prompt", "output", "blocks",
              "ms")
ROW_KEYS = ("requests", "duration", "rate", "cv", "prompt", "output")
ENGINE_COLORS = {"monolithic": PREFILL, "chunked": DECODE}
POLICY_COLORS = {"fifo": PREFILL, "lru": DECODE, "lfu": MIXED}
MAX_ARRIVAL_BINS = 120
_BIN_SIZES_S = (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600)
_MARGIN = {"l": 10, "r": 10, "t": 50, "b": 40}


def _num(value: float | None, fmt: str, none: str) -> str:
    return none if value is None else format(value, fmt)


def _tokens(stats: TokenStats) -> str:
    return f"{stats.p50:,.0f} / {stats.p90:,.0f} / {stats.p99:,.0f}"


def summary_frame(columns: dict[str, TraceSummary], labels: dict[str, str]) -> pd.DataFrame:
    """One row per statistic, one column per summary (column name -> summary), values as display strings."""
    none = labels["none"]
    rows = {
        labels["requests"]: [f"{s.num_requests:,}" for s in columns.values()],
        labels["duration"]: [f"{s.duration_s:,.1f}" for s in columns.values()],
        labels["rate"]: [_num(s.arrival_rate_per_s, ".2f", none) for s in columns.values()],
        labels["cv"]: [_num(s.burstiness_cv, ".2f", none) for s in columns.values()],
        labels["prompt"]: [_tokens(s.prompt_tokens) for s in columns.values()],
        labels["output"]: [_tokens(s.output_tokens) for s in columns.values()],
    }
    return pd.DataFrame.from_dict(rows, orient="index", columns=list(columns))


def arrival_bin_s(duration_s: float) -> int:
    """The smallest bin width (s) from a fixed list that keeps the histogram within MAX_ARRIVAL_BINS bins."""
    return next((b for b in _BIN_SIZES_S if duration_s / b <= MAX_ARRIVAL_BINS), _BIN_SIZES_S[-1])


def arrivals_figure(requests: Sequence[Request], mean_rate_per_s: float | None, labels: dict[str, str]) -> go.Figure:
    """Requests per second in fixed-width bins over the replayed window, with the mean rate as a line."""
    arrivals_s = np.asarray([r.arrival_s for r in requests], dtype=np.float64)
    bin_s = arrival_bin_s(float(arrivals_s.max()))
    num_bins = int(arrivals_s.max() // bin_s) + 1
    counts = np.bincount((arrivals_s // bin_s).astype(int), minlength=num_bins)
    fig = go.Figure(go.Bar(
        x=(np.arange(num_bins) + 0.5) * bin_s, y=counts / bin_s, width=bin_s * 0.92, marker={"color": DECODE},
        customdata=counts, hovertemplate="%{x:.0f} s: %{customdata} " + labels["requests"] + "<extra></extra>",
        showlegend=False))
    if mean_rate_per_s is not None:  # a legend entry, not an annotation: bars would hide annotation text
        fig.add_trace(go.Scatter(
            x=[0, num_bins * bin_s], y=[mean_rate_per_s] * 2, mode="lines", hoverinfo="skip",
            name=f"{labels['mean_rate']} {mean_rate_per_s:.2f}", line={"color": PREEMPTED, "dash": "dash", "width": 2}))
    fig.update_layout(title=labels["arrivals"].format(bin_s=bin_s), height=300, margin=_MARGIN, bargap=0,
                      legend={"orientation": "h", "y": 1.12, "x": 1, "xanchor": "right"},
                      xaxis={"title": labels["time_s"]}, yaxis={"title": labels["arrival_rate"]})
    return fig


def lengths_figure(requests: Sequence[Request], labels: dict[str, str]) -> go.Figure:
    """Each replayed request as a dot: prompt length (log x) against output length."""
    fig = go.Figure(go.Scatter(
        x=[r.prompt_tokens for r in requests], y=[r.output_tokens for r in requests], mode="markers",
        marker={"color": PREFILL, "size": 7, "opacity": 0.65, "line": {"width": 0.5, "color": "white"}},
        customdata=[r.request_id for r in requests],
        hovertemplate=f"R%{{customdata}}<br>{labels['prompt']}: %{{x}}<br>{labels['output']}: %{{y}}<extra></extra>",
        showlegend=False))
    fig.update_layout(title=labels["lengths"], height=300, margin=_MARGIN,
                      xaxis={"title": labels["prompt_tokens"], "type": "log", "dtick": 1},
                      yaxis={"title": labels["output_tokens"]})
    return fig


def _ms(value: float | None) -> float | None:
    return None if value is None else value * 1e3


def latency_figure(engines: dict[str, tuple[str, Metrics]], labels: dict[str, str]) -> go.Figure:
    """p50 and p99 of TTFT (left) and TBT (right) per engine, in ms; engines maps id -> (display name, metrics)."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=(labels["ttft"], labels["tbt"]), horizontal_spacing=0.1)
    for engine_id, (name, m) in engines.items():
        for col, dist in ((1, m.ttft_s), (2, m.tbt_s)):
            values = [_ms(dist.p50), _ms(dist.p99)]
            fig.add_trace(go.Bar(
                x=["p50", "p99"], y=values, name=name, legendgroup=engine_id, showlegend=col == 1,
                marker={"color": ENGINE_COLORS.get(engine_id, WAITING)}, texttemplate="%{y:.1f}",
                textposition="outside", cliponaxis=False, hovertemplate="%{x}: %{y:.1f} " + labels["ms"] + "<extra>" + name + "</extra>",
            ), row=1, col=col)
    fig.update_layout(title=labels["compare"], barmode="group", height=340, margin={**_MARGIN, "t": 80},
                      legend={"orientation": "h", "y": -0.15, "x": 0})
    fig.update_yaxes(rangemode="tozero")
    return fig


def prefix_figure(curve: PrefixCurve, labels: dict[str, str]) -> go.Figure:
    """Hit rate against cache size, one line per eviction policy, with the unlimited-room ceiling dashed."""
    fig = go.Figure()
    for policy, color in POLICY_COLORS.items():
        results = [r for r in curve.results if r.policy == policy]
        fig.add_trace(go.Scatter(
            x=[r.capacity_blocks for r in results], y=[r.hit_rate for r in results], mode="lines+markers",
            name=policy.upper(), line={"color": color, "width": 2}, marker={"size": 8},
            hovertemplate=f"%{{x:,}} {labels['blocks']}: %{{y:.1%}}<extra>{policy.upper()}</extra>"))
    fig.add_hline(y=curve.ceiling.hit_rate, line={"color": WAITING, "dash": "dash", "width": 2},
                  annotation_text=f"{labels['ceiling']} {curve.ceiling.hit_rate:.1%}",
                  annotation_position="top left")
    top = max(0.05, curve.ceiling.hit_rate * 1.15)
    fig.update_layout(title=labels["prefix_title"], height=360, margin=_MARGIN,
                      xaxis={"title": labels["capacity"], "type": "log", "tickvals": list(curve.capacities_blocks),
                             "ticktext": [f"{c:,}" for c in curve.capacities_blocks]},
                      yaxis={"title": labels["hit_rate"], "tickformat": ".0%", "range": [0, top]},
                      legend={"orientation": "h", "y": 1.12, "x": 0.4})
    return fig
