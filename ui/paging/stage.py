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
from ui import palette, stage_component
from ui.paging.charts import KIND_COLORS
from ui.i18n import current_lang, tr
from ui.paging.text_stage import TEXTS

KEY = "paging_stage"
URL_PARAM = "pr_step"
_mount = stage_component.register("chunkviz_paging_stage", Path(__file__).resolve().parent)
# Cell colours: the paging charts' meanings (charts.KIND_COLORS), all from the one palette.
COLOURS = {**KIND_COLORS, "cursor": palette.CURSOR, "hit_text": palette.MIXED, "fault_text": palette.STALL}


@st.cache_data(max_entries=32, show_spinner=False)
def _core(refs: tuple[int, ...], frames: int, alg: str, bit: bool, tie: str) -> dict:
    return stage_data(refs, frames, alg, clock_ref_bit_on_load=bit, lfu_tie_break=tie)


def payload(refs: tuple[int, ...], frames: int, alg: str, bit: bool, tie: str, lang: str) -> dict:
    """Everything the stage draws for this setting, in `lang` (without the start cursor)."""
    text = {key.removeprefix("ps."): tr(key, lang) for key in TEXTS}
    data = {**_core(refs, frames, alg, bit, tie), "text": text, "colours": COLOURS, "url_param": URL_PARAM,
            "speeds": list(stage_component.SPEEDS_STEPS_PER_S), "default_speed": stage_component.DEFAULT_SPEED}
    return stage_component.with_version(data)


def render(refs: tuple[int, ...], frames: int, alg: str, bit: bool, tie: str, on_load_preset) -> None:
    """Mount the stage; `on_load_preset` runs (before the next script run) when its Belady button asks for the
    preset string."""
    data = dict(payload(refs, frames, alg, bit, tie, current_lang()))
    data["start"] = stage_component.start_cursor(URL_PARAM, len(refs) + 1)
    _mount(data=data, key=KEY, height="content", on_load_preset_change=on_load_preset)
