"""Plotly figure and tables for the seed-article page: the toy's TTFT per request, as it counts it and from arrival.

Invariant: pure functions of a SeedDemoReport; the printed table keeps the article's own number formats (%d, %.1f).
"""

from __future__ import annotations

import plotly.graph_objects as go

from chunkviz.lessons.seed_demo import SeedDemoReport, SeedRunResult
from ui.palette import DECODE, PREFILL


def printed_rows(report: SeedDemoReport, labels: dict[str, str]) -> list[dict[str, str]]:
    """mode, total steps, mean TTFT, "P95" TTFT, formatted as the article's print statements do."""
    return [{labels["mode"]: labels[run.mode], labels["steps"]: "%d" % run.total_steps,
             labels["mean"]: "%.1f" % run.mean_ttft_toy, labels["p95_toy"]: "%.1f" % run.p95_ttft_toy}
            for run in (report.monolithic, report.chunked)]


def corrected_rows(report: SeedDemoReport, labels: dict[str, str]) -> list[dict[str, str]]:
    """The same runs with TTFT from arrival and a nearest-rank P95."""
    return [{labels["mode"]: labels[run.mode], labels["mean_arr"]: "%.1f" % run.mean_ttft_from_arrival,
             labels["p95_arr"]: "%.1f" % run.p95_ttft_proper}
            for run in (report.monolithic, report.chunked)]


def _waits(run: SeedRunResult) -> list[int]:
    return [t - a for t, a in zip(run.ttft_abs_steps, run.arrive_steps, strict=True)]


def ttft_figure(report: SeedDemoReport, labels: dict[str, str]) -> go.Figure:
    """Bars: each request's wait from arrival; markers: the absolute step the toy records as its TTFT."""
    mono, chunked = report.monolithic, report.chunked
    ids = list(range(report.num_requests))
    fig = go.Figure()
    for run, colour, wait_key, abs_key in ((mono, DECODE, "wait_mono", "abs_mono"),
                                           (chunked, PREFILL, "wait_chunked", "abs_chunked")):
        custom = [[p] for p in run.prompt_tokens]
        fig.add_trace(go.Bar(x=ids, y=_waits(run), name=labels[wait_key], marker={"color": colour},
                             customdata=custom, hovertemplate="R%{x}: %{y} · %{customdata[0]} "
                             + labels["prompt"] + "<extra></extra>"))
        fig.add_trace(go.Scatter(x=ids, y=list(run.ttft_abs_steps), name=labels[abs_key], mode="markers",
                                 marker={"color": colour, "symbol": "line-ew-open", "size": 12,
                                         "line": {"width": 3, "color": colour}},
                                 hovertemplate="R%{x}: %{y}<extra></extra>"))
    fig.update_layout(title=labels["title"], barmode="group", height=420, bargap=0.2,
                      xaxis={"title": labels["request"], "dtick": max(1, report.num_requests // 20)},
                      yaxis={"title": labels["steps"], "rangemode": "tozero"},
                      margin={"l": 10, "r": 10, "t": 50, "b": 10},
                      legend={"orientation": "h", "y": -0.2, "yanchor": "top"})
    return fig
