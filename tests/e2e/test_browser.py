"""Real browser: the app boots, every page draws a chart, stepping redraws, language and shared links work."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import screenshot, wait_for_app

pytestmark = pytest.mark.e2e

PAGES = ["", "kv", "replacement", "tradeoffs", "attention", "article", "quiz", "traces", "measure"]


def _goto(page, server_url: str, path: str) -> None:
    page.goto(f"{server_url}/{path}")
    wait_for_app(page, timeout_ms=60000)


@pytest.mark.parametrize("path", PAGES)
def test_every_page_renders_a_chart(page, server_url, path):
    _goto(page, server_url, path)
    if path == "quiz":  # the quiz draws its evidence once a question is answered
        page.locator('.st-key-qz_q1 [data-testid="stRadioOption"]').first.click()
        wait_for_app(page)
    if path == "measure":  # a real quick measurement on this CPU, then measured vs roofline is drawn
        page.locator(".st-key-me_run button").click()
        wait_for_app(page, timeout_ms=180000)
    if path == "":  # the timeline is drawn by its own component on a canvas (tests/e2e/test_timeline_browser.py)
        page.locator(".st-key-timeline canvas").wait_for(timeout=60000)
        assert page.get_by_test_id("stException").count() == 0
        screenshot(page, "page-timeline-en")
        return
    if path == "attention":  # the attention stage draws the whole page's lesson on its canvas (test_stages_browser)
        page.locator(".st-key-attention_stage canvas").first.wait_for(timeout=60000)
        assert page.get_by_test_id("stException").count() == 0
        screenshot(page, "page-attention-en")
        return
    if path == "kv":  # the block grid is the KV stage's (tests/e2e/test_kv_stage_browser.py); memory is Plotly
        page.locator(".st-key-kv_stage .cell").first.wait_for(timeout=60000)
    charts = page.get_by_test_id("stPlotlyChart")
    charts.first.wait_for(timeout=60000)
    page.wait_for_selector(".main-svg", timeout=60000)
    assert charts.count() >= 1
    assert page.get_by_test_id("stException").count() == 0
    screenshot(page, f"page-{path or 'timeline'}-en")


def test_language_switch_changes_the_text(page, server_url):
    _goto(page, server_url, "")
    assert page.get_by_role("heading", name="Prefill-first vs chunked prefill").count() == 1
    page.get_by_text("中文").click()
    wait_for_app(page)
    page.get_by_role("heading", name="预填充优先与分块预填充对比").wait_for(timeout=30000)
    assert "lang=zh" in page.url
    screenshot(page, "timeline-zh")


def test_shared_url_restores_page_parameters(page, server_url):
    _goto(page, server_url, "?lang=zh&pa=sglang&budget=1024&t_ms=2200")
    page.get_by_role("heading", name="预填充优先与分块预填充对比").wait_for(timeout=30000)
    thumb = page.get_by_test_id("stSliderThumbValue")
    assert any(thumb.nth(i).text_content() == "1024" for i in range(thumb.count()))
    assert page.get_by_text("SGLang（预填充优先）").count() >= 1
    for path in ("replacement?pr_alg=lru&pr_frames=4", "kv?lang=zh"):
        _goto(page, server_url, path)
        assert page.get_by_test_id("stException").count() == 0
