"""Real browser, lecture mode at 1280×720: chapter 3's chunk-size handle and the attention stage's step animation.

- The handle switches between the lecture example's runs at each chunk size of LECTURE_CHUNK_GRID_TOKENS (sent once
  with the page): ←/→ on it and a tap change the printed figures (chunks, FLOPs, KV bytes read against one pass, max
  |Δ|) to that run's, each equal to run_attention_demo's value at the printed precision, while the page sends nothing
  to the server (no websocket frame: no rerun) and the stage is not re-mounted; it opens on the lecture's 16.
- A step animates for data-motion-ms = 200 ms (data-animating while it runs: several distinct frames) and ends on
  the very frame drawn at once under prefers-reduced-motion, where data-motion-ms is 0 and one frame is drawn.

Screenshots go to test-artifacts/screenshots/ (ch3-<lang>-handle-<chunk>.png)."""

from __future__ import annotations

import math

import pytest
from playwright.sync_api import expect

from chunkviz.lessons.attention_math import LECTURE_CHUNK_GRID_TOKENS, LECTURE_EXAMPLE, run_attention_demo
from chunkviz.lessons.chapters import chapter
from tests.e2e.conftest import SCREENSHOTS, wait_for_app
from ui.fmt import si
from ui.i18n import tr

pytestmark = pytest.mark.e2e
VIEW = {"width": 1280, "height": 720}
BOX = ".st-key-stage .cv.attention"
# The handle's texts, the stage's readout and its info column; `tag` survives only if the element is never rebuilt.
_READ = """(e) => ({value: e.querySelector('.handle-value').textContent,
  sum: e.querySelector('.handle-sum').textContent, readout: e.querySelector('.readout').textContent, info: e.querySelector('.info').innerText,
  cursor: e.dataset.cursor, variant: e.dataset.variant, tag: e.__handleTest === 1})"""
# Distinct canvas frames seen over 350 ms of animation frames (a tween's in-betweens and its last frame).
_FRAMES = """async (e) => { const c = e.querySelector('canvas'), seen = new Set(), t0 = performance.now();
  await new Promise((done) => { const f = () => { seen.add(c.toDataURL());
    if (performance.now() - t0 < 350) requestAnimationFrame(f); else done(); }; f(); });
  return seen.size; }"""


def _exp(value: float) -> str:
    """`value` as the stage prints it (JavaScript's toExponential(1): no padded exponent)."""
    mantissa, exponent = f"{value:.1e}".split("e")
    return f"{mantissa}e{int(exponent):+d}"


def _expected(chunk: int, lang: str) -> dict[str, str]:
    """The handle's texts and the one-pass check's lines for the example at `chunk`, from run_attention_demo and the
    app's formats (ui.fmt.si; the stage's templates as the payload sends them)."""
    demo = run_attention_demo(num_tokens=LECTURE_EXAMPLE["num_tokens"], head_dim=LECTURE_EXAMPLE["head_dim"],
                              chunk_tokens=chunk)
    k = len(demo.chunks)
    extra = math.floor(100 * demo.total_kv_read_bytes / demo.one_pass_kv_read_bytes - 100 + 0.5)  # Math.round
    bytes_, one = si(demo.total_kv_read_bytes, "B"), si(demo.one_pass_kv_read_bytes, "B")
    return {"value": tr("ast.handle_value_one" if k == 1 else "ast.handle_value", lang).format(chunk=chunk, num=k),
            "sum": tr("ast.handle_sum", lang).format(flops=si(demo.total_attention_flops),
                                                     one_flops=si(demo.one_pass_attention_flops), bytes=bytes_,
                                                     one=one, extra=f"{extra:+d}", diff=_exp(demo.max_abs_diff)),
            "equal_bytes": tr("ast.equal_bytes", lang).format(bytes=bytes_, one=one, extra=f"{extra:+d}"),
            "equal_diff": tr("ast.equal_diff", lang).format(diff=_exp(demo.max_abs_diff)),
            "readout_last": tr("ast.readout", lang).format(k=k, num=k), "num_chunks": str(k)}


