"""AppTest: chapter 3 draws the attention stage of the attention page's example and chapter 4 the KV stage of its
shared-system-prompt run, each in the element keyed `stage` above the question (tests/e2e/test_chapters_browser.py
checks both fit a 1280×720 slide)."""

from __future__ import annotations

import json

import pytest

from chunkviz.analysis.scenario import run_scenario
from chunkviz.lessons.attention_math import LECTURE_CHUNK_GRID_TOKENS
from chunkviz.lessons.chapters import PRESETS, chapter, scenario_for
from chunkviz.lessons.predictions import prediction
from chunkviz.lessons.sharing import sharing_figures
from tests.ui.apptest_helpers import open_app
from ui.chapters.common import page_file
from ui.components.kv_stage.export import build_payload
from ui.i18n import tr


def _stage(at) -> tuple[str, dict]:
    (element,) = at.get("bidi_component")
    return element.proto.id, json.loads(element.proto.json)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_chapter_3_draws_the_attention_pages_example(lang):
    at = open_app(page_file(chapter(3)), lang=lang, present="1")
    key, data = _stage(at)
    assert key.endswith("c3_attention") and not at.exception
    assert (data["n"], data["d"], data["chunk"], data["num_chunks"]) == (64, 64, 16, 4)  # pages/ch3_chunking.py
    assert data["start"] == 0 and data["slide"] is True  # opens before chunk 1; lecture mode draws it compact
    assert data["total_flops"] == data["one_pass_flops"]  # chunked = one pass, as the chapter's text says
    assert at.radio(key="c3_pred").value is None
    # The chunk-size handle: the example at each size of the grid, sent with the page, opening on the lecture's 16.
    v = data["variants"]
    assert v["values"] == list(LECTURE_CHUNK_GRID_TOKENS) and v["values"][v["index"]] == 16
    # It stays free before the answer because nothing it prints decides the question: the question's prompt and
    # budget are not the example's, and no size of the grid gives the answer's step count as its chunk count.
    p = prediction(3)
    assert (p.value("prompt_tokens"), p.value("budget_tokens")) not in {(r["n"], r["chunk"]) for r in v["runs"]}
    assert p.value(f"steps_{p.correct_option}") not in {r["num_chunks"] for r in v["runs"]}


def test_chapter_4_draws_its_shared_prompt_run_with_ref_counts_rising():
    at = open_app(page_file(chapter(4)))
    key, data = _stage(at)
    ch = chapter(4)
    trace = run_scenario(scenario_for(ch, ch.policies[0]))
    expected = build_payload(trace, "en", PRESETS[ch.preset].cache.eviction)
    assert key.endswith("c4_kv") and data["slide"] is False and data["compact"] is False and data["step0"] == 0
    assert {k: v for k, v in data.items() if k not in ("version", "slide", "compact", "step0")} == \
        {k: v for k, v in expected.items() if k != "version"}
    # The run drawn is the one whose sharing the chapter's text quotes: ref counts rise above 1 as requests share
    # the system prompt's blocks, up to the figure in the text.
    peak = max(b.ref_count for s in trace.steps if s.snapshot for b in s.snapshot.blocks)
    assert peak == sharing_figures().max_ref_count > 1
    assert at.radio(key="c4_pred").value is None


def test_chapter_6_draws_its_sweep_in_the_stage_once_answered():
    """The sweep is the answer: none before it; then in lecture mode the lanes stay, with the budget handle and its
    verdict (both would not fit 1280×720, tests/e2e/test_reveal_fits_browser.py), and a switch opens the sweep in
    their place; outside lecture mode, the sweep under the lanes."""
    at = open_app(page_file(chapter(6)), present="1")
    assert len(at.get("bidi_component")) == 1 and not at.get("plotly_chart")
    at.radio(key="c6_pred").set_value(prediction(6).correct_option).run()
    assert not at.exception and len(at.get("bidi_component")) == 1 and not at.get("plotly_chart")
    (element,) = at.get("bidi_component")
    data = json.loads(element.proto.json)
    before = tr("chx.handle.6.before", "en")  # the handle's verdict, shown once answered
    assert data["hold_ms"] is None and all(r["verdict"] not in ("", before) for r in data["variants"]["runs"])
    at.button_group(key="c6_view").set_value("answer").run()
    assert not at.get("bidi_component") and len(at.get("plotly_chart")) == 1
    at.button_group(key="c6_view").set_value("lanes").run()
    assert len(at.get("bidi_component")) == 1 and not at.get("plotly_chart")
    at = open_app(page_file(chapter(6)))
    at.radio(key="c6_pred").set_value(prediction(6).correct_option).run()
    assert len(at.get("bidi_component")) == 1 and len(at.get("plotly_chart")) == 1
