"""Real browser, lecture mode, 1280×720 (issue 35, "transitions, not jumps", the comparison element): a step glides
the drawn cursor from the old time to the new one (data-animating="1" while it runs, gone within ~0.5 s, the drawn
cursor passing through the times between), and its last frame is the frame a plain draw at that cursor gives;
data-motion-ms says the glide's length ("200"); under prefers-reduced-motion it is "0" and nothing animates. A switch
between chapter 6's runs (the budget handle) fades too. Chapter 7: R4's KV transfer is a block in the transfer colour
(read back from the canvas's own pixels) that moves from the prefill GPU's lane to the decode GPU's while a move's
glide passes its interval, and that colour stands ≥ 3:1 off the page's background in light and dark.

Pages run on the session's shared server (conftest.py)."""

from __future__ import annotations

import json

import pytest

from chunkviz.lessons.chapters import CHAPTERS
from tests.e2e.conftest import settled, wait_for_app

pytestmark = pytest.mark.e2e
VIEW = {"width": 1280, "height": 720}
BOX = ".st-key-stage .cv"

# Every change of data-animating / data-cursor-x / data-kv-blocks, with its time, recorded by the page itself
# (a Playwright round trip is slower than a frame).
_RECORD = """(e) => { window.__motion = []; const t0 = window.__t0 = performance.now();
  new MutationObserver((ms) => ms.forEach((m) => window.__motion.push([m.attributeName, e.getAttribute(m.attributeName),
    performance.now() - t0]))).observe(e, {attributes: true,
    attributeFilter: ['data-animating', 'data-cursor-x', 'data-kv-blocks']}); }"""


def _open(page, server_url: str, slug: str):
    page.goto(f"{server_url}/{slug}?present=1")
    wait_for_app(page, timeout_ms=90000)
    page.locator(f"{BOX} canvas").first.wait_for(timeout=90000)
    page.wait_for_timeout(300)
    return page.locator(BOX).first


def _events(page, name: str) -> list[tuple[str | None, float]]:
    return [(v, t) for a, v, t in page.evaluate("window.__motion") if a == name]


def _contrast(a: tuple[int, ...], b: tuple[int, ...]) -> float:
    """WCAG 2.1's contrast ratio of two sRGB colours (0–255)."""
    def lum(c):
        lin = [(v / 255) / 12.92 if v / 255 <= 0.04045 else ((v / 255 + 0.055) / 1.055) ** 2.4 for v in c[:3]]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_a_step_glides_then_lands_on_the_plain_frame(projector, server_url):
    box = _open(projector, server_url, "ch2-long-prefill")
    assert box.get_attribute("data-motion-ms") == "200"
    assert not box.evaluate("(e) => e.hasAttribute('data-animating')")
    box.focus()
    projector.keyboard.press("PageDown")  # the reveal: a long move (the question's moment to the answer's)
    settled(projector, box)
    x0, c0 = float(box.get_attribute("data-cursor-x")), float(box.get_attribute("data-cursor-ms"))
    box.evaluate(_RECORD)
    projector.keyboard.press("Home")  # back to 0 ms: a long glide to the left
    c1 = float(box.get_attribute("data-cursor-ms"))
    assert c1 == 0 < c0  # the cursor itself (readout, counters, the link) is there at once
    settled(projector, box)
    x1 = float(box.get_attribute("data-cursor-x"))
    anim = _events(projector, "data-animating")
    assert [v for v, _ in anim] == ["1", None], anim  # set once, cleared once: no queue of glides
    assert 150 <= anim[1][1] - anim[0][1] <= 500, anim
    xs = [float(v) for v, t in _events(projector, "data-cursor-x") if anim[0][1] <= t <= anim[1][1]]
    between = {round(x) for x in xs if x1 + 2 < x < x0 - 2}
    # It swept through (frames drawn between the ends: 2 cores shared by several browsers may give only a few of
    # a glide's ~12), leftwards, never back.
    assert len(between) >= 1 and xs == sorted(xs, reverse=True), xs
    # The glide's last frame is the frame of a plain draw at the cursor (a resize redraws without motion).
    shot = "(e) => e.querySelector('canvas').toDataURL()"
    landed = box.evaluate(shot)
    projector.evaluate("window.dispatchEvent(new Event('resize'))")
    assert not box.evaluate("(e) => e.hasAttribute('data-animating')")
    assert box.evaluate(shot) == landed


def test_a_new_target_replaces_the_running_glide(projector, server_url):
    box = _open(projector, server_url, "ch2-long-prefill")
    box.focus()
    projector.keyboard.press("PageDown")
    settled(projector, box)
    box.evaluate(_RECORD)
    for _ in range(6):  # faster than a glide: each press starts from the drawn time, none waits for the last
        projector.keyboard.press("ArrowLeft")
    last_key = projector.evaluate("performance.now() - window.__t0")
    after_keys = float(box.get_attribute("data-cursor-ms"))
    settled(projector, box)
    anim = _events(projector, "data-animating")
    # One glide after the last key, not six queued (1,200 ms): the last target replaced the running one.
    assert anim[0][0] == "1" and anim[-1][0] is None and anim[-1][1] - last_key <= 500, (last_key, anim)
    assert float(box.get_attribute("data-cursor-ms")) == after_keys


