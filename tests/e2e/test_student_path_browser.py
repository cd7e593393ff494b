"""A student's path in a real browser, lecture mode at 1280×720, English and 中文: chapters 1 → 9, each question
answered once wrong and once right. After each answer the verdict on the page is the app's sentence filled with
the runs' figures (tests/test_slide_answers.py checks those figures against the traces), the wrong answer names the
accepted option, and the right one is accepted; a screenshot of each chapter after the answer goes to
test-artifacts/screenshots/answers/ (CHUNKVIZ_ANSWER_SHOTS overrides).

One page load per language (Next is a client-side link) on the shared server of tests/e2e/conftest.py."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from chunkviz.analysis.scenario import run_scenario
from chunkviz.lessons.chapters import CHAPTERS, chapter, scenario_for
from chunkviz.lessons.predictions import prediction
from tests.e2e.conftest import ROOT, wait_for_app
from ui.i18n import tr

pytestmark = pytest.mark.e2e
SHOTS = Path(os.environ.get("CHUNKVIZ_ANSWER_SHOTS", ROOT / "test-artifacts" / "screenshots" / "answers"))
LANES = ".st-key-stage .cv"
# The chapters whose stage is the comparison element with a question's hold (3 and 4 draw their own stages).
LANE_CHAPTERS = (1, 2, 5, 6, 7, 8, 9)
SPLIT_KITCHEN = 7  # its stage is four GPUs (ui/chapters/split.py), its question takes no stage fields


def _plain(text: str) -> str:
    """What the browser shows of a Markdown sentence: no code ticks or bold marks, one space between words."""
    return " ".join(re.sub(r"[`*]", "", text).split())


def _texts(number: int, lang: str) -> tuple[dict[str, str], str]:
    """The options as labelled and the verdict, written by the app's own functions with the runs' figures."""
    from ui.chapters import answers
    from ui.chapters.common import engine_label
    from ui.chapters.lanes import question_fields
    import ui.i18n

    ch, p = chapter(number), prediction(number)
    stage = {} if number == SPLIT_KITCHEN else question_fields(
        ch, {policy: run_scenario(scenario_for(ch, policy)) for policy in ch.policies})
    real = ui.i18n.current_lang
    ui.i18n.current_lang = lambda: lang  # (count() words the 中文 forms through t())
    try:
        options = {o: _plain(tr(f"chx.o.{number}.{o}", lang, **answers.question_fields(ch, p, engine_label, stage)))
                   for o in p.option_ids}
        verdict = _plain(tr(f"chx.a.{number}", lang, **answers.verdict_fields(ch, p, engine_label, stage)))
    finally:
        ui.i18n.current_lang = real
    return options, verdict


def _arrive(page, number: int) -> None:
    page.wait_for_function(f"(() => {{ const h = document.querySelector('h1'); "
                           f"return h && h.textContent.startsWith('{number} · '); }})()", timeout=60000)
    wait_for_app(page, timeout_ms=60000)
    page.locator(".st-key-predict [data-testid='stRadioOption']").first.wait_for(timeout=60000)
    assert page.get_by_test_id("stException").count() == 0, number


def _at_reveal(page, number: int, lang: str, question_ms: float) -> None:
    """After an answer the stage's cursor is past the question's moment and no longer held, and stays there once
    the page has settled (a late re-mount put it back at the question's moment in 中文, chapters 5 and 9)."""
    page.wait_for_timeout(600)
    box = page.locator(LANES)
    held, cursor = box.get_attribute("data-held"), float(box.get_attribute("data-cursor-ms"))
    assert held == "0" and cursor > question_ms + 1e-3, (number, lang, held, cursor, question_ms)


def _answer(page, label: str, alert: str) -> str:
    page.locator(".st-key-predict [data-testid='stRadioOption']").filter(has_text=label).first.click()
    wait_for_app(page, timeout_ms=60000)
    shown = page.locator(f".st-key-predict [data-testid='{alert}']").first
    shown.wait_for(timeout=60000)
    return " ".join(shown.inner_text().split())


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_student_walks_chapters_1_to_9_answering_wrong_then_right(projector, server_url, lang):
    SHOTS.mkdir(parents=True, exist_ok=True)
    projector.goto(f"{server_url}/{CHAPTERS[0].slug}?present=1&lang={lang}")
    for ch in CHAPTERS:
        _arrive(projector, ch.number)
        p = prediction(ch.number)
        options, verdict = _texts(ch.number, lang)
        labels = [" ".join(t.split()) for t in
                  projector.locator(".st-key-predict [data-testid='stRadioOption']").all_inner_texts()]
        assert labels == [options[o] for o in p.option_ids], (ch.number, labels)  # every option, as written
        lanes = projector.locator(LANES)
        question_ms = float(lanes.get_attribute("data-cursor-ms")) if ch.number in LANE_CHAPTERS else None
        wrong = next(o for o in p.option_ids if o != p.correct_option)
        said = _answer(projector, options[wrong], "stAlertContentError")
        if question_ms is not None:  # the answer's rerun re-mounts the stage at the revealed moment, never back
            _at_reveal(projector, ch.number, lang, question_ms)
        assert options[p.correct_option] in said and verdict in said, (ch.number, said, verdict)
        said = _answer(projector, options[p.correct_option], "stAlertContentSuccess")
        assert said.startswith(_plain(tr("chx.pred.right", lang))) and verdict in said, (ch.number, said)
        if question_ms is not None:
            _at_reveal(projector, ch.number, lang, question_ms)
        projector.mouse.move(640, 715)
        projector.wait_for_timeout(400)
        projector.screenshot(path=str(SHOTS / f"ch{ch.number}-{lang}-answered.png"))
        if ch.number < len(CHAPTERS):
            projector.locator(".st-key-ch_next_bottom a, .st-key-ch_next_top a").first.click()
