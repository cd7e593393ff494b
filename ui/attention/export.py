"""The attention stage's payload (what ui/attention/stage.js draws for one demo, in one language) and its offline
HTML file, without Streamlit.

Invariant: streamlit-free (the CLI's export-html reaches it through ui/offline.py); /attention mounts exactly
`payload(...)` plus its start position, and its "Download this view" button writes that same dict into the file.
"""

from __future__ import annotations

from pathlib import Path

from chunkviz.lessons.attention_math import ChunkedAttentionDemo, run_attention_demo
from chunkviz.lessons.attention_stage import stage_data
from ui import palette, stage_component
from ui.attention.charts import CHUNK_CYCLE, DONE
from ui.attention.text_stage import TEXTS
from ui.i18n import tr
from ui.offline import Component, StartParam, page_html

KEY = "attention_stage"
URL_PARAM = "am_step"
# The attention chart's meanings (ui/attention/charts.py), all from the one palette.
COLOURS = {"done": DONE, "cached": palette.CACHED, "fresh": palette.PREFILL, "cursor": palette.CURSOR,
           "reference": palette.REFERENCE, "cycle": list(CHUNK_CYCLE)}
COMPONENT = Component(stage_component.parts(Path(__file__).resolve().parent), "chunkviz_attention_stage", KEY)
START = StartParam(URL_PARAM, "start")


def payload(demo: ChunkedAttentionDemo, lang: str) -> dict:
    """Everything the stage draws for this demo, in `lang` (without the start cursor)."""
    text = {key.removeprefix("ast."): tr(key, lang) for key in TEXTS}
    data = {**stage_data(demo.num_tokens, demo.head_dim, demo.chunk_tokens, demo), "text": text,
            "colours": COLOURS, "url_param": URL_PARAM, "speeds": list(stage_component.SPEEDS_STEPS_PER_S),
            "default_speed": stage_component.DEFAULT_SPEED}
    return stage_component.with_version(data)


def caption(demo: ChunkedAttentionDemo, lang: str) -> str:
    colon = "：" if lang == "zh" else ": "
    sizes = (("am.n", demo.num_tokens), ("am.chunk", demo.chunk_tokens), ("am.d", demo.head_dim))
    return " · ".join(f"{tr(k, lang)}{colon}{v}" for k, v in sizes)


def html_for(data: dict, lang: str, text: str = "") -> str:
    """The offline file of a mounted payload (payload's dict with its start)."""
    return page_html(COMPONENT, data, lang, tr("am.title", lang), text, START)


def offline_html(lang: str, num_tokens: int, chunk_tokens: int, head_dim: int) -> str:
    """The offline file for the demo of these sizes (the page's run_attention_demo), opening at the start."""
    demo = run_attention_demo(num_tokens=num_tokens, head_dim=head_dim, chunk_tokens=chunk_tokens)
    return html_for({**payload(demo, lang), "start": 0}, lang, caption(demo, lang))
