"""The KV stage: the paged KV cache of one run stepped in the browser (block grid, free queue, block tables and what
changed in each step), registered once at import as a components-v2 element; shared by /kv and chapter 4.

Invariant: the run's data (chunkviz/lessons/kv_stage_data.py's deltas, plus texts in one language) is built once
per (trace, language, eviction rule) and carries a `version` that changes exactly when anything drawn changes, so a
rerun that changes no setting sends identical data and the browser keeps its cursor (in the URL as kv_step).
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from chunkviz.simulator.trace import Trace
from ui.components.stage_player import mount as stage_component
from ui.i18n import current_lang
from ui.components.kv_stage.export import KEY, URL_PARAM, build_payload, version_of
from ui.url_state import int_parser, report_error

NAME = "chunkviz_kv_stage"
_mount = stage_component.register(NAME, Path(__file__).resolve().parent, "kv_stage")  # the shared player first


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


def render_stage(trace: Trace, eviction: str, key: str = KEY, extras: dict | None = None) -> dict:
    """Draw the stage for `trace` (a detailed run) under `key` (CSS class st-key-<key>), `extras` (JSON, e.g. a
    chapter's `slide`) added to the payload; returns the data mounted (the page's "Download this view" writes
    exactly that into the offline file)."""
    data = dict(build_payload(trace, current_lang(), eviction))
    if extras:
        data.update(extras)
        data["version"] = version_of(data)
    data["step0"] = start_step(len(trace.steps))
    _mount(data=data, key=key, height="content")
    return data
