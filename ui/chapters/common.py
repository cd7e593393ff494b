"""Glue every lecture chapter shares: header with Previous/Next, the preset's traces, the cursor with bookmarks,
predict-then-reveal, and `chapter_chart`, the one function through which chapters draw their charts.

Invariant: a chapter opens on its key bookmark with the step not yet drawn; only an answer to its question (or the
learner moving the cursor) reveals the step, and the answer is checked against the simulator's, never a constant.
"""

from __future__ import annotations

from dataclasses import dataclass

import plotly.graph_objects as go
import streamlit as st

from chunkviz.analysis.timeline import union_step_times
from chunkviz.lessons import chapters as lessons
from chunkviz.lessons.chapters import Bookmark, Chapter
from chunkviz.lessons.predictions import prediction
from chunkviz.simulator.trace import Trace
from ui.i18n import t
from ui.playback import playback
from ui.runs import trace_or_error

ROLES = {lessons.STATIC: "static", lessons.PREFILL_FIRST: "prefill_first", lessons.DECODE_FIRST: "decode_first",
         lessons.SGLANG_DEFAULT: "sglang", lessons.VLLM_NOCHUNK: "vllm_nochunk", lessons.TRTLLM: "trtllm"}


def page_file(ch: Chapter) -> str:
    """pages/ch1_kitchen.py for slug ch1-kitchen (the url path keeps the hyphens, so the two differ: app.py needs
    that)."""
    return f"pages/{ch.slug.replace('-', '_')}.py"


def nav_label(ch: Chapter) -> str:
    return f"{ch.number} · {t(f'chx.title.{ch.number}')}"


def engine_label(policy: str) -> str:
    return t(f"chx.role.{ROLES.get(policy, 'decode_first')}")


def is_present() -> bool:
    """Lecture mode: larger type on the chapters' charts, lesson text folded. Set by ?present=1 (or cleared by
    ?present=0) and kept for the session, because moving to the next chapter drops the query string."""
    flag = st.query_params.get("present")
    if flag in ("0", "1"):
        st.session_state["_chx_present"] = flag == "1"
    return bool(st.session_state.get("_chx_present", False))


# Chapters are projected: less padding above the title and a smaller h1, so the chart starts within 720 px; the
# Previous/Next links look like buttons (the next one filled, as the way forward).
_COMPACT_CSS = """<style>
[data-testid="stMainBlockContainer"] {padding-top: 2.2rem; padding-bottom: 2rem}
[data-testid="stMainBlockContainer"] h1 {font-size: 1.85rem; padding: 0 0 0.2rem 0}
[class*="st-key-ch_prev"] a, [class*="st-key-ch_next"] a {border: 1px solid rgba(128,128,128,0.45);
  border-radius: 0.5rem; justify-content: center}
[class*="st-key-ch_next"] a, [class*="st-key-ch_next"] a:hover {background: #E15759 !important; border-color: #E15759}
[class*="st-key-ch_next"] a:hover {filter: brightness(0.9)}
[class*="st-key-ch_next"] a p {color: white !important}
</style>"""


def _nav_links(ch: Chapter, where: str, container=None) -> None:
    """Previous/Next as real links (client-side navigation keeps the session's language; lecture mode travels in
    the query string)."""
    prev, nxt = lessons.neighbours(ch.number)
    cols = (container or st).columns(2)
    query = {"present": "1"} if is_present() else None
    for col, other, side in ((cols[0], prev, "prev"), (cols[1], nxt, "next")):
        if other is not None:
            title = t(f"chx.title.{other.number}")
            # The top row is narrow: "Chapter 3 ▶" with the title as a tooltip; the bottom row has room for it.
            text = t(f"chx.{side}_short" if where == "top" else f"chx.{side}", n=other.number, title=title)
            with col.container(key=f"ch_{side}_{where}"):
                st.page_link(page_file(other), label=text, help=title, width="stretch", query_params=query)


def header(number: int) -> Chapter:
    """Title, the one-line "what you will see" beside Previous/Next (the preset note goes under the chart)."""
    ch = lessons.chapter(number)
    st.html(_COMPACT_CSS)
    st.title(nav_label(ch))
    left, right = st.columns([3, 2], vertical_alignment="center")
    left.markdown(t("chx.see", see=t(f"chx.see.{number}")))
    _nav_links(ch, "top", right)
    return ch


def lesson(text: str) -> None:
    """The chapter's lesson text: folded away in lecture mode (the teacher tells it), open otherwise."""
    with st.expander(t("chx.lesson"), expanded=not is_present()):
        st.markdown(text)


