"""The attention stage element (key `attention_stage`): chunked prefill stepped chunk by chunk in the browser over
the (query, key) matrix; the server sends the data once per (N, chunk, d, language) and reruns only on a setting.

Invariant: every number is the page's own (chunkviz/lessons/attention_stage.py from the same cached demo the cards
use); the cursor lives in the URL as am_step (the page's old step parameter; 0 = start, k = chunk k, K+1 = the
check against one pass).
"""

from __future__ import annotations

from pathlib import Path

from chunkviz.lessons.attention_math import ChunkedAttentionDemo
from chunkviz.lessons.attention_stage import stage_data
from ui import palette, stage_component
from ui.attention.charts import CHUNK_CYCLE, DONE
from ui.i18n import current_lang, tr
from ui.attention.text_stage import TEXTS

KEY = "attention_stage"
URL_PARAM = "am_step"
_mount = stage_component.register("chunkviz_attention_stage", Path(__file__).resolve().parent)
# The attention chart's meanings (ui/charts_attention.py STAGES), all from the one palette.
COLOURS = {"done": DONE, "cached": palette.CACHED, "fresh": palette.PREFILL, "cursor": palette.CURSOR,
           "reference": palette.REFERENCE, "cycle": list(CHUNK_CYCLE)}


def payload(demo: ChunkedAttentionDemo, lang: str) -> dict:
    """Everything the stage draws for this demo, in `lang` (without the start cursor)."""
    text = {key.removeprefix("ast."): tr(key, lang) for key in TEXTS}
    data = {**stage_data(demo.num_tokens, demo.head_dim, demo.chunk_tokens, demo), "text": text,
            "colours": COLOURS, "url_param": URL_PARAM, "speeds": list(stage_component.SPEEDS_STEPS_PER_S),
            "default_speed": stage_component.DEFAULT_SPEED}
    return stage_component.with_version(data)


def render(demo: ChunkedAttentionDemo) -> None:
    """Mount the stage for `demo` (the page's cached run_attention_demo)."""
    data = payload(demo, current_lang())
    data["start"] = stage_component.start_cursor(URL_PARAM, len(demo.chunks) + 2)
    _mount(data=data, key=KEY, height="content")
