"""The comparison element, shared by `/` and the lecture chapters: several engines' runs in one browser-side
component (ui/comparison.{js,css}) on one time axis.

Invariant: render_comparison sends a run's drawable data once per (runs, language, mode, extras); the cursor then
lives in the browser (and in the URL as t_ms), so stepping and playing never rerun the script. A page adds its own
drawables (the chapters' notes, chat windows, clicker stops) as `extras`, plain JSON built by its wing.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Sequence

import streamlit as st

from chunkviz.analysis.bookmarks import find_bookmarks
from chunkviz.analysis.metrics import summarize
from chunkviz.analysis.timeline import union_step_times
from chunkviz.simulator.trace import Trace
from ui import comparison_data as td
from ui import palette
from ui.component import register
from ui.i18n import current_lang, tr
from ui.url_state import float_parser, int_parser

NAME = "chunkviz_timeline"
_mount = register(NAME, Path(__file__).resolve().parent, "comparison")
_JS_TEXTS = ("first", "prev", "next", "last", "play", "pause", "follow", "follow_help", "time", "time_ms",
             "cursor", "no_step", "step_of", "step_idle", "steps", "tip_step", "tip_seg", "tip_tokens",
             "tip_decodes", "kind_prefill", "kind_decode", "kind_mixed", "blank", "clicker")
_CARDS = ("metric.ttft_p50", "metric.ttft_p99", "metric.tbt_p50", "metric.tbt_p99", "metric.throughput")
# (trace ids, labels, lang, present) -> (traces, payload). Holding the traces keeps their ids from being reused by
# new objects while the entry lives, so an id-based key cannot alias another run.
_MEMO: dict[tuple, tuple[tuple[Trace, ...], dict]] = {}


def _texts(lang: str) -> dict[str, str]:
    texts = {k: tr(f"tlv.{k}", lang) for k in _JS_TEXTS}
    texts.update({f"lbl_{k}": tr(f"lbl.{k}", lang) for k in ("waiting", "prefill", "decode", "stall", "preempted")})
    return texts


def _speeds(lang: str) -> list[dict]:
    return [{"kind": kind, "factor": v, "label": tr("tlv.speed_sim", lang, x=v)} if kind == "sim" else
            {"kind": kind, "rate": v, "label": tr("tlv.speed_steps", lang, n=v)} for kind, v in td.SPEEDS]


def _legend(lang: str) -> list[tuple[str, str]]:
    kinds = [(tr(f"lbl.{k}", lang), palette.KIND_COLORS[k]) for k in ("waiting", "prefill", "decode", "stall",
                                                                       "preempted")]
    return kinds + [(tr("tlv.mixed", lang), palette.MIXED), (tr("tlv.cursor_legend", lang), palette.CURSOR)]


def build_payload(runs: Sequence[tuple[str, Trace]], lang: str, present: bool) -> dict:
    """Everything the component draws for these runs (without the start cursor)."""
    key = (tuple(id(t) for _, t in runs), tuple(label for label, _ in runs), lang, present)
    if key in _MEMO:
        return _MEMO[key][1]
    bound = lambda k, **f: tr(k, lang, **f)  # noqa: E731 (an i18n lookup bound to the language)
    metrics = [summarize(t) for _, t in runs]
    engines = [td.engine_payload(bound, lang, td.TAGS[i], label, trace, m, metrics[0] if i else None)
               for i, ((label, trace), m) in enumerate(zip(runs, metrics))]
    traces = [t for _, t in runs]
    data = {"engines": engines, "grid_ms": td.grid_ms(traces),
            "end_ms": max((t.makespan_s for t in traces), default=0.0) * 1e3,
            "bookmarks": td.bookmark_items(bound, runs), "text": _texts(lang), "speeds": _speeds(lang),
            "default_speed": td.DEFAULT_SPEED, "legend": _legend(lang), "card_labels": [tr(k, lang) for k in _CARDS],
            "colours": {**palette.KIND_COLORS, "mixed": palette.MIXED, "cursor": palette.CURSOR},
            "window_ms": td.WINDOW_MS, "present": present, "url_param": td.URL_PARAM,
            # Lecture mode: every text drawn on the canvas is at least 16 px (a projector at the back of a room).
            "font_px": 18 if present else 14, "tick_px": 16 if present else 12, "gutter_px": 50 if present else 46,
            "lane_max_px": 18 if present else 14, "height_px": 300 if present else 470}
    data["version"] = _version(data)
    if len(_MEMO) > 16:
        _MEMO.clear()
    _MEMO[key] = (tuple(traces), data)
    return data


def _version(data: dict) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]


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
    # No link: open on the first engine's first teaching moment, so the lesson is drawn on arrival.
    marks = [b for b in (find_bookmarks(traces[0]) if traces else ())]
    return marks[0].end_s * 1e3 if marks else 0.0


def render_comparison(runs: Sequence[tuple[str, Trace]], key: str = "timeline", present: bool = False,
                      extras: dict | None = None, start_ms: float | None = None) -> None:
    """Draw `runs` (label, trace) on one shared time axis, each engine with its step lane and active requests.

    The element gets the CSS class st-key-<key>; the cursor starts at `start_ms`, else where the page's link says
    (t_ms or step). `extras` (JSON) adds to or overrides the payload: see the keys read in ui/comparison.js.
    """
    data = dict(build_payload(runs, current_lang(), present))
    if extras:
        data.update(extras)
        data["version"] = _version({"base": data["version"], "extras": extras})
    data["t0_ms"] = start_ms if start_ms is not None else start_cursor_ms([t for _, t in runs])
    _mount(data=data, key=key, height="content")
