"""The slide of every chapter but 3 and 4 (those draw the attention and KV stages, ui/chapters/stages.py): its
engines' lanes in the shared comparison component (ui/components/comparison/mount.py), with the bookmarks' sentences
drawn once the
cursor passes them and the chat windows typing along, all in the browser; then the chapter's question.

Invariant: a label appears only once the cursor has passed its event, and until the question is answered the
cursor cannot pass the key bookmark's start (the component's hold), so a prediction is never given away.
"""

from __future__ import annotations

from typing import Callable

import streamlit as st

from chunkviz.analysis.metrics import summarize
from chunkviz.lessons.chapters import (LECTURE_BUDGET_TOKENS, PRESETS, Bookmark, Chapter, bookmarks, find_bookmark,
                                       long_request_id)
from chunkviz.simulator.trace import Trace
from ui.chapters.answers import count
from ui.chapters.chat import chat_payload, shown_requests, stalled_ids
from ui.chapters.kitchen import kitchen_payload
from ui.chapters.common import engine_label, engine_line, is_present, predict_then_reveal
from ui.components.comparison.mount import render_comparison
from ui.components.comparison.export import html_for
from ui.i18n import current_lang, t
from ui.components.offline.download import download_view

_CHAT_KEYS = ("not_arrived", "reading", "queued", "first", "gap", "frozen", "done")
_KITCHEN_KEYS = ("map", "colon", "stove", "idle", "cook", "plus", "plus_one", "for", "plates", "plates_one",
                 "no_dish", "fridge", "blocks", "holds", "ticket", "dishes", "dish_one", "dish_none", "st_not_arrived",
                 "st_waiting", "st_cooking", "st_served", "st_frozen", "st_done")


def label_for(mark: Bookmark, trace: Trace) -> str:
    """The sentence drawn at a bookmark, e.g. "R4: 6,806-token prompt, 159 ms; 4 chats frozen"."""
    k, rid, ms, frozen = mark.kind, mark.request_id, mark.duration_ms, mark.num_frozen
    if k == "long_prefill":
        if mark.num_tokens == mark.prompt_tokens:
            return t("chx.lbl.whole_prompt", rid=rid, tokens=mark.prompt_tokens, ms=ms, frozen=count("chats", frozen))
        return t("chx.lbl.first_chunk", rid=rid, chunk=mark.num_tokens, tokens=mark.prompt_tokens, ms=ms,
                 frozen=count("chats", frozen))
    if k == "long_last_chunk":
        return t("chx.lbl.last_chunk", rid=rid, chunk=mark.num_tokens, cached=mark.prompt_tokens - mark.num_tokens)
    if k == "long_first_token":
        r = next(r for r in trace.requests if r.request_id == rid)
        return t("chx.lbl.first_token", rid=rid, ms=(r.first_token_s - r.arrival_s) * 1e3)
    if k == "prefix_hit":
        return t("chx.lbl.prefix_hit", rid=rid, hit=mark.num_tokens, tokens=mark.prompt_tokens)
    if k == "peak_sharing":
        return t("chx.lbl.peak_sharing", blocks=mark.num_tokens, refs=mark.num_frozen)
    if k == "longest_wait":
        return t("chx.lbl.longest_wait", rid=rid, ms=ms)
    return t("chx.lbl.longest_gap", ms=ms, frozen=frozen)


# Labels that count the chats frozen in their step (label_for): each of those chats gets a window on the slide.
_COUNTS_FROZEN = ("long_prefill", "longest_gap")


def named_requests(ch: Chapter, trace: Trace) -> tuple[int, ...]:
    """The requests the engine's labels name (R4, R5) or count ("4 chats frozen"): each needs its chat window."""
    out: set[int] = set()
    for mark in bookmarks(trace, ch.bookmarks):
        if mark.request_id is not None:
            out.add(mark.request_id)
        if mark.kind in _COUNTS_FROZEN and mark.num_frozen:
            out.update(stalled_ids(trace, mark.step_index))
    return tuple(sorted(out))


def notes(ch: Chapter, traces: dict[str, Trace]) -> list[dict]:
    """Every engine's bookmark sentences, shown from the event's end on (one per step: the first kind wins)."""
    out = []
    for eng, trace in enumerate(traces.values()):
        seen = set()
        for mark in bookmarks(trace, ch.bookmarks):
            if mark.step_index in seen:
                continue
            seen.add(mark.step_index)
            out.append({"t_ms": mark.end_s * 1e3, "x_ms": (mark.start_s + mark.end_s) / 2 * 1e3, "eng": eng,
                        "lane": mark.request_id if mark.request_id is not None else 0,
                        "text": label_for(mark, trace)})
    return out


