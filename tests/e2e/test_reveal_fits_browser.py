"""Real browser, lecture mode (`?present=1`), a 1280×720 projector (issue 35, layout):

- every chapter, English and 中文, light and dark: after PageDown's reveal and after answering the question, the stage
  (key `stage`), the question with its verdict (key `predict`) and the runs' metric line all lie inside the viewport
  (chapter 6: its lanes, budget handle and the handle's verdict too, the verdict whole);
  a screenshot of each answered slide goes to test-artifacts/screenshots/reveal/ (CHUNKVIZ_REVEAL_SHOTS overrides);
- every page: st.metric values ≥ 28 px, every other text ≥ 16 px, Plotly tick labels ≥ 14 px;
- counters end at "step N of N" (the comparison element on `/` and the KV stage of chapter 4);
- `/` for a newcomer: opens on a named moment with the legend and the one-line guide above the fold, the first →
  moves the cursor a visible distance, B covers the whole window, and PageUp right after a chapter's reveal returns
  to the question's moment.

One browser, one page per colour scheme walked through the chapters by their Next / Previous links (client-side, one
session), so the whole file stays within a few minutes on the shared server."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from chunkviz.lessons.chapters import CHAPTERS
from chunkviz.lessons.predictions import prediction
from tests.e2e.conftest import ROOT, settled, wait_for_app
from tests.e2e.test_visual_browser import _check_labels

pytestmark = pytest.mark.e2e
SHOTS = Path(os.environ.get("CHUNKVIZ_REVEAL_SHOTS", ROOT / "test-artifacts" / "screenshots" / "reveal"))
VIEW = {"width": 1280, "height": 720}
LANES = ".st-key-stage .cv"
READY = {3: ".st-key-stage .cv.attention canvas", 4: ".st-key-stage .kvs .cell"}  # the others: the lanes' canvas
HANDLE_CHAPTER = 6  # its budget handle's verdict is the answer drawn on the stage (ui/chapters/budget_handle.py)
PAGES = ("", "kv", "replacement", "tradeoffs", "attention", "article", "quiz", "traces", "measure")
METRIC_PAGES = ("kv", "tradeoffs", "attention", "traces")  # the pages whose metrics lecture mode shrank to 17 px

# The boxes a slide must keep inside the window: the stage, the question (verdict included) and its last caption
# (the runs' metric line once answered).
_BOXES = """() => {
  const r = (e) => { if (!e) return null; const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
  const caps = document.querySelectorAll('.st-key-predict [data-testid="stCaptionContainer"]');
  return {stage: r(document.querySelector('.st-key-stage')), predict: r(document.querySelector('.st-key-predict')),
          verdict: r(document.querySelector('.st-key-predict [data-testid="stAlert"]')),
          metric: r(caps[caps.length - 1])};
}"""

# Smallest st.metric value, smallest HTML text (own text, drawn, sidebar and header aside), smallest Plotly tick.
_FONTS = """() => {
  const out = {metric: [], html: [99, ''], tick: [99, ''], other_svg: [99, '']};
  const walk = (root) => { for (const e of root.querySelectorAll('*')) {
    if (e.shadowRoot) walk(e.shadowRoot);
    if (![...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
    const b = e.getBoundingClientRect(); if (!b.width || !b.height) continue;
    if (e.closest('[data-testid="stSidebar"], [data-testid="stHeader"], [data-testid="stSkipLink"], .modebar')) continue;
    if (e.closest('[data-testid="stMetricValue"]')) continue;  // checked on their own
    const px = parseFloat(getComputedStyle(e).fontSize), what = e.textContent.trim().slice(0, 50);
    const key = e.closest('svg') ? (e.closest('.xtick, .ytick, [class*="tick"]') ? 'tick' : 'other_svg') : 'html';
    if (px < out[key][0]) out[key] = [px, what];
  } };
  walk(document);
  document.querySelectorAll('[data-testid="stMetricValue"]').forEach((m) => {
    const own = [...m.querySelectorAll('*')].filter((e) => e.textContent.trim()).pop() || m;
    out.metric.push(parseFloat(getComputedStyle(own).fontSize)); });
  return out;
}"""


def _inside(box) -> bool:
    return box is not None and box[0] >= 0 and box[1] >= 0 and box[2] <= VIEW["width"] and box[3] <= VIEW["height"]


@pytest.fixture(params=["light", "dark"])
def projector(browser, request):
    context = browser.new_context(viewport=VIEW, color_scheme=request.param)
    page = context.new_page()
    yield page, request.param
    context.close()


def _arrive(page, number: int, lang: str) -> None:
    cjk = "/[\\u4e00-\\u9fff]/.test(h.textContent)" if lang == "zh" else "!/[\\u4e00-\\u9fff]/.test(h.textContent)"
    page.wait_for_function(f"(() => {{ const h = document.querySelector('h1'); return h && "
                           f"h.textContent.startsWith('{number} · ') && {cjk}; }})()", timeout=90000)
    wait_for_app(page, timeout_ms=90000)
    page.locator(READY.get(number, f"{LANES} canvas")).first.wait_for(timeout=90000)
    page.mouse.move(640, 715)  # off the link just clicked: its tooltip would cover the slide


def _wait_inside(page, keys: tuple[str, ...]) -> dict:
    """The boxes once the stage has fitted itself (its fit follows the page's layout, a frame or two after the
    rerun); the last measurement if they never fit within 10 s."""
    check = " && ".join(f"in_(m.{k})" for k in keys)
    try:
        page.wait_for_function(f"""(() => {{ const m = ({_BOXES})();
          const in_ = (b) => b && b[0] >= 0 && b[1] >= 0 && b[2] <= {VIEW['width']} && b[3] <= {VIEW['height']};
          return {check}; }})()""", timeout=10000)
    except Exception:  # noqa: BLE001 (the assertion below reports what was measured)
        pass
    return page.evaluate(_BOXES)


def _answer(page, number: int) -> None:
    p = prediction(number)
    page.locator(".st-key-predict [data-testid='stRadioOption']").nth(p.option_ids.index(p.correct_option)).click()
    page.wait_for_timeout(250)
    wait_for_app(page, timeout_ms=90000)
    page.get_by_test_id("stAlertContentSuccess").first.wait_for(timeout=90000)


def _check_chapter(page, number: int, lang: str, scheme: str) -> None:
    lanes = number not in READY
    if lanes:  # PageDown at the question reveals its moment in the browser: nothing moves off the slide
        box = page.locator(LANES)
        question_ms = float(box.get_attribute("data-cursor-ms"))
        page.keyboard.press("PageDown")
        expect(box).to_have_attribute("data-held", "0")
        reveal_ms = float(box.get_attribute("data-cursor-ms"))
        m = _wait_inside(page, ("stage", "predict"))
        assert _inside(m["stage"]) and _inside(m["predict"]), ("PageDown", number, lang, scheme, m)
        page.keyboard.press("PageUp")  # right after the reveal: back to the question's moment
        assert abs(float(box.get_attribute("data-cursor-ms")) - question_ms) < 1e-2, (number, lang, scheme)
        for _ in range(8):  # on to the revealed moment again, so the answer's screenshot shows it
            if abs(float(box.get_attribute("data-cursor-ms")) - reveal_ms) < 1e-2:
                break
            page.keyboard.press("PageDown")
        page.wait_for_timeout(400)  # the cursor reaches the URL 250 ms after a move (what a rerun starts from)
    _answer(page, number)
    m = _wait_inside(page, ("stage", "predict", "verdict", "metric"))
    if lanes:  # the answer's fitted, shorter stage: its labels still never overlap (the oldest give way)
        settled(page, page.locator(LANES))
        _check_labels(page.locator(LANES), f"ch{number} {lang} {scheme} answered")
    page.screenshot(path=str(SHOTS / f"ch{number}-{lang}-{scheme}-answered.png"))
    assert all(_inside(m[k]) for k in ("stage", "predict", "verdict", "metric")), (number, lang, scheme, m)
    assert m["verdict"][1] >= m["stage"][3] - 1, (number, lang, scheme, m)  # under the stage, not over it
    if number == HANDLE_CHAPTER:  # the answer on the stage: the lanes, the budget handle and its verdict, whole
        h = page.locator(f"{LANES} .handle-row")
        verdict = page.locator(f"{LANES} .handle-verdict")
        boxes = [h.bounding_box(), verdict.bounding_box(), page.locator(f"{LANES} canvas").first.bounding_box()]
        assert all(b and _inside([b["x"], b["y"], b["x"] + b["width"], b["y"] + b["height"]]) for b in boxes), \
            (number, lang, scheme, boxes)
        assert verdict.evaluate("e => e.scrollWidth <= e.clientWidth"), (number, lang, scheme, verdict.inner_text())


def test_the_reveal_fits_every_chapter_in_both_languages(projector, server_url):
    page, scheme = projector
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.goto(f"{server_url}/{CHAPTERS[0].slug}?present=1&lang=en")
    for ch in CHAPTERS:
        _arrive(page, ch.number, "en")
        _check_chapter(page, ch.number, "en", scheme)
        if ch.number < len(CHAPTERS):
            page.locator(".st-key-ch_next_top a").first.click()
    page.goto(f"{server_url}/{CHAPTERS[-1].slug}?present=1&lang=zh")
    for ch in reversed(CHAPTERS):
        _arrive(page, ch.number, "zh")
        _check_chapter(page, ch.number, "zh", scheme)
        if ch.number > 1:
            page.locator(".st-key-ch_prev_top a").first.click()


def _counter_ends(texts: str) -> None:
    """Each engine's counter at the end of the run reads "step N of N" (or "idle after step N of N")."""
    for text in texts.split(" | "):
        n, total = re.search(r"(\d+) of (\d+)", text).groups()
        assert n == total, texts


def test_lecture_mode_grows_what_a_teacher_points_at_on_every_page(page, server_url):
    page.set_viewport_size(VIEW)
    for path in PAGES:
        page.goto(f"{server_url}/{path}?present=1")
        wait_for_app(page, timeout_ms=180000)
        page.wait_for_timeout(1500)  # Plotly draws after the script is idle
        f = page.evaluate(_FONTS)
        assert all(px >= 28 for px in f["metric"]), (path, f)
        assert f["html"][0] >= 16 and f["other_svg"][0] >= 16 and f["tick"][0] >= 14, (path, f)
        if path in METRIC_PAGES:
            assert f["metric"], path


def test_slash_for_a_newcomer_and_counters_that_end_at_n_of_n(page, server_url):
    page.set_viewport_size(VIEW)
    page.goto(f"{server_url}/?lang=en")
    wait_for_app(page, timeout_ms=90000)
    box = page.locator(".st-key-timeline .cv")
    box.locator("canvas").wait_for(timeout=60000)
    assert box.get_attribute("data-moment"), "opens on a named moment"
    assert box.locator("button.mark.on").count() == 1  # its button lit
    guide, legend = box.locator(".guide").bounding_box(), box.locator(".legend").bounding_box()
    assert guide["y"] + guide["height"] <= VIEW["height"] and legend["y"] + legend["height"] <= VIEW["height"]
    # The first → moves the cursor at least a pixel of the 1.5 s the lanes show (the plot is narrower than the
    # window): it went 0.08 ms, to another engine's step end, and nothing on screen changed.
    t0 = float(box.get_attribute("data-cursor-ms"))
    page.keyboard.press("ArrowRight")
    assert float(box.get_attribute("data-cursor-ms")) - t0 >= 1500 / VIEW["width"]
    page.keyboard.press("End")
    _counter_ends(box.get_attribute("data-counters"))
    page.keyboard.press("b")
    cover = box.locator(".cover").bounding_box()
    assert cover == {"x": 0, "y": 0, "width": VIEW["width"], "height": VIEW["height"]}, cover  # the whole window
    page.keyboard.press("b")
    # Chapter 4's KV stage ends at "Step N of N" too.
    page.goto(f"{server_url}/{CHAPTERS[3].slug}?present=1&lang=en")
    page.locator(READY[4]).first.wait_for(timeout=90000)
    page.locator(".st-key-stage .kvs").focus()
    page.keyboard.press("End")
    readout = page.locator(".st-key-stage .kvs .readout").first.text_content()
    n, total = re.search(r"Step (\d+) of (\d+)", readout).groups()
    assert n == total, readout
