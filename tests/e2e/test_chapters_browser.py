"""Real browser, lecture mode, 1280×720: every chapter is a slide in both languages — the stage (key `stage`) and
the question (key `predict`) lie inside the viewport, the sidebar is collapsed, nothing scrolls sideways, every text
in them is ≥ 16 px, PageDown reveals the held moment in the browser (no rerun); screenshots of every chapter in
English and 中文, light and dark, go to test-artifacts/screenshots/chapters/ (CHUNKVIZ_CHAPTER_SHOTS overrides).
A student's path: chapter 1 → 8, each question answered once wrong and once right.

The walks stay in one page load each (Next / Previous are client-side links), so all of it shares one server and
fits a few minutes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

from chunkviz.analysis.scenario import run_scenario
from chunkviz.lessons.chapters import CHAPTERS, chapter, scenario_for
from chunkviz.lessons.kv_stage_data import stage_columns
from chunkviz.lessons.predictions import prediction
from tests.e2e.conftest import ROOT, settled, wait_for_app
from ui.i18n import tr

pytestmark = pytest.mark.e2e
SHOTS = Path(os.environ.get("CHUNKVIZ_CHAPTER_SHOTS", ROOT / "test-artifacts" / "screenshots" / "chapters"))
VIEW = {"width": 1280, "height": 720}
BOX = ".st-key-stage .cv"
# Chapters 3 and 4 draw the attention stage and the KV stage (no question hold): what shows each has drawn.
STAGE_READY = {3: ".st-key-stage .cv.attention canvas", 4: ".st-key-stage .kvs .cell"}
STAGE_BOX = {3: ".st-key-stage .cv.attention", 4: ".st-key-stage .kvs"}
# Records F's full-screen request (headless Chromium may refuse a real one; what matters is that the stage asks).
_STUB_FULLSCREEN = """() => { window.__cvFullscreenCalls = 0;
  document.documentElement.requestFullscreen = () => { window.__cvFullscreenCalls++; return Promise.resolve(); }; }"""


def _stage_stops(number: int) -> tuple[list[int], int | None]:
    """Where PageDown stops on chapter 3's / 4's stage (its bookmarks' positions, in order), and the one that must be
    among them (chapter 4: the copy-on-write of R1's two samples)."""
    if number == 3:  # pages/ch3_chunking.py's example: 64 tokens in chunks of 16 (tests/ui/test_chapter_stages.py)
        k = 64 // 16  # attention_stage.js: chunk 1, chunk 2, the last chunk, then "= one causal pass"
        return [1, 2, k, k + 1], None
    ch = chapter(number)
    jumps = stage_columns(run_scenario(scenario_for(ch, ch.policies[0])))["jumps"]
    assert jumps["cow"] and jumps["hit"], jumps  # the shared prompt's hits and R1's copy-on-write both happen
    return sorted({i for steps in jumps.values() for i in steps}), jumps["cow"][0]


def _check_stage_clicker(page, number: int, lang: str, scheme: str) -> None:
    """Chapters 3 and 4 (stages with no question hold): PageDown / PageUp go from bookmark to bookmark, B blanks
    the stage and B shows it again, F asks for full screen."""
    box = page.locator(STAGE_BOX[number])
    stops, must = _stage_stops(number)
    box.focus()  # the walk comes back to this chapter with the stage where it was left: start from the first step
    page.keyboard.press("Home")
    expect(box).to_have_attribute("data-cursor", "0")
    seen = []
    for stop in stops:
        page.keyboard.press("PageDown")  # what a presentation clicker sends
        expect(box).to_have_attribute("data-cursor", str(stop))
        seen.append(stop)
        if stop == must:
            page.screenshot(path=str(SHOTS / f"ch{number}-{lang}-{scheme}-cow.png"))
    page.keyboard.press("PageUp")
    expect(box).to_have_attribute("data-cursor", str(stops[-2]))
    if number == 3:
        page.screenshot(path=str(SHOTS / f"ch{number}-{lang}-{scheme}-chunk.png"))
    page.keyboard.press("b")
    expect(box).to_have_attribute("data-blank", "1")
    assert page.locator(f"{STAGE_BOX[number]} .cv-cover").is_visible()
    page.keyboard.press("b")
    expect(box).to_have_attribute("data-blank", "0")
    assert not page.locator(f"{STAGE_BOX[number]} .cv-cover").is_visible()
    page.evaluate(_STUB_FULLSCREEN)
    page.keyboard.press("f")
    assert page.evaluate("window.__cvFullscreenCalls") == 1, (number, lang)

# Boxes of the keyed elements, the page's scroll width, the sidebar's right edge, and the smallest font of any text
# inside the stage and the question (the canvas draws at data.tick_px, checked in tests/ui).
_MEASURE = """() => {
  const r = (s) => { const e = document.querySelector(s); if (!e) return null; const b = e.getBoundingClientRect();
                     return [b.left, b.top, b.right, b.bottom]; };
  const side = document.querySelector('[data-testid="stSidebar"]');
  let small = 99, where = "", seen = 0;
  const walk = (root) => {  // the component draws inside a shadow root: walk into it
    for (const e of root.querySelectorAll('*')) {
      if (e.shadowRoot) walk(e.shadowRoot);
      const own = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
      if (!own || !e.getClientRects().length) continue;
      seen++;
      const px = parseFloat(getComputedStyle(e).fontSize);
      if (px < small) { small = px; where = e.textContent.trim().slice(0, 40); }
    }
  };
  document.querySelectorAll('.st-key-stage, .st-key-predict').forEach(walk);
  return {stage: r('.st-key-stage'), predict: r('.st-key-predict'), scroll: document.documentElement.scrollWidth,
          side: side ? side.getBoundingClientRect().right : 0, small, where, seen};
}"""


def _arrive(page, number: int, lang: str) -> None:
    cjk = "/[\\u4e00-\\u9fff]/.test(h.textContent)" if lang == "zh" else "!/[\\u4e00-\\u9fff]/.test(h.textContent)"
    page.wait_for_function(f"(() => {{ const h = document.querySelector('h1'); return h && "
                           f"h.textContent.startsWith('{number} · ') && {cjk}; }})()", timeout=60000)
    wait_for_app(page, timeout_ms=60000)
    page.locator(STAGE_READY.get(number, f"{BOX} canvas")).first.wait_for(timeout=60000)
    page.mouse.move(640, 715)  # off the Next link just clicked: its tooltip would cover the slide's first line
    page.wait_for_timeout(300)
    assert page.get_by_test_id("stException").count() == 0, (number, lang)


def _inside(box) -> bool:
    return box is not None and box[0] >= 0 and box[1] >= 0 and box[2] <= VIEW["width"] and box[3] <= VIEW["height"]


def _check_slide(page, number: int, lang: str, scheme: str) -> None:
    m = page.evaluate(_MEASURE)
    assert _inside(m["stage"]) and _inside(m["predict"]), (number, lang, m)
    assert m["scroll"] <= VIEW["width"], (number, lang, m)  # no horizontal scroll
    assert m["side"] <= 1, (number, lang, m)  # the sidebar is collapsed
    assert m["seen"] > 20 and m["small"] >= 16, (number, lang, m)  # the chats, legend and buttons were walked
    page.screenshot(path=str(SHOTS / f"ch{number}-{lang}-{scheme}.png"))
    if number == 8:  # the knobs table (one engine at a time) wraps inside the page: it overflowed to x = 1505
        right, main = page.evaluate("""() => [document.querySelector('.st-key-c7_knobs table').getBoundingClientRect()
          .right, (m => m.scrollWidth - m.clientWidth)(document.querySelector('[data-testid="stMain"]'))]""")
        assert right <= VIEW["width"] and main <= 0, (right, main)
    if number in STAGE_READY:  # no hold to lift: the stage opens on its first position, the question under it
        _check_stage_clicker(page, number, lang, scheme)
        return
    box = page.locator(BOX)
    assert box.get_attribute("data-held") == "1"  # the question holds the cursor at its moment
    before = float(box.get_attribute("data-cursor-ms"))
    draws = int(box.get_attribute("data-draws"))
    page.keyboard.press("PageDown")  # what a presentation clicker sends
    assert box.get_attribute("data-held") == "0" and float(box.get_attribute("data-cursor-ms")) > before
    settled(page, box)  # the move's glide has drawn its last frame (its notes and bands)
    assert int(box.get_attribute("data-draws")) > draws and int(box.get_attribute("data-notes")) >= 1
    if number == 7:
        _check_transfer_bands(page, box)
    page.screenshot(path=str(SHOTS / f"ch{number}-{lang}-{scheme}-revealed.png"))
    page.keyboard.press("b")
    assert box.get_attribute("data-blank") == "1" and page.locator(f"{BOX} .cover").is_visible()
    page.keyboard.press("b")
    assert box.get_attribute("data-blank") == "0"


def _check_transfer_bands(page, box) -> None:
    """Chapter 7 (issue 24): every KV transfer begun by the cursor is drawn, in the palette's transfer colour."""
    from chunkviz.lessons import split
    from ui.palette import TRANSFER

    cursor = float(box.get_attribute("data-cursor-ms"))
    begun = sum(1 for x in split.split_run("disagg").transfers if x.start_s * 1e3 < cursor)
    assert begun >= 2 and int(box.get_attribute("data-transfers")) == begun
    rgb = [int(TRANSFER[i:i + 2], 16) for i in (1, 3, 5)]
    painted = page.locator(f"{BOX} canvas").first.evaluate("""(c, rgb) => {
      const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data; let n = 0;
      for (let i = 0; i < d.length; i += 4) if (d[i] === rgb[0] && d[i + 1] === rgb[1] && d[i + 2] === rgb[2]) n++;
      return n; }""", rgb)
    assert painted > 100, painted  # the bands' solid strips (3 px high) at least


@pytest.mark.parametrize("projector", ["light", "dark"], indirect=True)
def test_every_chapter_is_a_slide_in_both_languages(projector, server_url):
    scheme = "dark" if projector.evaluate("matchMedia('(prefers-color-scheme: dark)').matches") else "light"
    SHOTS.mkdir(parents=True, exist_ok=True)
    projector.goto(f"{server_url}/{CHAPTERS[0].slug}?present=1&lang=en")
    for ch in CHAPTERS:
        _arrive(projector, ch.number, "en")
        _check_slide(projector, ch.number, "en", scheme)
        if ch.number < len(CHAPTERS):
            projector.locator(".st-key-ch_next_top a").first.click()
    # Lecture mode is the session's: the sidebar's link to `/` (no ?present in it) opens `/` in lecture mode too.
    projector.get_by_test_id("stExpandSidebarButton").click()
    projector.get_by_test_id("stSidebarNavLink").filter(has_text=tr("nav.timeline", "en")).first.click()
    projector.locator(".st-key-timeline canvas").wait_for(timeout=60000)
    wait_for_app(projector, timeout_ms=60000)
    assert projector.locator(".st-key-present input").is_checked() and "present=1" in projector.url
    projector.get_by_test_id("stSidebarCollapseButton").click()  # the browser keeps a sidebar the user opened
    projector.goto(f"{server_url}/{CHAPTERS[-1].slug}?present=1&lang=zh")
    for ch in reversed(CHAPTERS):
        _arrive(projector, ch.number, "zh")
        _check_slide(projector, ch.number, "zh", scheme)
        if ch.number > 1:
            projector.locator(".st-key-ch_prev_top a").first.click()


def _answer(page, number: int, option: str, alert: str) -> None:
    label = tr(f"chx.o.{number}.{option}", "en", **dict(prediction(number).figures)).replace("`", "")
    page.locator(".st-key-predict [data-testid='stRadioOption']").filter(has_text=label).first.click()
    wait_for_app(page, timeout_ms=60000)
    page.get_by_test_id(alert).first.wait_for(timeout=60000)


def test_a_student_walks_chapter_1_to_8_answering_wrong_then_right(projector, server_url):
    projector.goto(f"{server_url}/{CHAPTERS[0].slug}?lang=en")
    for ch in CHAPTERS:
        _arrive(projector, ch.number, "en")
        p = prediction(ch.number)
        wrong = next(o for o in p.option_ids if o != p.correct_option)
        _answer(projector, ch.number, wrong, "stAlertContentError")
        if ch.number in STAGE_READY:  # no hold: the results come under the question only now
            _answer(projector, ch.number, p.correct_option, "stAlertContentSuccess")
            projector.locator(".st-key-ch_next_bottom a").first.click()
            continue
        box = projector.locator(BOX)
        # The answer lifted the hold: the stage moved to the moment the question was about and labels it.
        expect(box).to_have_attribute("data-held", "0", timeout=30000)  # (the element lives in a shadow root)
        assert int(box.get_attribute("data-notes")) >= 1
        _answer(projector, ch.number, p.correct_option, "stAlertContentSuccess")
        if ch.number < len(CHAPTERS):
            projector.locator(".st-key-ch_next_bottom a").first.click()


# What a slide's answer needs readable, measured in the component's shadow root: the budget handle's row, its verdict,
# the lanes' canvas, and every chat window's header and status line (cut when scrollWidth > clientWidth: an ellipsis).
_READABLE = """() => {
  const all = (sel, root = document, out = []) => { root.querySelectorAll(sel).forEach((e) => out.push(e));
    root.querySelectorAll('*').forEach((e) => { if (e.shadowRoot) all(sel, e.shadowRoot, out); }); return out; };
  const r = (e) => { if (!e) return null; const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
  const cut = (e) => e.scrollWidth > e.clientWidth;
  const verdict = all('.cv .handle-verdict')[0];
  return {handle: r(all('.cv .handle-row')[0]), canvas: r(all('.cv canvas')[0]), verdict: r(verdict),
          verdict_text: verdict ? verdict.textContent : null, verdict_cut: verdict ? cut(verdict) : null,
          heads: all('.cv .chat .head').map((e) => [e.textContent, e.scrollWidth, e.clientWidth]),
          statuses: all('.cv .chat .status').map((e) => [e.textContent, e.scrollWidth, e.clientWidth])};
}"""


def _answer_right(page, number: int, lang: str) -> None:
    p = prediction(number)
    page.locator(".st-key-predict [data-testid='stRadioOption']").nth(p.option_ids.index(p.correct_option)).click()
    page.wait_for_timeout(250)
    wait_for_app(page, timeout_ms=60000)
    page.get_by_test_id("stAlertContentSuccess").first.wait_for(timeout=60000)
    page.wait_for_timeout(500)  # the stage's fit follows the page's layout a frame or two after the rerun


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_chapter_6_answered_keeps_the_lanes_handle_and_verdict_on_the_slide(projector, server_url, lang):
    """Lecture mode, 1280×720: once answered, chapter 6's stage still shows the lanes with the budget handle and its
    verdict (the answer, read from the sweep at 0.1 ms), all inside the viewport with the answered question under
    them; the switch opens the sweep in the stage's place, still on the slide."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    projector.goto(f"{server_url}/{CHAPTERS[5].slug}?present=1&lang={lang}")
    _arrive(projector, 6, lang)
    _answer_right(projector, 6, lang)
    projector.locator(f"{BOX} .handle-verdict").wait_for(timeout=60000)
    m, seen = projector.evaluate(_MEASURE), projector.evaluate(_READABLE)
    projector.screenshot(path=str(SHOTS / f"ch6-{lang}-answered.png"))
    assert _inside(m["stage"]) and _inside(m["predict"]) and m["scroll"] <= VIEW["width"], (lang, m)
    assert all(_inside(seen[k]) for k in ("handle", "canvas", "verdict")), (lang, seen)
    assert seen["verdict_text"] not in ("", tr("chx.handle.6.before", lang)) and not seen["verdict_cut"], (lang, seen)
    assert projector.locator(".st-key-stage [data-testid='stPlotlyChart']").count() == 0
    projector.locator(".st-key-c6_view button").nth(1).click()  # "Every budget": the sweep in the stage's place
    wait_for_app(projector, timeout_ms=60000)
    projector.locator(".st-key-stage [data-testid='stPlotlyChart'] .main-svg").first.wait_for(timeout=60000)
    projector.wait_for_timeout(500)
    m = projector.evaluate(_MEASURE)
    assert _inside(m["stage"]) and _inside(m["predict"]) and m["scroll"] <= VIEW["width"], (lang, m)
    assert m["small"] >= 16, (lang, m)  # the chart's ticks, titles and bar labels too (lecture mode: 16 px)
    projector.screenshot(path=str(SHOTS / f"ch6-{lang}-answered-sweep.png"))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_chapter_2_chat_windows_read_whole_at_1280(projector, server_url, lang):
    """Lecture mode, 1280×720: chapter 2's chat windows (five on the prefill-first engine, three a row) show their
    headers and status lines whole, at the question's moment and after the answer (they were cut with "…")."""
    projector.goto(f"{server_url}/{CHAPTERS[1].slug}?present=1&lang={lang}")
    _arrive(projector, 2, lang)
    for moment in ("question", "answered"):
        if moment == "answered":
            _answer_right(projector, 2, lang)
        seen = projector.evaluate(_READABLE)
        assert len(seen["heads"]) >= 9, seen  # 5 windows on engine A, 4 on B
        assert all(scroll <= client for _, scroll, client in seen["heads"]), (lang, moment, seen["heads"])
        assert all(scroll <= client for _, scroll, client in seen["statuses"]), (lang, moment, seen["statuses"])
