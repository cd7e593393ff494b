"""The comparison element: several engines' runs in one timeline component, plus lecture mode.

Invariant: render_comparison sends a run's drawable data once per (runs, language, mode); the cursor then lives in
the browser (and in the URL as t_ms), so stepping and playing never rerun the script.
"""

from __future__ import annotations

from typing import Sequence

import streamlit as st

from chunkviz.analysis.timeline import union_step_times
from chunkviz.simulator.trace import Trace
from ui.i18n import current_lang, tr
from ui.timeline import data as td
from ui.timeline.export import build_payload, default_cursor_ms
from ui.url_state import float_parser, int_parser


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


def render_comparison(runs: Sequence[tuple[str, Trace]], key: str = "timeline", present: bool = False) -> dict:
    """Draw `runs` (label, trace) on one shared time axis, each engine with its step lane and active requests.

    The element gets the CSS class st-key-<key>; the cursor starts where the page's link says (t_ms or step).
    Returns the data mounted (the page's "Download this view" writes exactly that into the offline file).
    """
    from ui.timeline.component import mount

    data = dict(build_payload(runs, current_lang(), present))
    data["t0_ms"] = start_cursor_ms([t for _, t in runs])
    mount(data, key)
    return data


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
