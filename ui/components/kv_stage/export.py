"""The KV stage's payload (what ui/components/kv_stage/kv_stage.js draws for one run, in one language) and its offline
HTML file,
without Streamlit; shared by /kv and chapter 4 (a chapter may not import the kv wing).

Invariant: streamlit-free (the CLI's export-html reaches it through ui/components/offline/writer.py and the kv wing's
`export`
module); /kv and chapter 4 mount exactly `build_payload(...)` plus their start step, and their "Download this view"
buttons write that same dict into the file.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from chunkviz.lessons.kv_stage import CHANGE_KINDS
from chunkviz.lessons.kv_stage_data import JUMP_KINDS, stage_columns
from chunkviz.simulator.trace import Trace
from ui import palette
from ui.components.stage_player import mount as stage_component
from ui.i18n import pair_of, tr
from ui.components.offline.writer import Component, StartParam, page_html

KEY = "kv_stage"
URL_PARAM = "kv_step"  # the old per-step page's parameter: old links still open on their step
SPEEDS = (("steps", 2), ("steps", 5), ("steps", 20), ("steps", 60), ("sim", 0.1), ("sim", 1.0))
DEFAULT_SPEED = 1  # 5 steps/s: slow enough to read the caption of each step
_TEXT_KEYS = ("first", "prev", "next", "last", "play", "pause", "speed_help", "step_of", "at_ms", "scrub", "jump",
              "jump_none", "keys", "grid_title", "grid_note", "free_title", "free_none", "tables_title", "tables_none",
              "table_n", "spark", "tip", "tip_owner", "tip_free", "tip_cached", "tip_filled", "tip_queue",
              "tip_changed", "seq", "seq_sample", "blank", "ord_1", "ord_2", "ord_3", "ord_n", "focus_gap",
              "focus_others")
_CAPTIONS = ("none", "hit", "cow", "evict", "evict_nofor", "fork", "alloc", "free", "free_rejected", "preempt",
             "cached", "kept", "more")
# (id(trace), lang, eviction) -> (trace, data); holding the trace keeps its id from being reused while cached.
_MEMO: dict[tuple, tuple[Trace, dict]] = {}


def _ink(hex_colour: str) -> str:
    """Black or white text on a fill, whichever contrasts more (WCAG relative luminance, threshold 0.18)."""
    lin = [(c / 255) / 12.92 if c <= 10 else ((c / 255 + 0.055) / 1.055) ** 2.4
           for c in (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))]
    return "#111111" if 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2] > 0.18 else "#FFFFFF"


def _texts(lang: str, eviction: str) -> dict[str, str]:
    # A counted text's singular twin (kvs.<key>_one, "1 block") travels beside it; kv_stage.js picks it when n is 1.
    texts = {k: tr(f"kvs.{k}", lang) for k in _TEXT_KEYS + tuple(f"{k}_one" for k in _TEXT_KEYS)
             if pair_of(f"kvs.{k}")}
    texts.update({f"c_{k}": tr(f"kvs.c.{k}", lang) for k in _CAPTIONS + tuple(f"{k}_one" for k in _CAPTIONS)
                  if pair_of(f"kvs.c.{k}")})
    texts.update({f"k_{k}": tr(f"kvs.k.{k}", lang) for k in CHANGE_KINDS})
    texts.update({f"j_{k}": tr(f"kvs.jump.{k}", lang) for k in JUMP_KINDS})
    texts["rule"] = tr(f"kv.evict.{eviction}", lang)
    return texts


def _speeds(lang: str) -> list[dict]:
    return [{"kind": kind, "rate": v, "label": tr("kvs.speed_steps", lang, n=v)} if kind == "steps" else
            {"kind": kind, "factor": v, "label": tr("kvs.speed_sim", lang, x=v)} for kind, v in SPEEDS]


def version_of(data: dict) -> str:
    """A hash of everything drawn (the browser rebuilds only when it changes)."""
    drawn = {k: v for k, v in data.items() if k != "version"}
    return hashlib.sha256(json.dumps(drawn, sort_keys=True).encode()).hexdigest()[:16]


def build_payload(trace: Trace, lang: str, eviction: str) -> dict:
    """Everything the stage draws for this run, without the start cursor."""
    key = (id(trace), lang, eviction)
    if key in _MEMO:
        return _MEMO[key][1]
    colours = list(palette.REQUEST_COLORS)
    data = {**stage_columns(trace), "change_kinds": list(CHANGE_KINDS), "jump_kinds": list(JUMP_KINDS),
            "text": _texts(lang, eviction), "speeds": _speeds(lang), "default_speed": DEFAULT_SPEED,
            "owner_colours": colours, "owner_ink": [_ink(c) for c in colours],
            "change_colours": [palette.KV_CHANGE_COLORS[k] for k in CHANGE_KINDS],
            "free_colour": palette.FREE, "cached_colour": palette.CACHED, "cached_ink": _ink(palette.CACHED),
            "cursor_colour": palette.CURSOR, "url_param": URL_PARAM, "lang": lang}
    data["version"] = version_of(data)
    if len(_MEMO) > 16:
        _MEMO.clear()
    _MEMO[key] = (trace, data)
    return data


COMPONENT = Component(stage_component.parts(Path(__file__).resolve().parent, "kv_stage"), "chunkviz_kv_stage", KEY)
START = StartParam(URL_PARAM, "step0")


def html_for(data: dict, lang: str, caption: str = "", title: str = "") -> str:
    """The offline file of a mounted payload (build_payload's dict with its step0), titled `title` (else /kv's)."""
    return page_html(COMPONENT, data, lang, title or tr("kv.title", lang), caption, START)
