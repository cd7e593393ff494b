"""The KV stage: the paged KV cache of one run stepped in the browser (block grid, free queue, block tables and what
changed in each step), registered once at import as a components-v2 element.

Invariant: the run's data (chunkviz/lessons/kv_stage_data.py's deltas, plus texts in one language) is built once
per (trace, language, eviction rule) and carries a `version` that changes exactly when anything drawn changes, so a
rerun that changes no setting sends identical data and the browser keeps its cursor (in the URL as kv_step).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import streamlit as st

from chunkviz.lessons.kv_stage import CHANGE_KINDS
from chunkviz.lessons.kv_stage_data import JUMP_KINDS, stage_columns
from chunkviz.simulator.trace import Trace
from ui import palette
from ui.component import register
from ui.i18n import current_lang, tr
from ui.url_state import int_parser, report_error

NAME = "chunkviz_kv_stage"
KEY = "kv_stage"
URL_PARAM = "kv_step"  # the old per-step page's parameter: old links still open on their step
SPEEDS = (("steps", 2), ("steps", 5), ("steps", 20), ("steps", 60), ("sim", 0.1), ("sim", 1.0))
DEFAULT_SPEED = 1  # 5 steps/s: slow enough to read the caption of each step
_TEXT_KEYS = ("first", "prev", "next", "last", "play", "pause", "speed_help", "step_of", "at_ms", "scrub", "jump",
              "jump_none", "keys", "grid_title", "grid_note", "free_title", "free_none", "tables_title", "tables_none",
              "table_n", "spark", "tip", "tip_owner", "tip_free", "tip_cached", "tip_filled", "tip_queue",
              "tip_changed", "seq", "seq_sample")
_CAPTIONS = ("none", "hit", "cow", "evict", "evict_nofor", "fork", "alloc", "free", "free_rejected", "preempt",
             "cached", "kept", "more")
# (id(trace), lang, eviction) -> (trace, data); holding the trace keeps its id from being reused while cached.
_MEMO: dict[tuple, tuple[Trace, dict]] = {}
_mount = register(NAME, Path(__file__).resolve().parent, "stage")


def _ink(hex_colour: str) -> str:
    """Black or white text on a fill, whichever contrasts more (WCAG relative luminance, threshold 0.18)."""
    lin = [(c / 255) / 12.92 if c <= 10 else ((c / 255 + 0.055) / 1.055) ** 2.4
           for c in (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))]
    return "#111111" if 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2] > 0.18 else "#FFFFFF"


def _texts(lang: str, eviction: str) -> dict[str, str]:
    texts = {k: tr(f"kvs.{k}", lang) for k in _TEXT_KEYS}
    texts.update({f"c_{k}": tr(f"kvs.c.{k}", lang) for k in _CAPTIONS})
    texts.update({f"k_{k}": tr(f"kvs.k.{k}", lang) for k in CHANGE_KINDS})
    texts.update({f"j_{k}": tr(f"kvs.jump.{k}", lang) for k in JUMP_KINDS})
    texts["rule"] = tr(f"kv.evict.{eviction}", lang)
    return texts


def _speeds(lang: str) -> list[dict]:
    return [{"kind": kind, "rate": v, "label": tr("kvs.speed_steps", lang, n=v)} if kind == "steps" else
            {"kind": kind, "factor": v, "label": tr("kvs.speed_sim", lang, x=v)} for kind, v in SPEEDS]


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
    data["version"] = hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]
    if len(_MEMO) > 16:
        _MEMO.clear()
    _MEMO[key] = (trace, data)
    return data


def start_step(num_steps: int) -> int:
    """The step a link asks for (?kv_step=…, clamped to the run), else the first."""
    raw = st.query_params.get(URL_PARAM)
    if raw is None:
        return 0
    try:
        return min(int_parser(0, 10_000_000)(raw), max(num_steps - 1, 0))
    except ValueError as exc:
        report_error(f"{URL_PARAM}={raw[:40]!r}: {exc}")
        return 0


def render_stage(trace: Trace, eviction: str, key: str = KEY) -> None:
    """Draw the stage for `trace` (a detailed run) under `key` (CSS class st-key-<key>)."""
    data = dict(build_payload(trace, current_lang(), eviction))
    data["step0"] = start_step(len(trace.steps))
    _mount(data=data, key=key, height="content")
