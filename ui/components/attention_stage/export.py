"""The attention stage's payload (what ui/components/attention_stage/attention_stage.js draws for one demo, in one
language) and its offline
HTML file, without Streamlit; shared by /attention and chapter 3 (a chapter may not import the attention wing).

Invariant: streamlit-free (the CLI's export-html reaches it through ui/components/offline/writer.py and the attention
wing's `export`
module); /attention and chapter 3 mount exactly `payload(...)` plus their start position, and their "Download this
view" buttons write that same dict into the file.
"""

from __future__ import annotations

from pathlib import Path

from chunkviz.lessons.attention_math import ChunkedAttentionDemo, run_attention_demo
from chunkviz.lessons.attention_stage import chunk_variants, stage_data
from ui import palette
from ui.components.stage_player import mount as stage_component
from ui.components.attention_stage.text import TEXTS
from ui.i18n import tr
from ui.components.offline.writer import Component, StartParam, page_html

KEY = "attention_stage"
URL_PARAM = "am_step"
# Colours cycled over chunks, so neighbouring chunks always differ (Tableau 10, mid-luminance).
CHUNK_CYCLE = ("#4E79A7", "#F28E2B", "#59A14F", "#B07AA1", "#76B7B2", "#EDC948", "#E15759", "#9C755F")
DONE = "#7F8FA6"  # rows of chunks already computed: a grey that none of the chunk colours is
# The stage's meanings, from the one palette plus the chunk cycle (ui/attention/charts.py re-exports these two).
COLOURS = {"done": DONE, "cached": palette.CACHED, "fresh": palette.PREFILL, "cursor": palette.CURSOR,
           "reference": palette.REFERENCE, "cycle": list(CHUNK_CYCLE)}
COMPONENT = Component(stage_component.parts(Path(__file__).resolve().parent, "attention_stage"),
                      "chunkviz_attention_stage", KEY)
START = StartParam(URL_PARAM, "start")


def payload(demo: ChunkedAttentionDemo, lang: str, chunk_grid: tuple[int, ...] = ()) -> dict:
    """Everything the stage draws for this demo, in `lang` (without the start cursor). With `chunk_grid` (chunk
    sizes, the demo's among them), also `variants`: the demo re-run at each of those sizes, sent once, for the
    stage's chunk-size handle (attention_stage.js useVariant), which opens on the demo's own size."""
    text = {key.removeprefix("ast."): tr(key, lang) for key in TEXTS}
    drawn = stage_data(demo.num_tokens, demo.head_dim, demo.chunk_tokens, demo)
    data: dict = {**drawn, "text": text, "colours": COLOURS, "url_param": URL_PARAM,
                  "speeds": list(stage_component.SPEEDS_STEPS_PER_S), "default_speed": stage_component.DEFAULT_SPEED}
    if chunk_grid:
        runs = chunk_variants(demo.num_tokens, demo.head_dim, chunk_grid)
        own = [i for i, run in enumerate(runs) if run == drawn]
        if not own:  # the handle must open on the very run drawn without it (same size, seed and bytes)
            raise ValueError(f"chunk grid {chunk_grid} holds no run equal to the demo (chunk {demo.chunk_tokens})")
        data["variants"] = {"values": list(chunk_grid), "index": own[0], "runs": runs}
    return stage_component.with_version(data)


def caption(demo: ChunkedAttentionDemo, lang: str) -> str:
    colon = "：" if lang == "zh" else ": "
    sizes = (("am.n", demo.num_tokens), ("am.chunk", demo.chunk_tokens), ("am.d", demo.head_dim))
    return " · ".join(f"{tr(k, lang)}{colon}{v}" for k, v in sizes)


def html_for(data: dict, lang: str, text: str = "", title: str = "") -> str:
    """The offline file of a mounted payload (payload's dict with its start), titled `title` (else /attention's)."""
    return page_html(COMPONENT, data, lang, title or tr("am.title", lang), text, START)


def offline_html(lang: str, num_tokens: int, chunk_tokens: int, head_dim: int) -> str:
    """The offline file for the demo of these sizes (the page's run_attention_demo), opening at the start."""
    demo = run_attention_demo(num_tokens=num_tokens, head_dim=head_dim, chunk_tokens=chunk_tokens)
    return html_for({**payload(demo, lang), "start": 0}, lang, caption(demo, lang))
