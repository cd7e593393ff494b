"""The lesson as one HTML file, in a real browser at 1280×720: opened from file:// with every network request
blocked, it draws, steps with the arrow keys, plays and pauses, and keeps its cursor in the URL; the file the
page's "Download this view" button gives is the view the page shows."""

from __future__ import annotations

import pytest

from chunkviz.cli.main import main
from tests.e2e.conftest import SCREENSHOTS, wait_for_app
from ui.i18n import tr

pytestmark = pytest.mark.e2e
VIEW = {"width": 1280, "height": 720}
BOX = ".st-key-timeline .cv"


def _offline_page(browser, scheme: str = "light"):
    """A page that lets only file:// through; every other request is aborted and recorded."""
    context = browser.new_context(viewport=VIEW, color_scheme=scheme)
    page = context.new_page()
    blocked: list[str] = []
    errors: list[str] = []

    def gate(route):
        if route.request.url.startswith("file://"):
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    context.route("**/*", gate)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return context, page, blocked, errors


def _inked_pixels(page) -> int:
    """Pixels the canvas has painted (alpha > 0): a blank canvas has none."""
    return page.locator(f"{BOX} canvas").evaluate(
        "c => { const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; let n = 0;"
        " for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++; return n; }")


def _open(page, path) -> object:
    page.goto(path.as_uri())
    page.locator(f"{BOX} canvas").wait_for(timeout=20000)
    return page.locator(BOX)


@pytest.mark.parametrize("lang, scheme", [("en", "light"), ("zh", "dark")])
def test_the_exported_file_draws_and_steps_with_no_network(browser, tmp_path, lang, scheme):
    out = tmp_path / f"lesson-{lang}.html"
    assert main(["export-html", "--out", str(out), "--lang", lang]) == 0
    context, page, blocked, errors = _offline_page(browser, scheme)
    try:
        box = _open(page, out)
        assert _inked_pixels(page) > 10_000
        assert page.locator(f"{BOX} .bar button.play").inner_text() == tr("tlv.play", lang)
        steps, before_ms = box.get_attribute("data-steps"), float(box.get_attribute("data-cursor-ms"))
        page.keyboard.press("ArrowRight")
        assert box.get_attribute("data-steps") != steps
        cursor = float(box.get_attribute("data-cursor-ms"))
        # The readout follows the cursor (to 0.1 ms: two engines' steps may end closer together than that).
        assert cursor > before_ms and f"{cursor:,.1f}" in page.locator(f"{BOX} .readout").inner_text()
        page.wait_for_function("() => location.search.includes('t_ms=')", timeout=5000)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"offline-timeline-{lang}-{scheme}.png"))
        page.reload()  # the link keeps the cursor, as the app's does
        page.locator(f"{BOX} canvas").wait_for(timeout=20000)
        assert abs(float(page.locator(BOX).get_attribute("data-cursor-ms")) - cursor) < 0.1
        page.locator(f"{BOX} .bar button.play").click()
        page.wait_for_function(f"() => +document.querySelector('#cv-host').shadowRoot.querySelector('.cv')"
                               f".dataset.cursorMs > {cursor + 1}", timeout=10000)
        page.locator(f"{BOX} .bar button.play").click()
        paused = float(box.get_attribute("data-cursor-ms"))
        page.wait_for_timeout(300)
        assert box.get_attribute("data-playing") == "0" and float(box.get_attribute("data-cursor-ms")) == paused
        assert blocked == [] and errors == []
    finally:
        context.close()


def test_the_download_button_gives_the_view_the_page_shows(browser, server_url, tmp_path):
    context = browser.new_context(viewport=VIEW, accept_downloads=True)
    page = context.new_page()
    try:
        page.goto(f"{server_url}/?t_ms=2000")
        wait_for_app(page, timeout_ms=90000)
        page.locator(f"{BOX} canvas").wait_for(timeout=60000)  # the element mounts after the script is idle
        shown = page.locator(f"{BOX} .cards .name").all_inner_texts()
        assert len(shown) == 2
        with page.expect_download(timeout=60000) as download:
            page.get_by_role("button", name=tr("dl.view", "en")).click()
        saved = tmp_path / download.value.suggested_filename
        download.value.save_as(saved)
    finally:
        context.close()
    assert saved.name == "chunkviz-timeline-monolithic-vs-chunked.html"
    context, offline, blocked, errors = _offline_page(browser)
    try:
        box = _open(offline, saved)
        assert float(box.get_attribute("data-cursor-ms")) == 2000  # the cursor the page was mounted with
        assert offline.locator(f"{BOX} .cards .name").all_inner_texts() == shown
        assert _inked_pixels(offline) > 10_000 and blocked == [] and errors == []
    finally:
        context.close()


STAGES = {"kv": (".st-key-kv_stage .kvs", "kv_step"), "paging": (".st-key-paging_stage .cv.stage", "pr_step"),
          "attention": (".st-key-attention_stage .cv.stage", "am_step")}


@pytest.mark.parametrize("view", sorted(STAGES))
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_stage_file_draws_and_steps_with_no_network(browser, tmp_path, view, lang):
    selector, param = STAGES[view]
    out = tmp_path / f"{view}-{lang}.html"
    assert main(["export-html", "--view", view, "--out", str(out), "--lang", lang]) == 0
    context, page, blocked, errors = _offline_page(browser)
    try:
        page.goto(out.as_uri())
        box = page.locator(selector)
        box.wait_for(timeout=20000)
        size = box.bounding_box()
        assert size["width"] > 800 and size["height"] > 300, size  # drawn, not an empty shell
        assert box.get_attribute("data-cursor") == "0"
        page.keyboard.press("ArrowRight")
        assert box.get_attribute("data-cursor") == "1" and int(box.get_attribute("data-draws")) >= 2
        page.wait_for_function(f"() => location.search.includes('{param}=1')", timeout=5000)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"offline-{view}-{lang}.png"))
        assert blocked == [] and errors == []
    finally:
        context.close()