def _open(browser, server_url: str, lang: str, sent: list | None = None):
    """Chapter 3 in lecture mode at chunk 2; every websocket frame the page sends is appended to `sent`."""
    context = browser.new_context(viewport=VIEW, reduced_motion="no-preference")
    page = context.new_page()
    if sent is not None:
        page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(payload)))
    page.goto(f"{server_url}/{chapter(3).slug}?present=1&lang={lang}&am_step=2")
    wait_for_app(page, timeout_ms=90000)
    page.locator(f"{BOX} canvas").first.wait_for(timeout=90000)
    page.wait_for_timeout(800)  # the cursor's URL write and any late rerun settle
    return context, page, page.locator(BOX).first


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_chapter_3_chunk_handle_switches_runs_without_a_rerun(browser, server_url, lang):
    sent: list = []
    context, page, box = _open(browser, server_url, lang, sent)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    try:
        box.evaluate("(e) => { e.__handleTest = 1; }")
        m = box.evaluate(_READ)
        lecture = _expected(16, lang)
        assert m["variant"] == "16" and m["value"] == lecture["value"] and m["sum"] == lecture["sum"], m
        assert m["cursor"] == "2" and "532.48 k" in m["sum"] and "8.9e-16" in m["sum"]  # chapter 9's figures
        handle = page.locator(f"{BOX} .handle")
        frames = len(sent)
        assert frames > 0  # the page's own first run request was seen: the count below would see a rerun
        handle.focus()
        page.keyboard.press("ArrowLeft")  # 8 tokens: the cursor stays at 32 tokens computed, now chunk 4 of 8
        m = box.evaluate(_READ)
        assert m["variant"] == "8" and m["cursor"] == "4" and m["value"] == _expected(8, lang)["value"], m
        assert m["sum"] == _expected(8, lang)["sum"], m
        page.keyboard.press("ArrowLeft")
        page.keyboard.press("ArrowLeft")  # past the first size: stays at 4 tokens
        m = box.evaluate(_READ)
        assert m["variant"] == "4" and m["cursor"] == "8" and m["sum"] == _expected(4, lang)["sum"], m
        bb = handle.bounding_box()  # a tap at the right end: one pass of 64 tokens
        page.mouse.click(bb["x"] + bb["width"] - 2, bb["y"] + bb["height"] / 2)
        m = box.evaluate(_READ)
        assert m["variant"] == "64" and m["value"] == _expected(64, lang)["value"], m
        for chunk in reversed(LECTURE_CHUNK_GRID_TOKENS):  # every size: the one-pass check prints the run's figures
            want = _expected(chunk, lang)
            assert box.evaluate(_READ)["variant"] == str(chunk)
            box.locator("button.mark.last-chunk").click()
            assert box.evaluate(_READ)["readout"] == want["readout_last"]
            box.locator("button.mark.equal").click()
            m = box.evaluate(_READ)
            assert m["sum"] == want["sum"] and want["equal_bytes"] in m["info"] and want["equal_diff"] in m["info"], m
            assert m["cursor"] == str(int(want["num_chunks"]) + 1), m
            if chunk in (4, 24):
                expect(box).not_to_have_attribute("data-animating", "1")
                page.screenshot(path=str(SCREENSHOTS / f"ch3-{lang}-handle-{chunk}.png"))
            handle.focus()
            page.keyboard.press("ArrowLeft")
        m = box.evaluate(_READ)
        assert m["variant"] == "4" and m["tag"], m  # the same element throughout: never re-mounted
        page.wait_for_timeout(600)
        assert len(sent) == frames, len(sent) - frames  # nothing went to the server: no rerun
        assert page.locator('[data-testid="stApp"]').get_attribute("data-test-script-state") == "notRunning"
    finally:
        context.close()


def test_a_step_animates_and_ends_on_the_frame_reduced_motion_draws(browser, server_url):
    context, page, box = _open(browser, server_url, "en")
    try:
        expect(box).to_have_attribute("data-motion-ms", "200")
        box.focus()
        page.keyboard.press("ArrowRight")  # chunk 2 → 3: the rows slide down, the cache and the meters grow
        assert box.get_attribute("data-animating") == "1"
        assert box.evaluate(_FRAMES) >= 3  # in-betweens, not a jump
        expect(box).not_to_have_attribute("data-animating", "1")
        assert box.get_attribute("data-cursor") == "3"
        animated = box.evaluate("(e) => e.querySelector('canvas').toDataURL()")
        page.emulate_media(reduced_motion="reduce")
        page.keyboard.press("ArrowLeft")
        page.keyboard.press("ArrowRight")
        assert box.get_attribute("data-motion-ms") == "0" and box.get_attribute("data-animating") is None
        assert box.evaluate(_FRAMES) == 1  # drawn once, at once
        assert box.evaluate("(e) => e.querySelector('canvas').toDataURL()") == animated  # the same last frame
        page.emulate_media(reduced_motion="no-preference")  # a handle change animates too, and ends the same way
        handle = page.locator(f"{BOX} .handle")
        handle.focus()
        page.keyboard.press("ArrowRight")
        assert box.get_attribute("data-animating") == "1" and box.get_attribute("data-motion-ms") == "200"
        expect(box).not_to_have_attribute("data-animating", "1")
        tweened = box.evaluate("(e) => e.querySelector('canvas').toDataURL()")
        page.emulate_media(reduced_motion="reduce")
        box.focus()
        page.keyboard.press("ArrowLeft")
        page.keyboard.press("ArrowRight")
        assert box.evaluate("(e) => e.querySelector('canvas').toDataURL()") == tweened
    finally:
        context.close()