def footer(ch: Chapter) -> None:
    st.divider()
    _nav_links(ch, "bottom")


def chapter_traces(ch: Chapter, policies: tuple[str, ...] | None = None) -> dict[str, Trace]:
    """The chapter's preset run by each of its engines (cached); stops the page with a message if one cannot run."""
    out = {}
    for policy in policies or ch.policies:
        trace = trace_or_error(lessons.scenario_for(ch, policy))
        if trace is None:
            st.stop()
        out[policy] = trace
    return out


@dataclass(frozen=True, slots=True)
class Cursor:
    time_s: float
    marks: tuple[Bookmark, ...]  # of the chapter's first engine
    key_mark: Bookmark | None


def _grid(traces: dict[str, Trace]) -> tuple[float, ...]:
    """Step starts of every engine plus each run's end: a cursor at a step's start shows nothing of that step."""
    ends = {round(tr.makespan_s, 12) for tr in traces.values()}
    return tuple(sorted(set(union_step_times(*traces.values())) | ends))


def _index_at(grid: tuple[float, ...], time_s: float) -> int:
    return min(range(len(grid)), key=lambda i: abs(grid[i] - time_s))


def _jump(key: str, target: int) -> None:
    st.session_state[key] = target


def cursor(ch: Chapter, traces: dict[str, Trace]) -> Cursor:
    """Playback over all engines' steps, opening on the key bookmark's start; bookmark buttons jump to their ends."""
    first = traces[ch.policies[0]]
    marks = lessons.bookmarks(first, ch.bookmarks)
    grid = _grid(traces)
    key = f"c{ch.number}_step"
    key_mark = marks[0] if marks else None
    if key_mark is not None:
        st.session_state.setdefault(key, _index_at(grid, key_mark.start_s))
    index = playback(key, len(grid))
    cols = st.columns([1.2] + [2] * len(marks) + [max(0.1, 6 - 2 * len(marks))], vertical_alignment="center")
    cols[0].markdown(f"**{t('chx.bookmarks')}**")
    for col, m in zip(cols[1:], marks):
        col.button(t("chx.jump", what=t(f"chx.bm.{m.kind}")), key=f"c{ch.number}_bm_{m.kind}", on_click=_jump,
                   args=(key, _index_at(grid, m.end_s)), width="stretch")
    return Cursor(grid[index] + 1e-9, marks, key_mark)


def _reveal(key: str, target: int) -> None:
    st.session_state[key] = target


def predict_then_reveal(ch: Chapter, traces: dict[str, Trace], cur: Cursor) -> None:
    """The chapter's question; answering moves the cursor past the key step and checks the simulator's answer."""
    p = prediction(ch.number)
    grid = _grid(traces)
    reveal = lessons.find_bookmark(traces[ch.policies[0]], ch.reveal_kind)
    target = _index_at(grid, reveal.end_s) if reveal is not None else len(grid) - 1
    fmt = {k: v for k, v in p.figures}
    with st.container(border=True, key=f"c{ch.number}_predict"):
        st.markdown(f"**{t('chx.pred.title')}** · {t(f'chx.q.{ch.number}')}")
        lang_labels = {o: t(f"chx.o.{ch.number}.{o}") for o in p.option_ids}
        answer = st.radio(t("chx.pred.title"), p.option_ids, index=None, horizontal=True, key=f"c{ch.number}_pred",
                          format_func=lang_labels.get, label_visibility="collapsed",
                          on_change=_reveal, args=(f"c{ch.number}_step", target))
        if answer is None:
            st.caption(t("chx.pred.hold"))
            return
        if answer == p.correct_option:
            st.success(t("chx.pred.right") + " " + t(f"chx.a.{ch.number}", **fmt))
        else:
            st.error(t("chx.pred.wrong", answer=lang_labels[p.correct_option]) + " " + t(f"chx.a.{ch.number}", **fmt))


def chapter_chart(key: str, figure: go.Figure, traces: dict[str, Trace] | None = None,
                  cursor_s: float | None = None) -> None:
    """Every chapter chart goes through here (Plotly today). `traces` and `cursor_s` are what a browser-side
    timeline component needs, so it can replace the Plotly figure for the lane charts without touching pages."""
    if is_present():
        figure.update_layout(font={"size": 16})
    st.plotly_chart(figure, width="stretch", key=key, config={"displayModeBar": False})
