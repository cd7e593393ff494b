"""Glue every lecture chapter shares: header with Previous/Next, the preset's traces, predict-then-reveal, and
`chapter_chart`, the one function through which chapters draw their Plotly charts (the lanes are the shared
comparison component, see ui/chapters/lanes.py).

Invariant: a chapter opens on its key bookmark with the step not yet drawn; only an answer to its question reveals
the step, and the answer is checked against the simulator's, never a constant.
"""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from chunkviz.lessons import chapters as lessons
from chunkviz.lessons.chapters import Chapter
from chunkviz.lessons.predictions import prediction as _core_prediction
from chunkviz.simulator.trace import Trace
from ui.chapters.answers import question_fields, verdict_fields
from ui.i18n import current_lang, t
from ui.lecture import lecture_on
from ui.runs import CACHE_TTL_S, cached_trace, trace_or_error
from ui.components.room.mount import answer_texts, room_question
from ui.plotly_config import chart_config, lecture_fonts


# The core's lru_cache has no lock: a class opening a chapter at once ran its prediction's simulation once per racing
# session (6 of 40 in tests/test_class_sharing.py), and apart from the chapter's own run of the same scenario.
# Streamlit's cache computes a missing value once while the others wait, and the runs go through the shared one.
@st.cache_resource(max_entries=16, ttl=CACHE_TTL_S, show_spinner=False)
def prediction(number: int):
    return _core_prediction(number, cached_trace)

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
    """Lecture mode (ui/lecture.py: one flag for the session, on every page until turned off)."""
    return lecture_on()


# Chapters are projected: less padding above the title and a smaller h1, so the chart starts within 720 px; the
# Previous/Next links look like buttons (the next one filled, as the way forward); a flag named in a question's option
# keeps the option's size (chapter 8's 中文 `--enable-mixed-chunk` was drawn at 12.75 px, under lecture mode's 16).
_COMPACT_CSS = """<style>
[data-testid="stMainBlockContainer"] {padding-top: 2.2rem; padding-bottom: 2rem}
[data-testid="stMainBlockContainer"] h1 {font-size: 1.85rem; padding: 0}
.st-key-ch_see p {margin-bottom: 0}
.st-key-predict code {font-size: 1em}
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
    """Title beside Previous/Next, then the one-line "what you will see" (the preset note goes under the chart)."""
    ch = lessons.chapter(number)
    st.html(_COMPACT_CSS)
    left, right = st.columns([3, 2], vertical_alignment="center")  # one row: a slide's height is precious
    left.title(nav_label(ch))
    _nav_links(ch, "top", right)
    # Lecture mode, once the question is answered, the verdict says what was seen: the "what you will see" line
    # gives its height to the stage, so stage, question, verdict and metric line share the 1280×720 slide.
    if not (is_present() and st.session_state.get(f"c{number}_pred") is not None):
        with st.container(key="ch_see"):
            st.markdown(t("chx.see", see=t(f"chx.see.{number}")))
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


# The metrics each chapter's slide and results use (its question, the chat windows' first token and gaps, the
# results line "TTFT p50 · TBT p99"), defined on the slide as a hover on the question.
CHAPTER_TERMS = {1: ("ttft", "tbt"), 2: ("ttft", "tbt", "pct"), 3: ("ttft", "tbt", "pct"), 4: ("ttft", "tbt", "pct"),
                 5: ("ttft", "tbt", "pct"), 6: ("ttft", "tbt", "pct", "goodput"),
                 7: ("ttft", "tbt", "goodput"), 8: ("ttft", "tbt", "pct"), 9: ("ttft", "tbt", "pct")}


def metric_definitions(number: int) -> str | None:
    """The shared definitions (ui/text_common.py def.*, rendered by ui/page_common.definitions, from the
    words-colours branch) of the chapter's metrics; None until that helper is on this branch."""
    from ui import page_common

    render = getattr(page_common, "definitions", None)
    return render(*CHAPTER_TERMS[number]) if render is not None else None


