"""Real browser at 1280×720: the timeline component fits lecture mode in both languages, the arrow key and play
move the cursor in the browser (no rerun), and hovers show the true durations of what is drawn."""

from __future__ import annotations

import re

import pytest

from tests.e2e.conftest import screenshot, wait_for_app

pytestmark = pytest.mark.e2e
VIEW = {"width": 1280, "height": 720}
TIMELINE = ".st-key-timeline"


@pytest.fixture()
def small(browser):
    context = browser.new_context(viewport=VIEW)
    p = context.new_page()
    yield p
    context.close()


def _open(page, server_url: str, query: str):
    page.goto(f"{server_url}/{query}")
    wait_for_app(page, timeout_ms=90000)
    page.locator(f"{TIMELINE} canvas").wait_for(timeout=60000)
    return page.locator(f"{TIMELINE} .cv")


def _cursor(box) -> float:
    return float(box.get_attribute("data-cursor-ms"))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_lecture_mode_fits_the_projector(small, server_url, lang):
    _open(small, server_url, f"?present=1&lang={lang}")
    small.wait_for_timeout(500)
    box = small.locator(TIMELINE).bounding_box()
    assert box["x"] >= 0 and box["y"] >= 0
    assert box["x"] + box["width"] <= VIEW["width"] and box["y"] + box["height"] <= VIEW["height"], box
    assert box["width"] >= 0.6 * VIEW["width"] and box["height"] >= 300, box
    # The step controls and the metric cards are part of the element, so they are on screen too.
    assert small.locator(f"{TIMELINE} .cards").is_visible() and small.locator(f"{TIMELINE} .bar").is_visible()
    screenshot(small, f"timeline-present-{lang}")


def test_arrow_key_moves_the_cursor_and_redraws_without_a_rerun(small, server_url):
    box = _open(small, server_url, "?present=1&t_ms=2000")
    assert abs(_cursor(box) - 2000) < 1e-6
    draws = int(box.get_attribute("data-draws"))
    small.locator(f"{TIMELINE} canvas").click(position={"x": 5, "y": 5})
    small.keyboard.press("ArrowRight")
    small.keyboard.press("ArrowRight")
    assert 2000 < _cursor(box) < 2400
    assert int(box.get_attribute("data-draws")) >= draws + 2
    after = _cursor(box)
    small.keyboard.press("ArrowLeft")
    assert _cursor(box) < after
    small.wait_for_function("() => location.search.includes('t_ms=')", timeout=5000)  # the link keeps the cursor
    assert small.get_by_test_id("stApp").get_attribute("data-test-script-state") == "notRunning"


def test_play_advances_and_pause_stops(small, server_url):
    box = _open(small, server_url, "?present=1&lang=zh&t_ms=100")
    play = small.locator(f"{TIMELINE} button.play")
    play.click()
    small.wait_for_timeout(700)
    assert box.get_attribute("data-playing") == "1" and _cursor(box) > 100
    play.click()
    stopped = _cursor(box)
    small.wait_for_timeout(500)
    assert box.get_attribute("data-playing") == "0" and _cursor(box) == stopped


def _hover_texts(page, x: float, y0: float, y1: float, step_px: float = 2.0) -> list[str]:
    """Tooltips met while moving down a vertical line of the canvas (page coordinates)."""
    found, y = [], y0
    while y < y1:  # bounded by the canvas height
        page.mouse.move(x, y)
        tip = page.locator(f"{TIMELINE} .tip")
        if tip.is_visible():
            found.append(tip.text_content())
        y += step_px
    return found


def _spans(text: str) -> tuple[float, float, float]:
    a, b, d = re.search(r"([\d,.]+) (?:to|到) ([\d,.]+) (?:ms|毫秒)\s*[（(]([\d,.]+) (?:ms|毫秒)", text).groups()
    return tuple(float(v.replace(",", "")) for v in (a, b, d))


def test_hovers_show_true_durations(small, server_url):
    from chunkviz.analysis.scenario import DEFAULT_SCENARIO, run_scenario
    from chunkviz.analysis.timeline import lane_segments

    box = _open(small, server_url, "?present=1")
    small.locator(f"{TIMELINE} button.mark").first.click()  # A: longest stall, cursor at its end
    canvas = small.locator(f"{TIMELINE} canvas").bounding_box()
    x = canvas["x"] + float(box.get_attribute("data-cursor-x")) - 4
    texts = _hover_texts(small, x, canvas["y"] + 20, canvas["y"] + canvas["height"] / 2, 3.0)
    steps = [t for t in texts if "step" in t]
    stalls = [t for t in texts if "stalled decode" in t]
    assert steps and stalls, texts
    trace = run_scenario(DEFAULT_SCENARIO.with_policy("monolithic", None))
    number = int(re.search(r"step (\d+)", steps[0]).group(1)) - 1  # the tooltip counts steps from 1
    a, b, d = _spans(steps[0])
    assert abs((b - a) - d) < 0.11 and abs(d - trace.steps[number].duration_s * 1e3) < 0.051
    true_ms = {round((s.end_s - s.start_s) * 1e3, 1) for s in lane_segments(trace) if s.kind == "stall"}
    for text in stalls:
        a, b, d = _spans(text)
        assert abs((b - a) - d) < 0.11 and d in true_ms, text


def test_deep_link_on_a_fresh_server_opens_that_page(browser):
    from tests.e2e.conftest import _free_port, start_server

    port = _free_port()
    proc = start_server(port)  # fresh: no session has run st.navigation yet
    try:
        context = browser.new_context(viewport=VIEW)
        p = context.new_page()
        p.goto(f"http://127.0.0.1:{port}/kv?lang=zh")
        wait_for_app(p, timeout_ms=90000)
        p.get_by_role("heading", name="分页 KV 缓存：一台分格的冰箱").wait_for(timeout=30000)
        p.wait_for_timeout(1000)
        assert p.get_by_text("Page not found").count() == 0
        assert "/kv" in p.url
        context.close()
    finally:
        proc.terminate()
        proc.wait(timeout=20)