def test_reduced_motion_draws_each_move_once(browser, server_url):
    context = browser.new_context(viewport=VIEW, reduced_motion="reduce")
    page = context.new_page()
    try:
        box = _open(page, server_url, "ch2-long-prefill")
        assert box.get_attribute("data-motion-ms") == "0"
        box.focus()
        page.keyboard.press("PageDown")
        box.evaluate(_RECORD)
        draws = int(box.get_attribute("data-draws"))
        page.keyboard.press("Home")
        page.wait_for_timeout(400)
        assert _events(page, "data-animating") == []
        assert float(box.get_attribute("data-cursor-ms")) == 0
        assert int(box.get_attribute("data-draws")) - draws <= 2  # the move's draw (and the URL write's none)
    finally:
        context.close()


def test_switching_the_budget_run_fades(projector, server_url):
    ch = next(c for c in CHAPTERS if c.number == 6)
    box = _open(projector, server_url, ch.slug)
    variant = box.get_attribute("data-variant")
    box.evaluate(_RECORD)
    handle = projector.locator(f"{BOX} .handle")
    handle.focus()
    projector.keyboard.press("ArrowRight")
    assert box.get_attribute("data-variant") != variant
    settled(projector, box)
    anim = _events(projector, "data-animating")
    assert [v for v, _ in anim] == ["1", None] and 150 <= anim[1][1] - anim[0][1] <= 500, anim


def _scrub_to(box, ms: float) -> None:
    box.evaluate("(e, ms) => { const s = e.querySelector('.scrub'); s.value = ms; s.dispatchEvent(new Event('input')); }",
                 ms)


_PIXEL = """(e, [x, y]) => { const c = e.querySelector('canvas'), r = c.width / c.clientWidth;
  return Array.from(c.getContext('2d').getImageData(Math.round(x * r), Math.round(y * r), 1, 1).data); }"""
_PAGE_BG = """() => getComputedStyle(document.querySelector('[data-testid="stApp"]')).backgroundColor
  .match(/\\d+/g).slice(0, 3).map(Number)"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_kv_transfer_is_a_band_in_a_colour_that_reads(browser, server_url, scheme):
    from chunkviz.lessons import split
    from ui import palette

    context = browser.new_context(viewport=VIEW, color_scheme=scheme)
    page = context.new_page()
    try:
        kv = next(x for x in split.split_run("disagg").transfers if x.request_id == 4)
        a, b = kv.start_s * 1e3, kv.ready_s * 1e3
        box = _open(page, server_url, "split-kitchen")
        box.focus()
        page.keyboard.press("PageDown")  # the reveal lifts the question's hold
        settled(page, box)
        _scrub_to(box, a + 0.5 * (b - a))
        rects = {r: (x0, y0, x1, y1) for r, x0, y0, x1, y1 in box.evaluate("(e) => JSON.parse(e.dataset.kvRects)")}
        x0, y0, x1, y1 = rects[4]
        assert x1 - x0 >= 10 and y1 - y0 >= 10, rects[4]  # a block, not a line
        # Its left part (the cursor's line runs through its middle) is drawn in the transfer colour.
        pixel = box.evaluate(_PIXEL, [x0 + 3, (y0 + y1) / 2])
        want = tuple(int(palette.TRANSFER[i:i + 2], 16) for i in (1, 3, 5))
        assert pixel[3] == 255 and all(abs(p - w) <= 2 for p, w in zip(pixel, want)), (pixel, want)
        background = page.evaluate(_PAGE_BG)
        assert _contrast(tuple(pixel), tuple(background)) >= 3.0, (pixel, background)
        # A move across the transfer (PageDown from its start: the next moment is R4's KV whole at the decode GPU)
        # glides the block down from the prefill GPU's lane to the decode GPU's, through the places between.
        _scrub_to(box, a + 0.05 * (b - a))
        start = dict(map(tuple, box.evaluate("(e) => JSON.parse(e.dataset.kvBlocks)")))[4]
        box.evaluate(_RECORD)
        page.keyboard.press("PageDown")
        assert abs(float(box.get_attribute("data-cursor-ms")) - b) < 1e-3
        settled(page, box)
        ys = [dict(map(tuple, json.loads(v))).get(4) for v, _ in _events(page, "data-kv-blocks") if v]
        ys = [y for y in ys if y is not None]
        assert ys == sorted(ys) and ys[-1] - start >= 40, (start, ys)
        assert len({y for y in ys if start + 2 < y < ys[-1] - 2}) >= 1, (start, ys)
    finally:
        context.close()
