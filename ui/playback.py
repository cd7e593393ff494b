"""Step playback shared by every page: prev/next (arrow keys), a slider bound to the URL, play/pause, jumps.

Invariant: the cursor lives in st.session_state[key], is always within [0, num_positions - 1], and is changed only
in callbacks (before the slider is drawn) or by the play timer, never after the slider exists in a run.
"""

from __future__ import annotations

import time
from typing import Callable

import streamlit as st

from ui import url_state
from ui.i18n import t

SPEEDS = (0.5, 1.0, 2.0, 4.0)


def clamp_cursor(key: str, num_positions: int) -> int:
    value = st.session_state.get(key, 0)
    try:
        value = int(value)
    except (TypeError, ValueError):
        value = 0
    value = min(max(value, 0), max(num_positions - 1, 0))
    st.session_state[key] = value
    return value


def _move(key: str, delta: int, num_positions: int) -> None:
    st.session_state[key] = min(max(int(st.session_state.get(key, 0)) + delta, 0), num_positions - 1)


def _jump(key: str, target: int | None) -> None:
    if target is not None:
        st.session_state[key] = target


def playback(key: str, num_positions: int, jumps: dict[str, Callable[[int], int | None]] | None = None) -> int:
    """Draw the controls and return the cursor. `jumps` maps a label to a function cursor -> next position."""
    if num_positions <= 1:
        st.session_state[key] = 0
        return 0
    url_state.seed(key, 0, url_state.int_parser(0, 10_000_000))
    clamp_cursor(key, num_positions)
    _autoplay(key, num_positions)  # before the slider: an inline tick may still move the cursor legally
    # Wide enough for "◀ 上一步" plus the shortcut badge at 1280 px beside the sidebar (no truncated label).
    cols = st.columns([1.8, 1.8, 4.4, 1.2, 1.6], vertical_alignment="bottom")
    cols[0].button(t("play.prev"), key=f"{key}_prev", on_click=_move, args=(key, -1, num_positions),
                   shortcut="Left")
    cols[1].button(t("play.next"), key=f"{key}_next", on_click=_move, args=(key, 1, num_positions),
                   shortcut="Right")
    cols[2].slider(t("play.step"), 0, num_positions - 1, key=key)
    url_state.publish(key)
    cols[3].toggle(t("play.play"), key=f"{key}_playing")
    cols[4].select_slider(t("play.speed"), SPEEDS, value=1.0, key=f"{key}_speed")
    if jumps:
        jump_cols = st.columns(len(jumps) + 1)
        for col, (label, finder) in zip(jump_cols, jumps.items()):
            target = finder(st.session_state[key])
            col.button(t("play.jump", what=label), key=f"{key}_jump_{label}", on_click=_jump, args=(key, target),
                       disabled=target is None)
        jump_cols[-1].caption(t("play.keys"))
    return int(st.session_state[key])


def _autoplay(key: str, num_positions: int) -> None:
    """Advance one step per tick while playing; a timer-driven fragment run then reruns the whole page."""
    playing = bool(st.session_state.get(f"{key}_playing"))
    speed = float(st.session_state.get(f"{key}_speed", 1.0))
    interval_s = 1.0 / speed
    inline_flag = f"{key}_inline"

    @st.fragment(run_every=interval_s if playing else None)
    def _tick() -> None:
        now = time.monotonic()
        # Wall time gates the ticks so the full rerun a tick triggers does not advance a second time.
        if (st.session_state.get(f"{key}_playing") and st.session_state[key] < num_positions - 1
                and now - st.session_state.get(f"{key}_last_tick", 0.0) >= 0.8 * interval_s):
            st.session_state[f"{key}_last_tick"] = now
            st.session_state[key] += 1
            if not st.session_state.get(inline_flag):
                st.rerun()

    st.session_state[inline_flag] = True
    _tick()
    st.session_state[inline_flag] = False
