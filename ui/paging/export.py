"""The page-replacement stage's payload (what ui/paging/stage.js draws for one setting, in one language) and its
offline HTML file, without Streamlit.

Invariant: streamlit-free (the CLI's export-html reaches it through ui/components/offline/writer.py); /replacement
mounts exactly
`payload(...)` plus its start position, and its "Download this view" button writes that same dict into the file.
Offline there is no server to load Belady's string, so that one bookmark is hidden (the anomaly bookmark of a
string that has one works as in the app).
"""

from __future__ import annotations

from pathlib import Path

from chunkviz.lessons.paging_stage import stage_data
from ui import palette
from ui.components.stage_player import mount as stage_component
from ui.i18n import tr
from ui.components.offline.writer import Component, StartParam, page_html
from ui.paging.charts import KIND_COLORS
from ui.paging.text_stage import TEXTS

KEY = "paging_stage"
URL_PARAM = "pr_step"
# Cell colours: the paging charts' meanings (charts.KIND_COLORS), all from the one palette.
COLOURS = {**KIND_COLORS, "cursor": palette.CURSOR, "hit_text": palette.MIXED, "fault_text": palette.STALL}
_WING = Path(__file__).resolve().parent
COMPONENT = Component(stage_component.parts(_WING), "chunkviz_paging_stage", KEY,
                      offline_css=".marks .belady-load { display: none; }")
START = StartParam(URL_PARAM, "start")


def payload_of(core: dict, lang: str) -> dict:
    """The stage's data for `core` (chunkviz/lessons/paging_stage.py stage_data), in `lang`, without the start."""
    text = {key.removeprefix("ps."): tr(key, lang) for key in TEXTS}
    data = {**core, "text": text, "colours": COLOURS, "url_param": URL_PARAM,
            "speeds": list(stage_component.SPEEDS_STEPS_PER_S), "default_speed": stage_component.DEFAULT_SPEED}
    return stage_component.with_version(data)


def caption(refs: tuple[int, ...], frames: int, alg: str, lang: str) -> str:
    colon = "：" if lang == "zh" else ": "
    return " · ".join((tr("pr.refs", lang) + colon + " ".join(map(str, refs)),
                       f"{tr('pr.frames', lang)}{colon}{frames}", tr(f"pr.alg.{alg}", lang)))


def html_for(data: dict, lang: str, text: str = "") -> str:
    """The offline file of a mounted payload (payload_of's dict with its start)."""
    return page_html(COMPONENT, data, lang, tr("pr.title", lang), text, START)


def offline_html(lang: str, refs: tuple[int, ...], frames: int, alg: str, bit: bool = True,
                 tie: str = "fifo") -> str:
    """The offline file for a reference string run with `frames` frames, `alg` selected, opening at the start."""
    core = stage_data(refs, frames, alg, clock_ref_bit_on_load=bit, lfu_tie_break=tie)
    return html_for({**payload_of(core, lang), "start": 0}, lang, caption(refs, frames, alg, lang))