def sentences(*parts: str) -> str:
    """Sentences one after another: a space between English ones, none after a 中文 full stop ("。 后厨" is a stray
    space)."""
    return ("" if current_lang() == "zh" else " ").join(p for p in parts if p)


def engine_line(engine: str, line: str) -> str:
    """"engine: line" with the language's colon (a full-width one after 中文's full-width bracket)."""
    return t("chx.engine_line", engine=engine, line=line)


# Lecture mode: the answered question (its verdict and the runs' metric line) must sit on the slide under the stage,
# at 1280×720 (tests/e2e/test_reveal_fits_browser.py): the question's box keeps its type (≥ 16 px) and loses padding
# and gaps; the stage above gives up the rest (the comparison element's fit, ui/components/comparison/comparison.js).
_PREDICT_LECTURE_CSS = """<style>
.st-key-predict {padding: .5rem .9rem !important; gap: .4rem !important}
.st-key-predict [data-testid="stAlertContainer"] {padding: .4rem .8rem !important}
.st-key-predict [data-testid="stCaptionContainer"] {line-height: 1.45; margin-bottom: 0 !important}
.st-key-predict [data-testid="stCaptionContainer"] p {margin-bottom: 0}
</style>"""


def predict_then_reveal(ch: Chapter, results: list[str], fields: dict | None = None, held: bool = True) -> None:
    """The chapter's question (element keyed `predict`); answering lifts the stage's hold and moves its cursor past
    the key step (in the browser), checks the simulator's answer, and shows the runs' `results`. A stage with no hold
    (`held` False: chapters 3 and 4) says so instead of promising one. The question, options and verdict are
    written with the prediction's figures and the stage's `fields` (ui/chapters/answers.py)."""
    p = prediction(ch.number)
    fmt = question_fields(ch, p, engine_label, fields or {})
    if is_present():
        st.html(_PREDICT_LECTURE_CSS)
    with st.container(border=True, key="predict"):
        st.markdown(f"**{t('chx.pred.title')}** · {t(f'chx.q.{ch.number}', **fmt)}",
                    help=metric_definitions(ch.number))
        lang_labels = {o: t(f"chx.o.{ch.number}.{o}", **fmt) for o in p.option_ids}
        # In a class room (ui/components/room/): students vote and the teacher's tally replaces the radio.
        in_room = room_question(ch.number, p.option_ids, p.correct_option, lang_labels,
                                answer_texts(f"chx.a.{ch.number}", fmt))
        if in_room == "open":
            return
        if in_room == "revealed":
            st.success(t("room.revealed", answer=lang_labels[p.correct_option]) + " " + t(f"chx.a.{ch.number}", **fmt))
            st.caption(" · ".join(results) if len(results) == 1 else "  \n".join(results))
            return
        left, right = st.columns([5, 2], vertical_alignment="center")
        answer = left.radio(t("chx.pred.title"), p.option_ids, index=None, horizontal=True, key=f"c{ch.number}_pred",
                            format_func=lang_labels.get, label_visibility="collapsed")
        if answer is None:
            right.caption(t("chx.pred.hold" if held else "chx.pred.first"))
            return
        verdict = t(f"chx.a.{ch.number}", **verdict_fields(ch, p, engine_label, fields or {}))
        if answer == p.correct_option:
            st.success(sentences(t("chx.pred.right"), verdict))
        else:
            st.error(sentences(t("chx.pred.wrong", answer=lang_labels[p.correct_option]), verdict))
        st.caption(" · ".join(results) if len(results) == 1 else "  \n".join(results))


def chapter_chart(key: str, figure: go.Figure) -> None:
    """Every chapter's Plotly chart goes through here: lecture mode sets its type, ticks too, to at least 16 px."""
    st.plotly_chart(lecture_fonts(figure, tick_px=16), width="stretch", key=key,
                    config=chart_config(displayModeBar=False))
