"""Lecture mode: one flag for the whole session, set by ?present=1 (or the toggle on `/`), cleared by ?present=0 or
the toggle, and written back into every page's URL while it is on.

Invariant: the flag lives in st.session_state[FLAG] and nowhere else; every page (app.py calls `lecture_on` before
the page runs) sees the same value, so moving between `/` and the chapters keeps lecture mode until it is turned off.
"""

from __future__ import annotations

import streamlit as st

FLAG = "_lecture"
_SEEN = "_lecture_url"  # the ?present= value last read or written, so only a new one changes the flag


def _parse(raw: str | None) -> bool | None:
    """?present= as a flag: 1/true on, 0/false off, anything else ignored (reported by the caller)."""
    return {"1": True, "true": True, "0": False, "false": False}.get(raw or "")


def lecture_on() -> bool:
    """Read ?present= once per change, keep it for the session, and keep the URL saying so while it is on."""
    from ui.url_state import report_error

    raw = st.query_params.get("present")
    if raw != st.session_state.get(_SEEN):  # a new value in the URL (a link, or typed): it wins over the session's
        flag = _parse(raw)
        if raw is not None and flag is None:
            report_error(f"present={raw[:40]!r}: must be 1 or 0")
        if flag is not None:
            st.session_state[FLAG] = flag
    _mirror(bool(st.session_state.get(FLAG, False)))
    return bool(st.session_state.get(FLAG, False))


def _mirror(on: bool) -> None:
    """Keep the URL saying what the session says (st.navigation drops the query string between pages)."""
    if on and st.query_params.get("present") != "1":
        st.query_params["present"] = "1"
    elif not on and "present" in st.query_params:
        del st.query_params["present"]
    st.session_state[_SEEN] = "1" if on else None


def _toggled() -> None:
    st.session_state[FLAG] = bool(st.session_state["present"])


def lecture_toggle(label: str, help_text: str) -> bool:
    """The switch on `/`: shows and changes the session's flag."""
    st.session_state["present"] = bool(st.session_state.get(FLAG, False))
    st.toggle(label, key="present", help=help_text, on_change=_toggled)
    on = bool(st.session_state.get(FLAG, False))
    _mirror(on)
    return on


LECTURE_CSS = """<style>
  .block-container, [data-testid="stMainBlockContainer"] {padding-top: 2.6rem !important;
    padding-bottom: 1rem !important;}
  [data-testid="stHeader"] {height: 2rem; min-height: 2rem;}
  [data-testid="stMainBlockContainer"] h1 {font-size: 1.6rem !important; padding: 0 0 .2rem 0 !important;}
  [data-testid="stMainBlockContainer"] p, [data-testid="stMainBlockContainer"] li,
  [data-testid="stMainBlockContainer"] label, [data-testid="stMainBlockContainer"] td,
  [data-testid="stMainBlockContainer"] th, [data-testid="stCaptionContainer"] {font-size: 17px !important;}
  /* Markdown code (flags such as `--enable-mixed-chunk` in a question's options) is set at 0.85em by Streamlit:
     16 px at least, like every other text on a slide. */
  [data-testid="stMainBlockContainer"] code {font-size: 16px !important;}
  /* What a teacher points at grows, never shrinks: the rule above sets every paragraph to 17 px, st.metric's
     value (a paragraph inside stMetricValue, 36 px by Streamlit) included; it keeps 36 px. (No angle brackets in
     this block: st.html's sanitizer drops a style whose text holds a tag.) */
  [data-testid="stMainBlockContainer"] [data-testid="stMetricValue"],
  [data-testid="stMainBlockContainer"] [data-testid="stMetricValue"] * {font-size: 2.25rem !important; line-height: 1.25;}
  [data-testid="stMultiSelectTagsContainer"] span {font-size: 16px !important;}
</style>"""


def lecture_css() -> None:
    """Lecture mode's look, for every page: sidebar collapsed (» opens it), less padding, text ≥ 16 px."""
    st.html(LECTURE_CSS)
