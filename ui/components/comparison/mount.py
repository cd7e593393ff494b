"""The comparison element, shared by `/` and the lecture chapters: several engines' runs in one browser-side
component (ui/components/comparison/comparison.{js,css}) on one time axis.

Invariant: render_comparison sends a run's drawable data once per (runs, language, mode, extras); the cursor then
lives in the browser (and in the URL as t_ms), so stepping and playing never rerun the script. A page adds its own
drawables (the chapters' notes, chat windows, clicker stops) as `extras`, plain JSON built by its wing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import streamlit as st

from chunkviz.analysis.timeline import union_step_times
from chunkviz.simulator.trace import Trace
from ui.components.comparison import data as td
from ui.components.loader import register
from ui.components.comparison.export import build_payload, default_cursor_ms, version_of
from ui.i18n import current_lang
from ui.runs import COLLECTOR_PAUSE
from ui.url_state import float_parser, int_parser

NAME = "chunkviz_timeline"
_mount = register(NAME, Path(__file__).resolve().parent, "comparison")


def start_cursor_ms(traces: Sequence[Trace]) -> float:
    """The cursor a link asks for: ?t_ms=…, or the old ?step=… (a position on the merged step grid)."""
    from ui.url_state import report_error

    raw_t, raw_step = st.query_params.get(td.URL_PARAM), st.query_params.get("step")
    try:
        if raw_t is not None:
            return float_parser(0.0, 1e9)(raw_t)
        if raw_step is not None:
            times = union_step_times(*traces)
            index = int_parser(0, 10_000_000)(raw_step)
            return times[min(index, len(times) - 1)] * 1e3 if times else 0.0
    except ValueError as exc:
        report_error(f"{td.URL_PARAM if raw_t is not None else 'step'}="
                     f"{(raw_t if raw_t is not None else raw_step)[:40]!r}: {exc}")
    return default_cursor_ms(traces)  # no link: the first engine's first teaching moment


def render_comparison(runs: Sequence[tuple[str, Trace]], key: str = "timeline", present: bool = False,
                      extras: dict | None = None, start_ms: float | None = None) -> dict:
    """Draw `runs` (label, trace) on one shared time axis, each engine with its step lane and active requests.

    The element gets the CSS class st-key-<key>; the cursor starts at `start_ms`, else where the page's link says
    (t_ms or step). `extras` (JSON) adds to or overrides the payload: see the keys read in
    ui/components/comparison/comparison.js.
    Returns the data mounted (the page's "Download this view" writes exactly that into the offline file).
    """
    with COLLECTOR_PAUSE:  # a payload's build makes ~10^5 short-lived objects: no collector pass over the cached
        data = dict(build_payload(runs, current_lang(), present))  # runs meanwhile (ui/runs.py, issue 37)
    if extras:
        data.update(extras)
        data["version"] = version_of({"base": data["version"], "extras": extras})
    data["t0_ms"] = start_ms if start_ms is not None else start_cursor_ms([t for _, t in runs])
    _mount(data=data, key=key, height="content")
    return data
