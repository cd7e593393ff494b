"""Chat windows: a few simulated chat boxes per engine that type their tokens as the cursor moves, so a stall is
frozen text the whole room can see; first token and the latest gap are labelled.

Invariant: a box shows exactly the tokens the trace says were emitted at or before the cursor (server-side HTML).
"""

from __future__ import annotations

import html

import numpy as np
import streamlit as st

from chunkviz.simulator.trace import RequestResult, Trace
from ui.i18n import current_lang, t
from ui.palette import CURSOR, DECODE, WAITING

MAX_WORDS_SHOWN = 14


def _words(request_id: int, count: int) -> str:
    vocab = t("chx.words").split()
    shown = [vocab[(request_id * 7 + i) % len(vocab)] for i in range(max(0, count - MAX_WORDS_SHOWN), count)]
    joiner = "" if current_lang() == "zh" else " "
    return ("… " if count > MAX_WORDS_SHOWN else "") + joiner.join(shown)


def _prefilled(trace: Trace, request_id: int, cursor_s: float) -> int:
    return sum(c.num_tokens for s in trace.steps if s.start_s + s.duration_s <= cursor_s
               for c in s.chunks if c.request_id == request_id and c.phase == "prefill")


def frozen_after_s(trace: Trace) -> float:
    """A chat counts as frozen once its gap exceeds 3× the run's median token gap (a few decode steps)."""
    return 3.0 * float(np.median(trace.tbt_gaps_s)) if trace.tbt_gaps_s else 0.05


def box_state(trace: Trace, r: RequestResult, cursor_s: float) -> tuple[str, str, bool]:
    """(typed text, status line, frozen?) of request r at the cursor."""
    if r.arrival_s > cursor_s:
        return "", t("chx.chat.not_arrived"), False
    times = [x for x in (r.token_times_s or ((),))[0] if x <= cursor_s]
    if not times:
        done = _prefilled(trace, r.request_id, cursor_s)
        status = (t("chx.chat.reading", done=done, total=r.prompt_tokens) if done else
                  t("chx.chat.queued", ms=(cursor_s - r.arrival_s) * 1e3))
        return "", status, False
    parts = [t("chx.chat.first", ms=(r.first_token_s - r.arrival_s) * 1e3)]
    if len(times) >= r.output_tokens:
        return _words(r.request_id, len(times)), t("chx.chat.done", n=len(times)), False
    since = cursor_s - times[-1]
    frozen = since > frozen_after_s(trace)
    if frozen:
        parts.append(t("chx.chat.frozen", ms=since * 1e3))
    elif len(times) >= 2:
        parts.append(t("chx.chat.gap", ms=(times[-1] - times[-2]) * 1e3))
    return _words(r.request_id, len(times)), " · ".join(parts), frozen


def _box_html(request_id: int, text: str, status: str, frozen: bool) -> str:
    border = CURSOR if frozen else DECODE
    text_color = WAITING if frozen else "inherit"
    return (f'<div class="chx-chat" style="border:2px solid {border};border-radius:8px;padding:6px 8px;'
            f'height:96px;overflow:hidden;font-size:13px;line-height:1.3">'
            f'<div style="font-weight:700">R{request_id}</div>'
            f'<div style="color:{text_color};height:36px;overflow:hidden">{html.escape(text)}<span>▌</span></div>'
            f'<div style="font-size:12px;color:{CURSOR if frozen else "inherit"}">{html.escape(status)}</div></div>')


def shown_requests(trace: Trace, max_boxes: int) -> tuple[RequestResult, ...]:
    """The longest prompt (the document) and the first other requests, in id order: the stall and its victims."""
    longest = max(trace.requests, key=lambda r: (r.prompt_tokens, -r.request_id))
    others = [r for r in trace.requests if r is not longest][: max_boxes - 1]
    return tuple(sorted(others + [longest], key=lambda r: r.request_id))


def chat_windows(trace: Trace, cursor_s: float, engine: str, max_boxes: int = 4) -> None:
    """One row of chat boxes: the engine's name, then the document and the first chats typing at the cursor."""
    st.markdown(f"**{t('chx.chat.title', engine=engine)}**")
    for col, r in zip(st.columns(max_boxes), shown_requests(trace, max_boxes)):
        text, status, frozen = box_state(trace, r, cursor_s)
        col.markdown(_box_html(r.request_id, text, status, frozen), unsafe_allow_html=True)
