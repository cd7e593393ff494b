"""The lane view every chapter opens with: per engine, a one-line metric summary, the request lanes with the
bookmarks' labels drawn on them, and the chat windows typing along with the cursor.

Invariant: a label appears only once the cursor has passed its event, so a prediction is never given away.
"""

from __future__ import annotations

from chunkviz.analysis.metrics import summarize
from chunkviz.lessons.chapters import Bookmark, Chapter, bookmarks
from chunkviz.simulator.trace import Trace
from ui.chapters.charts_lanes import EngineRow, Note, lanes_figure
from ui.chapters.chat import chat_windows
from ui.chapters.common import Cursor, chapter_chart, engine_label, is_present, predict_then_reveal
from ui.i18n import current_lang, t
from ui.offline import view_html
from ui.offline_download import download_view
from ui.page_common import lane_labels


def label_for(mark: Bookmark, trace: Trace) -> str:
    """The sentence drawn at a bookmark, e.g. "R4: 6,806-token prompt, 159 ms; 4 chats frozen"."""
    k, rid, ms, frozen = mark.kind, mark.request_id, mark.duration_ms, mark.num_frozen
    if k == "long_prefill":
        if mark.num_tokens == mark.prompt_tokens:
            return t("chx.lbl.whole_prompt", rid=rid, tokens=mark.prompt_tokens, ms=ms, frozen=frozen)
        return t("chx.lbl.first_chunk", rid=rid, chunk=mark.num_tokens, tokens=mark.prompt_tokens, ms=ms,
                 frozen=frozen)
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


def notes_for(trace: Trace, kinds: tuple[str, ...], cursor_s: float) -> tuple[Note, ...]:
    out, seen_steps = [], set()
    for mark in bookmarks(trace, kinds):
        if mark.end_s <= cursor_s and mark.step_index not in seen_steps:  # one label per step: the first kind wins
            seen_steps.add(mark.step_index)
            lane = mark.request_id if mark.request_id is not None else 0
            out.append(Note((mark.start_s + mark.end_s) / 2, lane, label_for(mark, trace)))
    return tuple(out)


def view_end_s(cursor_s: float, makespan_s: float, min_view_s: float = 0.3) -> float:
    """The right edge of the lane chart: half as far again as the cursor (at least 300 ms, at most the run), so
    the moment being taught fills the width instead of a corner of the whole run."""
    return min(makespan_s, max(min_view_s, 1.5 * cursor_s))


def metrics_line(trace: Trace) -> str:
    m = summarize(trace)
    def ms(v: float | None) -> float:
        return float("nan") if v is None else v * 1e3
    return t("chx.metrics", ttft=ms(m.ttft_s.p50), tbt=ms(m.tbt_s.p99), gap=ms(m.tbt_s.max),
             thr=m.throughput_output_tokens_per_s)


def draw_lanes(ch: Chapter, traces: dict[str, Trace], cur: Cursor, chats: bool = True) -> None:
    """All engines of the chapter in one lane chart on one time axis, the chapter's question, then each engine's
    chat windows and the note that the chapter's preset replaces the sidebar's scenario."""
    import streamlit as st

    x_max_s = view_end_s(cur.time_s, max(tr.makespan_s for tr in traces.values()))
    rows = tuple(EngineRow(f"<b>{engine_label(p)}</b> — {metrics_line(tr)}", tr,
                           notes_for(tr, ch.bookmarks, cur.time_s)) for p, tr in traces.items())
    fig = lanes_figure(rows, cur.time_s, x_max_s, lane_labels(), big=is_present())
    chapter_chart(f"c{ch.number}_lanes", fig, traces, cur.time_s)
    predict_then_reveal(ch, traces, cur)  # under the chart, whose key step it holds back until answered
    if chats:
        for policy, trace in traces.items():
            chat_windows(trace, cur.time_s, engine_label(policy))
    preset = t("chx.preset_note", preset=t(f"chx.preset.{ch.preset}"))
    st.caption(t("chx.cursor", ms=cur.time_s * 1e3) + " · " + preset)
    download_lanes(ch, traces, cur)


def download_lanes(ch: Chapter, traces: dict[str, Trace], cur: Cursor) -> None:
    """"Download this view": the chapter's engines in the timeline component, opening at the chapter's cursor."""
    runs = [(engine_label(p), tr) for p, tr in traces.items()]
    lang = current_lang()
    download_view(lambda: view_html("timeline", lang, runs=runs, t0_ms=cur.time_s * 1e3),
                  f"chunkviz-chapter-{ch.number}", f"c{ch.number}_dl_view")
