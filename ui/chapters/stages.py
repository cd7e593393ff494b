"""The slides of chapters 3 and 4: the shared attention stage (ui/components/attention_stage/mount.py) and KV stage
(ui/components/kv_stage/mount.py) in the element keyed `stage`, then the chapter's question (keyed `predict`) and its
"Download this
view" button, which writes exactly the stage mounted.

Invariant: these stages have no question hold, so each opens on its first position (or the link's) and nothing on
the slide states a result before the question: the chapter's figures (results line, lesson text) come only under it.
"""

from __future__ import annotations

import streamlit as st

from chunkviz.lessons.attention_math import LECTURE_CHUNK_GRID_TOKENS, ChunkedAttentionDemo
from chunkviz.lessons.chapters import PRESETS, Chapter
from chunkviz.simulator.trace import Trace
from ui.components.attention_stage import mount as attention_stage
from ui.components.kv_stage import mount as kv_stage
from ui.components.attention_stage.export import html_for as attention_html
from ui.chapters.common import engine_label, engine_line, is_present, predict_then_reveal
from ui.chapters.lanes import metrics_line, question_fields
from ui.i18n import current_lang, t
from ui.components.kv_stage.export import html_for as kv_html
from ui.components.offline.download import download_view

# Lecture mode: the stage drawn compact (data.slide, read by ui/components/kv_stage/kv_stage.js and
# ui/components/attention_stage/attention_stage.js) so it and the
# question fit one 1280×720 projector slide (tests/e2e/test_chapters_browser.py).


def _question_and_download(ch: Chapter, traces: dict[str, Trace], html) -> None:
    """The chapter's question and its results under the stage, then "Download this view" (the stage as mounted)."""
    many = len(traces) > 1
    predict_then_reveal(ch, [engine_line(engine_label(p), metrics_line(tr)) if many else metrics_line(tr)
                            for p, tr in traces.items()],
                        question_fields(ch, traces), held=False)
    if not is_present():
        st.caption(t("chx.preset_note", preset=t(f"chx.preset.{ch.preset}")))
    download_view(html, f"chunkviz-chapter-{ch.number}", f"c{ch.number}_dl_view")


def _stage_extras(ch: Chapter) -> dict:
    """Lecture mode draws the stage compact (`slide`), and more compact once the question is answered (`compact`:
    a smaller matrix, a shorter block grid), so the verdict and the runs' metric line fit the slide under it."""
    present = is_present()
    return {"slide": present, "compact": present and st.session_state.get(f"c{ch.number}_pred") is not None}


def attention_slide(ch: Chapter, traces: dict[str, Trace], demo: ChunkedAttentionDemo) -> None:
    """Chapter 3: the attention page's example (`demo`) stepped chunk by chunk over the (query, key) matrix, with a
    chunk-size handle over LECTURE_CHUNK_GRID_TOKENS (the example re-run at each size, all sent once; it opens on
    the example's own size, so chapter 9 and /attention print the same figures). The handle stays free before the
    answer: its figures are the 64-token example's (chunks, FLOPs, KV bytes, |Δ|), and none of them is the
    question's, which asks for the steps of the lecture run's own prompt at its own budget (only in the verdict)."""
    with st.container(key="stage"):
        mounted = attention_stage.render(demo, key=f"c{ch.number}_attention", extras=_stage_extras(ch),
                                         chunk_grid=LECTURE_CHUNK_GRID_TOKENS)
    lang, title = current_lang(), t(f"chx.title.{ch.number}")
    _question_and_download(ch, traces, lambda: attention_html(mounted, lang, title=title))


def kv_slide(ch: Chapter, traces: dict[str, Trace]) -> None:
    """Chapter 4: the KV stage of the chapter's shared-system-prompt run (its first engine): the prompt's blocks
    shared, their ref counts rising as each request arrives and as one forks into two samples, then its partly
    filled last block copied on write (the stage's copy-on-write bookmark)."""
    trace = traces[ch.policies[0]]
    with st.container(key="stage"):
        mounted = kv_stage.render_stage(trace, PRESETS[ch.preset].cache.eviction, key=f"c{ch.number}_kv",
                                        extras=_stage_extras(ch))
    lang, title = current_lang(), t(f"chx.title.{ch.number}")
    _question_and_download(ch, traces, lambda: kv_html(mounted, lang, title=title))
