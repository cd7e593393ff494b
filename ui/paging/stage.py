"""The page-replacement stage element (key `paging_stage`): every rule stepped over the reference string in the
browser; the server sends the data once per setting (chunkviz/lessons/paging_stage.py) and reruns only when a
setting changes or the stage asks for Belady's string.

Invariant: the same setting and language give the same `version`, so a rerun keeps the browser's cursor; the
cursor lives in the URL as pr_step (the page's old step parameter), so old links still open at their step.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from chunkviz.lessons.paging_stage import stage_data
from ui.components.stage_player import mount as stage_component
from ui.i18n import current_lang
from ui.paging.export import KEY, URL_PARAM, payload_of

_mount = stage_component.register("chunkviz_paging_stage", Path(__file__).resolve().parent)


@st.cache_data(max_entries=32, show_spinner=False)
def _core(refs: tuple[int, ...], frames: int, alg: str, bit: bool, tie: str) -> dict:
    return stage_data(refs, frames, alg, clock_ref_bit_on_load=bit, lfu_tie_break=tie)


def payload(refs: tuple[int, ...], frames: int, alg: str, bit: bool, tie: str, lang: str) -> dict:
    """Everything the stage draws for this setting, in `lang` (without the start cursor)."""
    return payload_of(_core(refs, frames, alg, bit, tie), lang)


def render(refs: tuple[int, ...], frames: int, alg: str, bit: bool, tie: str, on_load_preset) -> dict:
    """Mount the stage; `on_load_preset` runs (before the next script run) when its Belady button asks for the
    preset string. Returns the data mounted (the page's "Download this view" writes exactly that)."""
    data = dict(payload(refs, frames, alg, bit, tie, current_lang()))
    data["start"] = stage_component.start_cursor(URL_PARAM, len(refs) + 1)
    _mount(data=data, key=KEY, height="content", on_load_preset_change=on_load_preset)
    return data
