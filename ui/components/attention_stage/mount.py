"""The attention stage element (key `attention_stage`): chunked prefill stepped chunk by chunk in the browser over
the (query, key) matrix; the server sends the data once per (N, chunk, d, language) and reruns only on a setting.
Shared by /attention and chapter 3.

Invariant: every number is the page's own (chunkviz/lessons/attention_stage.py from the same cached demo the cards
use); the cursor lives in the URL as am_step (the page's old step parameter; 0 = start, k = chunk k, K+1 = the
check against one pass).
"""

from __future__ import annotations

from pathlib import Path

from chunkviz.lessons.attention_math import ChunkedAttentionDemo
from ui.components.stage_player import mount as stage_component
from ui.components.attention_stage.export import KEY, URL_PARAM, payload
from ui.i18n import current_lang

_mount = stage_component.register("chunkviz_attention_stage", Path(__file__).resolve().parent, "attention_stage")


def render(demo: ChunkedAttentionDemo, key: str = KEY, extras: dict | None = None,
           chunk_grid: tuple[int, ...] = ()) -> dict:
    """Mount the stage for `demo` (the page's cached run_attention_demo) under `key`, `extras` (JSON) added to the
    payload, with a chunk-size handle over `chunk_grid` if given; returns the data mounted (the page's "Download
    this view" writes exactly that)."""
    data = dict(payload(demo, current_lang(), chunk_grid))
    if extras:
        data.update(extras)
        stage_component.with_version(data)
    data["start"] = stage_component.start_cursor(URL_PARAM, len(demo.chunks) + 2)
    _mount(data=data, key=key, height="content")
    return data
