"""Real browser at 1280×720: the KV stage on /kv is visible with ≥ 16 px labels in both languages, the arrow keys
and play move its cursor in the browser (no rerun), and the URL keeps the cursor (kv_step, as old links had it)."""

from __future__ import annotations

import re

import pytest

from tests.e2e.conftest import SCREENSHOTS, wait_for_app

pytestmark = pytest.mark.e2e
STAGE = ".st-key-kv_stage"


def _context(browser, width: int = 1280, height: int = 720):
    return browser.new_context(viewport={"width": width, "height": height})


@pytest.fixture()
def small(browser):
    context = _context(browser)
    yield context.new_page()
    context.close()


def _open(page, server_url: str, query: str):
    page.goto(f"{server_url}/kv{query}")
    wait_for_app(page, timeout_ms=90000)
    box = page.locator(f"{STAGE} .kvs")
    box.wait_for(timeout=60000)
    box.evaluate("e => e.scrollIntoView({block: 'start'})")  # as a teacher scrolls: the stage's top on top
    page.wait_for_timeout(100)
    return box


def _cursor(box) -> int:
    return int(box.get_attribute("data-cursor"))


@pytest.mark.parametrize("lang, step_word", [("en", "Step"), ("zh", "第")])
def test_stage_is_readable_and_an_arrow_key_redraws_it_without_a_rerun(small, server_url, lang, step_word):
    box = _open(small, server_url, f"?lang={lang}&kv_step=10")
    assert _cursor(box) == 10 and box.is_visible()
    readout = small.locator(f"{STAGE} .readout")
    assert readout.text_content().startswith(f"{step_word} 11")  # steps shown counted from 1: "Step N of N"
    # Labels a room can read: the owner label, the ref count and the caption are at least 16 px.
    sizes = small.locator(f"{STAGE} .cell .o, {STAGE} .cell .r, {STAGE} .caption").evaluate_all(
        "els => els.map(e => parseFloat(getComputedStyle(e).fontSize))")
    assert sizes and min(sizes) >= 16, sizes
    cell = small.locator(f"{STAGE} .cell").first.bounding_box()
    assert cell["width"] >= 44 and cell["height"] >= 44, cell
    draws = int(box.get_attribute("data-draws"))
    small.locator(f"{STAGE} .cell").nth(40).click()
    for _ in range(3):
        small.keyboard.press("ArrowRight")
    assert _cursor(box) == 13 and int(box.get_attribute("data-draws")) >= draws + 3
    assert readout.text_content().startswith(f"{step_word} 14")
    small.keyboard.press("ArrowLeft")
    assert _cursor(box) == 12
    small.wait_for_function("() => location.search.includes('kv_step=12')", timeout=5000)
    assert small.get_by_test_id("stApp").get_attribute("data-test-script-state") == "notRunning"


def test_play_advances_pause_stops_and_the_link_keeps_the_cursor(small, server_url):
    box = _open(small, server_url, "?lang=zh")
    small.locator(f"{STAGE} select.speed").select_option("3")  # 60 steps/s
    play = small.locator(f"{STAGE} button.play")
    play.click()
    small.wait_for_timeout(700)
    assert box.get_attribute("data-playing") == "1" and _cursor(box) > 5
    play.click()
    stopped = _cursor(box)
    small.wait_for_timeout(500)
    assert box.get_attribute("data-playing") == "0" and _cursor(box) == stopped
    small.wait_for_function(f"() => location.search.includes('kv_step={stopped}')", timeout=5000)
    again = _open(small, server_url, re.sub(r"^[^?]*", "", small.url))  # reopen the link
    assert _cursor(again) == stopped


def test_bookmark_jumps_to_the_next_prefix_hit_and_says_so(small, server_url):
    box = _open(small, server_url, "")
    small.locator(f"{STAGE} button.mark").first.click()  # next prefix hit
    assert _cursor(box) > 0
    assert "prefix hit" in small.locator(f"{STAGE} .caption .first").text_content()
    badges = small.locator(f"{STAGE} .cell.changed .badge").all_text_contents()
    assert "↺" in badges  # the reused blocks are ringed with the prefix-hit badge


@pytest.mark.parametrize("width, height", [(1280, 720), (1366, 768)])
def test_screenshots_in_both_languages_and_themes(browser, server_url, width, height):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for lang in ("en", "zh"):
        for theme in ("light", "dark"):
            context = _context(browser, width, height)
            page = context.new_page()
            box = _open(page, server_url, f"?lang={lang}&embed_options={theme}_theme&kv_scn=parallel-sampling")
            page.locator(f"{STAGE} button.mark").nth(1).click()  # the first copy-on-write
            assert _cursor(box) > 0
            page.wait_for_timeout(200)
            page.screenshot(path=str(SCREENSHOTS / f"kv-stage-{lang}-{theme}-{width}x{height}.png"))
            context.close()
