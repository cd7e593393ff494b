"""Real browser, lecture mode: every chapter at 1280×720 in English and 中文 draws a chart with no exception, the
navigation lists the numbered chapters first, and Next leads to the next chapter. Screenshots of each chapter (the
1280×720 viewport the room sees) go to test-artifacts/screenshots/chapters/ (CHUNKVIZ_CHAPTER_SHOTS overrides)."""

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


def _open(page, url: str) -> None:
    page.goto(url)
    wait_for_app(page, timeout_ms=60000)
    page.get_by_test_id("stPlotlyChart").first.wait_for(timeout=60000)
    page.wait_for_selector(".main-svg", timeout=60000)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_chapter_renders_in_lecture_mode(projector, server_url, lang):
    SHOTS.mkdir(parents=True, exist_ok=True)
    for ch in CHAPTERS:
        _open(projector, f"{server_url}/{ch.slug}?present=1&lang={lang}")
        assert projector.get_by_test_id("stException").count() == 0, ch.slug
        assert projector.get_by_test_id("stPlotlyChart").count() >= 1, ch.slug
        title = projector.locator("h1").first.text_content()
        assert title.startswith(f"{ch.number} · "), title
        projector.screenshot(path=str(SHOTS / f"ch{ch.number}-{lang}.png"))
    links = projector.get_by_test_id("stSidebarNavLink").all_text_contents()
    assert [x.split(" · ")[0] for x in links[:8]] == [str(c.number) for c in CHAPTERS], links


def test_next_leads_to_the_next_chapter_and_answering_reveals_the_step(projector, server_url):
    _open(projector, f"{server_url}/{CHAPTERS[1].slug}?present=1")
    projector.locator(".st-key-c2_pred [data-testid='stRadioOption']").last.click()  # "no"
    wait_for_app(projector)
    projector.get_by_test_id("stAlertContentSuccess").first.wait_for(timeout=30000)
    projector.wait_for_selector("text=chats frozen", timeout=30000)  # the stall's label drawn on the chart
    projector.screenshot(path=str(SHOTS / "ch2-en-revealed.png"))
    projector.locator(".st-key-ch_next_top button").click()
    wait_for_app(projector, timeout_ms=60000)
    projector.wait_for_url(f"**/{CHAPTERS[2].slug}**", timeout=30000)
    assert projector.locator("h1").first.text_content().startswith("3 · ")