def stops(ch: Chapter, traces: dict[str, Trace]) -> list[dict]:
    """Where PageDown stops: the end of each bookmark of each engine, labelled as the bookmark buttons are, with
    the engine's index (the slide's caption tells that engine's step there)."""
    many = len(traces) > 1
    out = []
    for eng, (tag, (policy, trace)) in enumerate(zip("ABCDEFGH", traces.items())):
        for mark in bookmarks(trace, ch.bookmarks):
            what = t(f"chx.bm.{mark.kind}")
            out.append({"t_ms": mark.end_s * 1e3, "label": f"{tag}: {what}" if many else what,
                        "title": engine_label(policy), "eng": eng})  # eng: whose step the caption tells
    return sorted(out, key=lambda m: m["t_ms"])


def question_fields(ch: Chapter, traces: dict[str, Trace]) -> dict[str, float | int]:
    """The figures a question names, read from the chapter's first run (never typed into the text): the long
    request, its prompt, the budget, the shared system prompt, R1's arrival after R0."""
    first = traces[ch.policies[0]]
    rid = long_request_id(first)
    req = {r.request_id: r for r in first.requests}
    segments = [r.segments or () for r in PRESETS[ch.preset].requests()[:2]]
    same = len(segments) == 2 and all(segments) and segments[0][0] == segments[1][0]
    shared = segments[0][0].num_tokens if same else 0
    return {"rid": rid, "prompt_tokens": req[rid].prompt_tokens, "budget": LECTURE_BUDGET_TOKENS,
            "prefix_tokens": shared, "gap_ms": (req[1].arrival_s - req[0].arrival_s) * 1e3 if 1 in req else 0.0}


def metrics_line(trace: Trace) -> str:
    m = summarize(trace)

    def ms(v: float | None) -> float:
        return float("nan") if v is None else v * 1e3
    return t("chx.metrics", ttft=ms(m.ttft_s.p50), tbt=ms(m.tbt_s.p99), gap=ms(m.tbt_s.max),
             thr=m.throughput_output_tokens_per_s)


def answered(ch: Chapter) -> bool:
    return st.session_state.get(f"c{ch.number}_pred") is not None


def hold_s(mark: Bookmark | None, trace: Trace) -> float | None:
    """Where the question holds the cursor: the key step's start; for a queue wait, the waiting request's arrival
    (at the step's start the lanes would already show the whole wait, which is the answer)."""
    if mark is None:
        return None
    if mark.kind == "longest_wait":
        return next(r.arrival_s for r in trace.requests if r.request_id == mark.request_id)
    return mark.start_s


def lecture_fit(height_px: int) -> dict:
    """Lecture mode: the comparison element shrinks its canvas (to 55 % at most) until the question under it, verdict
    and metric line included, ends inside the window (comparison.js `fit`)."""
    return {"fit_to": ".st-key-predict", "fit_min_px": round(height_px * 0.55)} if is_present() else {}


def slide_extras(ch: Chapter, traces: dict[str, Trace], done: bool, chats: bool = True, kitchen: bool = False,
                 height_px: int | None = None) -> dict:
    """What the chapter adds to the comparison payload: notes, clicker stops, the question's hold (until `done`)
    and the reveal, chat windows (chapter 1: the kitchen instead)."""
    first = traces[ch.policies[0]]
    key, reveal = find_bookmark(first, ch.bookmarks[0]), find_bookmark(first, ch.reveal_kind)
    out = {"slide": True, "notes": notes(ch, traces), "stops": stops(ch, traces), "zoom_ms": 300.0,
           "hold_ms": None if done or key is None else hold_s(key, first) * 1e3,
           # The question's moment stays a clicker stop once answered: PageUp after the reveal returns to it.
           "question_ms": None if key is None else hold_s(key, first) * 1e3,
           "reveal_ms": None if reveal is None else reveal.end_s * 1e3}
    if kitchen:
        # Chapter 1 draws the kitchen instead of chat windows: every table (six requests), the stove, the fridge.
        out["kitchen"] = [kitchen_payload(tr, shown_requests(tr, 6, named_requests(ch, tr))) for tr in traces.values()]
        out["kitchen_text"] = {k: t(f"chx.kit.{k}") for k in _KITCHEN_KEYS}
    elif chats:
        # The document and 3 chats; every request a label names or counts has its window (ch. 2's "4 chats frozen"
        # draws all four).
        out["chats"] = [chat_payload(tr, 4, named=named_requests(ch, tr)) for tr in traces.values()]
        out["chat_text"] = {k: t(f"chx.chat.{k}") for k in _CHAT_KEYS}
        out["chat_text"]["head"] = t("chx.chat.head")
        out["chat_text"]["head_short"] = t("chx.chat.head_short")
        # A 中文 "word" is a character (the text has no spaces between them), an English one is space-separated.
        words = t("chx.words")
        out["chat_words"] = [c for c in words if not c.isspace()] if current_lang() == "zh" else words.split()
        out["chat_joiner"] = "" if current_lang() == "zh" else " "
    # Tall enough for each engine's lanes (and its 2×2 chat windows beside them), short enough that the question
    # under the stage stays inside 720 px (tests/e2e/test_slides_browser.py).
    many_lanes = max(len(tr.requests) for tr in traces.values()) > 8
    one = 270 if kitchen else 300 if many_lanes else 230
    out["height_px"] = height_px or {1: one, 2: 330}.get(len(traces), 360)
    return out | lecture_fit(out["height_px"])


