"""Each lecture chapter opens on its preset and key bookmark, links to its neighbours, and checks the learner's
prediction against the simulator's answer; the navigation lists the chapters first, numbered, in both languages."""

from __future__ import annotations

from unittest.mock import patch

import pytest

from chunkviz.lessons.chapters import CHAPTERS, PRESETS, chapter, find_bookmark, scenario_for
from chunkviz.analysis.scenario import run_scenario
from chunkviz.lessons.predictions import prediction
from tests.ui.apptest_helpers import open_app, texts
from ui.chapters.common import page_file
from ui.i18n import tr


@pytest.mark.parametrize("number", range(1, 9))
def test_chapter_opens_on_its_preset_with_the_step_held_back(number):
    ch = chapter(number)
    at = open_app(page_file(ch))
    assert at.title[0].value.startswith(f"{number} · ")
    shown = texts(at)
    assert tr(f"chx.see.{number}", "en") in shown
    assert tr(f"chx.preset.{ch.preset}", "en") in shown  # says that it replaces the sidebar's scenario
    assert at.radio(key=f"c{number}_pred").value is None
    assert tr("chx.pred.hold", "en") in shown
    # The cursor sits at the key bookmark's start: that step is not drawn yet.
    trace = run_scenario(scenario_for(ch, ch.policies[0]))
    mark = find_bookmark(trace, ch.bookmarks[0])
    slider = at.slider(key=f"c{number}_step")
    assert slider.value == at.session_state[f"c{number}_step"] > 0
    assert len(PRESETS[ch.preset].requests()) <= 24 and mark is not None


def _links(at) -> dict[str, str]:
    """url path of each Previous/Next link, by side ("prev", "next")."""
    out = {}
    for link in at.get("page_link"):
        for side in ("prev", "next"):
            label = link.proto.label
            if label.startswith("◀") and side == "prev" or label.endswith("▶") and side == "next":
                out[side] = link.proto.page
    return out


@pytest.mark.parametrize("number", range(1, 9))
def test_next_and_previous_chapter_links_lead_to_the_neighbours(number):
    at = open_app(page_file(chapter(number)))
    links = _links(at)
    assert links.get("prev") == (chapter(number - 1).slug if number > 1 else None)
    assert links.get("next") == (chapter(number + 1).slug if number < 8 else None)
    for side, other in (("prev", number - 1), ("next", number + 1)):
        if side in links:
            at.switch_page(page_file(chapter(other))).run()
            assert not at.exception and at.title[0].value.startswith(f"{other} · ")


@pytest.mark.parametrize("number", range(1, 9))
def test_the_prediction_is_checked_against_the_simulator(number):
    p = prediction(number)
    wrong = next(o for o in p.option_ids if o != p.correct_option)
    at = open_app(page_file(chapter(number)))
    before = at.session_state[f"c{number}_step"]
    at.radio(key=f"c{number}_pred").set_value(wrong).run()
    assert not at.exception
    assert at.error and tr(f"chx.o.{number}.{p.correct_option}", "en") in at.error[0].value
    assert at.session_state[f"c{number}_step"] > before  # answering reveals the step
    at.radio(key=f"c{number}_pred").set_value(p.correct_option).run()
    assert at.success and tr("chx.pred.right", "en") in at.success[0].value


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_lecture_chapters_come_first_in_the_navigation_numbered_in_both_languages(lang):
    import streamlit as st

    seen = []
    real = st.navigation

    def spy(pages, *args, **kwargs):
        seen.append(pages)
        return real(pages, *args, **kwargs)

    with patch.object(st, "navigation", spy):
        open_app(lang=lang)
    sections = seen[-1]
    assert list(sections) == [tr("chx.nav_lecture", lang), tr("chx.nav_reference", lang)]
    lecture = sections[tr("chx.nav_lecture", lang)]
    assert [p.url_path for p in lecture] == [c.slug for c in CHAPTERS]
    assert [p.title.split(" · ")[0] for p in lecture] == [str(c.number) for c in CHAPTERS]
    assert lecture[0].title == f"1 · {tr('chx.title.1', lang)}"
    reference = [p.url_path for p in sections[tr("chx.nav_reference", lang)]]
    assert reference == ["", "kv", "replacement", "tradeoffs", "attention", "article", "quiz", "traces", "measure"]


def test_the_stall_is_labelled_on_the_chart_and_the_chats_freeze():
    at = open_app(page_file(chapter(2)))
    at.radio(key="c2_pred").set_value("no").run()
    shown = texts(at)
    # A frozen chat window, labelled with the length of the step that runs R4's whole prompt (prefill-first).
    from chunkviz.analysis.scenario import run_scenario
    from chunkviz.lessons import chapters as lessons

    trace = run_scenario(lessons.scenario_for(chapter(2), lessons.PREFILL_FIRST))
    step = next(s for s in trace.steps if any(c.request_id == 4 and c.phase == "prefill" for c in s.chunks))
    assert f"frozen for {step.duration_s * 1e3:.0f} ms" in shown
    assert "R4" in shown


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_sidebar_scenario_widgets_are_hidden_on_chapters_with_the_reason(lang):
    at = open_app(page_file(chapter(1)), lang=lang)
    assert any(tr("chx.sidebar_note", lang) == i.value for i in at.sidebar.info)
    assert not [s for s in at.sidebar.selectbox if s.key == "preset"]
