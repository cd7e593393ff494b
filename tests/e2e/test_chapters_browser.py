"""Real browser, lecture mode: walk every chapter at 1280×720 with Next in English, switch to 中文 and walk back with
Previous; each chapter draws a chart with no exception. The walk stays in one page load (no bundle reloads), so it
fits the time a test should take. Screenshots of each chapter (the 1280×720 viewport the room sees) go to
test-artifacts/screenshots/chapters/ (CHUNKVIZ_CHAPTER_SHOTS overrides)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from chunkviz.lessons.chapters import CHAPTERS
from tests.e2e.conftest import ROOT, wait_for_app

pytestmark = pytest.mark.e2e
SHOTS = Path(os.environ.get("CHUNKVIZ_CHAPTER_SHOTS", ROOT / "test-artifacts" / "screenshots" / "chapters"))


@pytest.fixture()
def projector(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    yield page
    context.close()


def _check_chapter(page, number: int, lang: str) -> None:
    cjk = "/[\\u4e00-\\u9fff]/.test(h.textContent)" if lang == "zh" else "!/[\\u4e00-\\u9fff]/.test(h.textContent)"
    page.wait_for_function(f"(() => {{ const h = document.querySelector('h1'); return h && "
                           f"h.textContent.startsWith('{number} · ') && {cjk}; }})()", timeout=60000)
    wait_for_app(page, timeout_ms=60000)
    page.get_by_test_id("stPlotlyChart").first.wait_for(timeout=60000)
    page.wait_for_selector(".main-svg", timeout=60000)
    assert page.get_by_test_id("stException").count() == 0, (number, lang)
    page.screenshot(path=str(SHOTS / f"ch{number}-{lang}.png"))


def test_walk_every_chapter_in_lecture_mode_in_both_languages(projector, server_url):
    SHOTS.mkdir(parents=True, exist_ok=True)
    projector.goto(f"{server_url}/{CHAPTERS[0].slug}?present=1&lang=en")
    links = projector.get_by_test_id("stSidebarNavLink")
    links.first.wait_for(timeout=60000)
    assert [x.split(" · ")[0] for x in links.all_text_contents()[:8]] == [str(c.number) for c in CHAPTERS]
    for ch in CHAPTERS:
        _check_chapter(projector, ch.number, "en")
        if ch.number < len(CHAPTERS):
            projector.locator(".st-key-ch_next_top a").first.click()
    projector.get_by_test_id("stSidebar").get_by_text("中文").click()
    for ch in reversed(CHAPTERS):
        _check_chapter(projector, ch.number, "zh")
        if ch.number > 1:
            projector.locator(".st-key-ch_prev_top a").first.click()
    assert "讲座" in projector.get_by_test_id("stSidebar").text_content()


def test_answering_reveals_the_step_with_its_label(projector, server_url):
    projector.goto(f"{server_url}/{CHAPTERS[1].slug}?present=1&lang=en")
    wait_for_app(projector, timeout_ms=60000)
    projector.wait_for_selector(".main-svg", timeout=60000)
    assert projector.get_by_text("chats frozen").count() == 0  # held back until the learner answers
    projector.locator(".st-key-c2_pred [data-testid='stRadioOption']").last.click()  # "no"
    wait_for_app(projector)
    projector.get_by_test_id("stAlertContentSuccess").first.wait_for(timeout=30000)
    projector.wait_for_selector("text=4 chats frozen", timeout=30000)  # the stall's label, drawn on the chart
    projector.screenshot(path=str(SHOTS / "ch2-en-revealed.png"))
