"""The comparison element: several engines' runs in one timeline component, plus lecture mode.

Invariant: render_comparison sends a run's drawable data once per (runs, language, mode); the cursor then lives in
the browser (and in the URL as t_ms), so stepping and playing never rerun the script.
"""

from __future__ import annotations

import hashlib
import json
from typing import Sequence

import streamlit as st

from chunkviz.analysis.bookmarks import find_bookmarks
from chunkviz.analysis.metrics import summarize
from chunkviz.analysis.timeline import union_step_times
from chunkviz.simulator.trace import Trace
from ui import palette
from ui.timeline import data as td
from ui.i18n import current_lang, tr
from ui.url_state import float_parser, int_parser

_JS_TEXTS = ("first", "prev", "next", "last", "play", "pause", "follow", "follow_help", "time", "time_ms",
             "cursor", "no_step", "step_of", "step_idle", "steps", "tip_step", "tip_seg", "tip_tokens",
             "tip_decodes", "kind_prefill", "kind_decode", "kind_mixed")
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
            "colours": {**palette.KIND_COLORS, "mixed": palette.MIXED, "cursor": palette.CURSOR}, "window_ms": td.WINDOW_MS,
            "present": present, "url_param": td.URL_PARAM, "font_px": 17 if present else 14,
            "tick_px": 15 if present else 12, "gutter_px": 46, "lane_max_px": 14,
            "height_px": 330 if present else 470}
    data["version"] = hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]
    if len(_MEMO) > 16:
        _MEMO.clear()
    _MEMO[key] = (tuple(traces), data)
    return data


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


def render_comparison(runs: Sequence[tuple[str, Trace]], key: str = "timeline", present: bool = False) -> None:
    """Draw `runs` (label, trace) on one shared time axis, each engine with its step lane and active requests.

    The element gets the CSS class st-key-<key>; the cursor starts where the page's link says (t_ms or step).
    """
    from ui.timeline.component import mount

    data = dict(build_payload(runs, current_lang(), present))
    data["t0_ms"] = start_cursor_ms([t for _, t in runs])
    mount(data, key)


def present_mode() -> bool:
    """Lecture mode from ?present=1 or the toggle; kept in the URL."""
    from ui import url_state

    url_state.seed("present", False, lambda raw: _flag(raw))
    on = st.toggle(tr("tlv.present", current_lang()), key="present", help=tr("tlv.present_help", current_lang()))
    if on:
        st.query_params["present"] = "1"
    elif "present" in st.query_params:
        del st.query_params["present"]
    return bool(on)


def _flag(raw: str) -> bool:
    if raw not in ("0", "1", "true", "false"):
        raise ValueError("must be 1 or 0")
    return raw in ("1", "true")


def lecture_css() -> None:
    """Lecture mode: sidebar collapsed (» opens it), less padding, so title, controls, timeline and cards fit
    1280×720."""
    st.set_page_config(initial_sidebar_state="collapsed")
    st.markdown("""<style>
      .block-container, [data-testid="stMainBlockContainer"] {padding-top: 2.2rem; padding-bottom: 1rem;}
      [data-testid="stHeader"] {height: 2rem; min-height: 2rem;}
      h1 {font-size: 1.6rem !important; padding: 0 0 .2rem 0 !important;}
    </style>""", unsafe_allow_html=True)