def long_prefill_fields(trace: Trace) -> dict[str, float | int]:
    """Chapter 2's figures from its prefill-first run: the document's whole-prompt step and a typical decode step
    (the median of the decode-only steps), so the text says what the stage draws."""
    mark = find_bookmark(trace, "long_prefill")
    decodes = sorted(s.duration_s for s in trace.steps if all(c.phase == "decode" for c in s.chunks) and s.chunks)
    return {"rid": mark.request_id, "prompt_tokens": mark.prompt_tokens, "prefill_ms": mark.duration_ms,
            "decode_ms": decodes[len(decodes) // 2] * 1e3 if decodes else 0.0, "budget": LECTURE_BUDGET_TOKENS}


def _stage_view(ch: Chapter, answer_view: Callable[[], None] | None) -> str:
    """What the stage shows: "lanes", or, once the question is answered, also (`both`) the chapter's answer view;
    in lecture mode, where both do not fit 1280×720, the lanes stay (chapter 6's budget handle and its verdict are
    the answer on the slide) and a switch opens the answer view instead (`answer`)."""
    if answer_view is None or not answered(ch):
        return "lanes"
    if not is_present():
        return "both"
    view = st.segmented_control(t("chx.view.label"), ("lanes", "answer"), default="lanes", key=f"c{ch.number}_view",
                                format_func=lambda v: t(f"chx.view.{v}"), label_visibility="collapsed")
    return view or "lanes"  # a click on the chosen option deselects it: the lanes stay


def slide(ch: Chapter, traces: dict[str, Trace], chats: bool = True, kitchen: bool = False,
          height_px: int | None = None, answer_view: Callable[[], None] | None = None,
          variants: Callable[[bool, Callable[[dict[str, Trace]], dict]], dict] | None = None) -> None:
    """The chapter's stage (element keyed `stage`): all engines on one time axis, notes and chats in the browser;
    then its question (keyed `predict`). Engine titles carry their metrics only once the question is answered.
    `answer_view` (chapter 6's sweep) draws inside the stage once the question is answered (_stage_view).
    `variants(done, run_extras)` adds runs a handle on the slide switches between (chapter 6's budget:
    ui/chapters/budget_handle.py), each with its own notes and stops."""
    runs = [(engine_label(p), tr) for p, tr in traces.items()]
    first = traces[ch.policies[0]]
    start = hold_s(find_bookmark(first, ch.bookmarks[0]), first)
    linked = "t_ms" in st.query_params  # a shared link's cursor wins over the key bookmark (still held back)
    mounted = None
    with st.container(key="stage"):
        view = _stage_view(ch, answer_view)
        if view != "answer":
            extras = slide_extras(ch, traces, answered(ch), chats, kitchen, height_px)
            if variants is not None:
                extras |= variants(answered(ch), lambda trs: {"notes": notes(ch, trs), "stops": stops(ch, trs)})
            mounted = render_comparison(runs, key=f"c{ch.number}_lanes", present=is_present(), extras=extras,
                                        start_ms=None if start is None or linked else start * 1e3)
        if view in ("answer", "both"):
            answer_view()
    many = len(traces) > 1
    predict_then_reveal(ch, [engine_line(engine_label(p), metrics_line(tr)) if many else metrics_line(tr)
                            for p, tr in traces.items()],
                        question_fields(ch, traces))
    if not is_present():
        st.caption(t("chx.preset_note", preset=t(f"chx.preset.{ch.preset}")))
    # "Download this view" under the question (the slide keeps 1280×720): the very slide, notes and chats included.
    lang = current_lang()
    if mounted is not None:  # (the lanes are drawn)
        download_view(lambda: html_for(mounted, lang), f"chunkviz-chapter-{ch.number}", f"c{ch.number}_dl_view")
