"""Real browser, lecture mode, 1280×720 (issue 35, the visual part): on every lane chapter, in English and 中文, after
the reveal (a clicker's PageDown) and at the run's end, the labels the comparison element draws (the rectangles it
reports in data-labels and box.__cvLayout) are pairwise disjoint, touch none of the bars, steps rows, KV bands and
titles drawn on the canvas, and lie inside it. A slide's caption per moment: one line above the stage that, at every
stop PageDown walks, quotes the scheduler's why-sentence (chunkviz/analysis/why.py) of the step at the cursor, on the
engine of that moment. Screenshots go to test-artifacts/screenshots/visual/.

One page per language walks the chapters, on the session's shared server (conftest.py)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from chunkviz.analysis.scenario import run_scenario
from chunkviz.analysis.why import why_sentences
from chunkviz.lessons.chapters import CHAPTERS, scenario_for
from tests.e2e.conftest import ROOT, settled, wait_for_app

pytestmark = pytest.mark.e2e
SHOTS = Path(os.environ.get("CHUNKVIZ_VISUAL_SHOTS", ROOT / "test-artifacts" / "screenshots" / "visual"))
VIEW = {"width": 1280, "height": 720}
BOX = ".st-key-stage .cv"
LANE_CHAPTERS = tuple(c for c in CHAPTERS if c.number not in (3, 4))  # 3 and 4 draw the attention and KV stages

_LAYOUT = """(e) => { const c = e.querySelector('canvas'); const L = e.__cvLayout || {};
  return {labels: L.labels || [], avoid: L.avoid || [], clash: L.clash, notes: +e.dataset.notes,
          reported: JSON.parse(e.dataset.labels || '[]'), w: c.clientWidth, h: c.clientHeight}; }"""


def _overlap(a, b, gap: float = 0.0) -> bool:
    """Rectangles [x0, y0, x1, y1] share area (closer than `gap`); touching edges (1 px tolerance) do not count."""
    return a[0] < b[2] - 1 + gap and b[0] < a[2] - 1 + gap and a[1] < b[3] - 1 + gap and b[1] < a[3] - 1 + gap


def _open_slide(page, server_url: str, ch, lang: str):
    """Chapter `ch`'s slide in lecture mode, its comparison element's canvas drawn; returns the element."""
    page.goto(f"{server_url}/{ch.slug}?present=1&lang={lang}")
    wait_for_app(page, timeout_ms=90000)
    box = page.locator(BOX).first
    page.locator(f"{BOX} canvas").first.wait_for(timeout=90000)
    return box


def _check_labels(box, where: str) -> int:
    m = box.evaluate(_LAYOUT)
    labels = m["labels"]
    assert labels == m["reported"] and len(labels) == m["notes"] and m["clash"] == 0, (where, m)
    assert len(m["avoid"]) >= 20, (where, len(m["avoid"]))  # the bars were reported, not an empty list
    for i, a in enumerate(labels):
        assert 0 <= a[0] and a[2] <= m["w"] and 0 <= a[1] and a[3] <= m["h"], (where, "outside the canvas", a)
        for b in labels[i + 1:]:
            assert not _overlap(a, b), (where, "labels overlap", a, b)
        hit = [r for r in m["avoid"] if _overlap(a, r)]
        assert not hit, (where, "a label covers a lane, steps row, KV band or title", a, hit[:3])
    return len(labels)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_labels_never_overlap_each_other_nor_cover_a_lane(projector, server_url, lang):
    SHOTS.mkdir(parents=True, exist_ok=True)
    for ch in LANE_CHAPTERS:
        box = _open_slide(projector, server_url, ch, lang)
        box.focus()
        projector.keyboard.press("PageDown")  # the reveal
        assert box.get_attribute("data-held") == "0", (ch.number, lang)
        settled(projector, box)  # the move's glide has drawn its last frame
        shown = _check_labels(box, f"ch{ch.number} {lang} reveal")
        assert shown >= 1, (ch.number, lang)
        projector.screenshot(path=str(SHOTS / f"ch{ch.number}-{lang}-labels-reveal.png"))
        projector.keyboard.press("End")
        settled(projector, box)
        assert _check_labels(box, f"ch{ch.number} {lang} end") >= shown
        projector.screenshot(path=str(SHOTS / f"ch{ch.number}-{lang}-labels-end.png"))


# The chapters whose engines run the chapter's preset (chapter 7 runs deployments: chunkviz/lessons/split.py).
CAPTIONED = tuple(c for c in LANE_CHAPTERS if c.number != 7)
_CAPTION = """(e) => { const c = e.querySelector('.caption'), v = e.querySelector('canvas');
  const b = c.getBoundingClientRect(), k = v.getBoundingClientRect();
  return {text: c.textContent, data: e.dataset.caption, eng: +e.dataset.captionEngine, cursor: +e.dataset.cursorMs,
          px: parseFloat(getComputedStyle(c).fontSize), box: [b.left, b.top, b.right, b.bottom], canvasTop: k.top,
          stops: +e.dataset.stops}; }"""


def _expected_why(trace, cursor_ms: float, lang: str) -> str:
    """The why-sentence of the step the cursor shows: the last one started before it (comparison.js lastBelow); the
    cursor is reported to 3 decimals, and a moment's cursor is a step's end, which is the next step's start."""
    started = [i for i, s in enumerate(trace.steps) if s.start_s * 1e3 < cursor_ms - 1e-3]
    return why_sentences(trace, lang)[started[-1]]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_caption_tells_each_moment_from_the_schedulers_decisions(projector, server_url, lang):
    SHOTS.mkdir(parents=True, exist_ok=True)
    for ch in CAPTIONED:
        traces = [run_scenario(scenario_for(ch, p)) for p in ch.policies]
        box = _open_slide(projector, server_url, ch, lang)
        box.focus()
        seen = []
        for n in range(12):  # the reveal, then every moment to the end (bounded: no chapter has 12)
            projector.keyboard.press("PageDown")
            c = box.evaluate(_CAPTION)
            assert c["text"] == c["data"] and c["px"] >= 16, (ch.number, lang, c)
            assert 0 <= c["box"][1] and c["box"][3] <= c["canvasTop"] + 1 and c["box"][2] <= VIEW["width"], c
            why = _expected_why(traces[c["eng"]], c["cursor"], lang)
            assert c["text"].endswith(why), (ch.number, lang, c["text"], why)
            if len(traces) > 1:
                assert c["text"].startswith("ABCDEFGH"[c["eng"]] + " · "), c["text"]
            seen.append((c["cursor"], c["text"]))
            if n == 0:
                settled(projector, box)
                projector.screenshot(path=str(SHOTS / f"ch{ch.number}-{lang}-caption.png"))
            if len(seen) > 1 and seen[-1][0] == seen[-2][0]:
                break  # the end: PageDown stays
        assert len({text for _, text in seen}) >= 2, (ch.number, lang, seen)  # the caption moves with the moments


# Chapter 4 (the KV stage's slide): at the copy-on-write bookmark both samples' block tables stand side by side, each
# mapping the same logical block to a different physical block, with the two physical blocks drawn under them; the
# grid shows at least eight whole rows; a free cell names its place in the queue as an ordinal, not a block-like "#0".
_KV = """(e) => { const r = (n) => { const b = n.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
  const sc = e.querySelector('.gridscroll').getBoundingClientRect();
  const rows = [...e.querySelectorAll('.rowlabel')].filter((n) => { const k = n.getBoundingClientRect();
    return k.top >= sc.top - 1 && k.bottom <= sc.bottom + 1; }).length;
  const cols = [...e.querySelectorAll('.fcol')].map((c) => ({name: c.querySelector('.seq').textContent,
    maps: [...c.querySelectorAll('.map')].map((m) => m.textContent), box: r(c)}));
  return {step: +e.dataset.step, cow: e.dataset.cow, focus: e.dataset.focus, rows, cols,
          fig: [...e.querySelectorAll('.cowblock')].map((b) => ({b: +b.dataset.b, text: b.textContent, box: r(b)})),
          free: [...e.querySelectorAll('.cell.empty .q')].map((q) => q.textContent).filter((t) => t),
          predict: r(document.querySelector('.st-key-predict')), stage: r(e)}; }"""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_chapter_4_draws_the_copy_on_write_side_by_side(projector, server_url, lang):
    from chunkviz.lessons.chapters import PRESETS
    from ui.components.kv_stage.export import build_payload

    ch = next(c for c in CHAPTERS if c.number == 4)
    data = build_payload(run_scenario(scenario_for(ch, ch.policies[0])), lang, PRESETS[ch.preset].cache.eviction)
    at = data["jumps"]["cow"][0]
    cow = next(c for c in data["captions"][at] if c["k"] == "cow")
    projector.goto(f"{server_url}/{ch.slug}?present=1&lang={lang}")
    wait_for_app(projector, timeout_ms=90000)
    kv = projector.locator(".st-key-stage .kvs").first
    kv.locator("button.mark").nth(1).click()  # the copy-on-write bookmark
    m = kv.evaluate(_KV)
    assert m["step"] == data["step"][at] and m["cow"] == f"{cow['from']}>{cow['b'][0]}", m
    assert m["focus"] == f"{cow['r']}.0 {cow['r']}.1" and len(m["cols"]) == 2, m  # both samples, side by side
    left, right = m["cols"]
    assert left["box"][2] <= right["box"][0] and abs(left["box"][1] - right["box"][1]) < 2, m
    lasts = {c["maps"][-1].split("→")[-1].strip() for c in m["cols"]}
    assert lasts == {str(cow["from"]), str(cow["b"][0])}, m  # one logical block, two physical blocks
    assert [f["b"] for f in m["fig"]] == [cow["from"], cow["b"][0]], m
    for box in [m["stage"], m["predict"]] + [f["box"] for f in m["fig"]] + [c["box"] for c in m["cols"]]:
        assert 0 <= box[0] and 0 <= box[1] and box[2] <= VIEW["width"] and box[3] <= VIEW["height"], (box, m)
    assert m["rows"] >= 8, m
    pattern = r"^\d+(st|nd|rd|th)$" if lang == "en" else r"^第\d+$"
    assert m["free"] and all(re.match(pattern, q) for q in m["free"]), m["free"][:5]
    assert m["free"][:3] == (["1st", "2nd", "3rd"] if lang == "en" else ["第1", "第2", "第3"]), m["free"][:3]
    projector.screenshot(path=str(SHOTS / f"ch4-{lang}-cow.png"))


# Linked highlighting (chapter 2: two engines and chat windows): pointing at a request's chat window emphasises it
# everywhere (its bars drawn full and outlined, the rest dimmed, its chat windows ringed, the others faded); ↓ pins the
# first request drawn from the keyboard, a click on a chat pins its request, Escape lets go.
_HL = """(e) => ({focus: e.dataset.focusR, pinned: e.dataset.pinned, hl: e.dataset.hl.split(',').map(Number),
  chats: [...e.querySelectorAll('.chat')].map((c) => ({r: c.dataset.r, cls: c.className}))})"""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_linked_highlighting_follows_a_request_everywhere(projector, server_url, lang):
    ch = next(c for c in CHAPTERS if c.number == 2)
    box = _open_slide(projector, server_url, ch, lang)
    box.focus()
    projector.keyboard.press("PageDown")  # the reveal
    settled(projector, box)
    m = box.evaluate(_HL)
    assert m["focus"] == "" and m["hl"][1] == 0 and m["hl"][0] > 10, m  # nothing focused: every bar full
    chat = projector.locator(f"{BOX} .chat").nth(2)
    r = chat.get_attribute("data-r")
    chat.hover()
    m = box.evaluate(_HL)
    assert m["focus"] == r and m["hl"][0] >= 2 and m["hl"][1] > m["hl"][0], m
    for c in m["chats"]:
        assert ("hl" in c["cls"].split()) == (c["r"] == r) and ("dim" in c["cls"].split()) == (c["r"] != r), (r, c)
    projector.screenshot(path=str(SHOTS / f"ch2-{lang}-linked.png"))
    projector.mouse.move(640, 700)  # off the stage: the hover ends
    assert box.evaluate(_HL)["focus"] == ""
    box.focus()
    projector.keyboard.press("ArrowDown")
    m = box.evaluate(_HL)
    assert m["pinned"] == m["focus"] == "0" and m["hl"][1] > 0, m  # R0, the first request drawn
    projector.keyboard.press("Escape")
    m = box.evaluate(_HL)
    assert m["pinned"] == m["focus"] == "" and m["hl"][1] == 0, m
    chat.click()
    projector.mouse.move(640, 700)
    m = box.evaluate(_HL)
    assert m["pinned"] == m["focus"] == r, m  # a click (a tap) pins it


# The split drawn (chapter 7): the four GPUs in a 2 × 2 grid, so at 1280×720 in lecture mode every lane is ≥ 10 px
# (the element reports its thinnest as data-lane-px; the four stacked panels gave ~3 px) at the question, after the
# reveal and once answered (the fit shrinks the stage then); every request drawn on a GPU has its row label there
# (data-row-labels: per panel, the lanes drawn and those labelled); and R4's KV transfer is a block that moves down
# from the prefill GPU's lane to the decode GPU's as the cursor passes through the transfer, then stays put.
_SPLIT = """(e) => ({lane: parseFloat(e.dataset.lanePx), rows: JSON.parse(e.dataset.rowLabels || '[]'),
  moving: e.dataset.kvMoving, blocks: JSON.parse(e.dataset.kvBlocks || '[]'), cursor: +e.dataset.cursorMs})"""


def _check_split(box, where: str) -> dict:
    m = box.evaluate(_SPLIT)
    assert m["lane"] >= 10, (where, m["lane"])
    assert len(m["rows"]) == 4 and all(p["lanes"] for p in m["rows"]), (where, m["rows"])
    for p in m["rows"]:
        assert sorted(p["labelled"]) == sorted(p["lanes"]), (where, "a request without its row label", p)
    return m


# The cursor and the grid lines pass under a panel's title (chapter 7's "B · colocated · GPU 2/2 · step 97 of 152" was
# crossed by the cursor): where a column's cursor (data-cursor-xs) runs through a title's box (data-titles), no pixel of
# that box's column has the cursor's colour, which the same column shows just below the title.
_UNDER_TITLES = """(e) => { const c = e.querySelector('canvas'), ctx = c.getContext('2d'), k = c.width / c.clientWidth;
  const px = (x, y) => Array.from(ctx.getImageData(Math.floor(x * k), Math.floor(y * k), 1, 1).data).join(',');
  const xs = JSON.parse(e.dataset.cursorXs || '[]'), titles = JSON.parse(e.dataset.titles || '[]'), out = [];
  for (const x of xs) for (const t of titles) {
    if (x < t[0] + 2 || x > t[2] - 2) continue;
    const cursor = px(x, t[3] + 3);
    let hits = 0; for (let y = t[1] + 1; y < t[3] - 1; y++) if (px(x, y) === cursor) hits++;
    out.push({x, title: t, cursor, hits});
  }
  return out; }"""


def _check_cursor_under_titles(box, where: str) -> None:
    crossed = box.evaluate(_UNDER_TITLES)
    assert crossed, (where, "no cursor runs through a title here: nothing was checked")
    assert all(c["hits"] == 0 for c in crossed), (where, crossed)


def _scrub_to(box, ms: float) -> None:
    box.evaluate("(e, ms) => { const s = e.querySelector('.scrub'); s.value = ms; s.dispatchEvent(new Event('input')); }",
                 ms)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_split_is_drawn_with_readable_lanes_and_moving_kv_blocks(projector, server_url, lang):
    from chunkviz.lessons import split
    from chunkviz.lessons.predictions import prediction

    ch = next(c for c in CHAPTERS if c.slug == "split-kitchen")
    kv = next(x for x in split.split_run("disagg").transfers if x.request_id == 4)
    box = _open_slide(projector, server_url, ch, lang)
    _check_split(box, "question")
    box.focus()
    projector.keyboard.press("PageDown")  # the reveal
    settled(projector, box)
    _check_split(box, "reveal")
    _check_cursor_under_titles(box, "reveal")
    ys = []
    a, b = kv.start_s * 1e3, kv.ready_s * 1e3
    for ms in (a + (b - a) * f for f in (0.1, 0.4, 0.7, 0.95)):
        _scrub_to(box, ms)
        m = _check_split(box, f"{ms:.0f} ms")
        assert "4" in m["moving"].split(","), (ms, m["moving"])  # on the wire
        ys.append(next(y for r, y in m["blocks"] if r == 4))
    assert ys == sorted(ys) and ys[-1] - ys[0] >= 40, ys  # it moves down, from GPU to GPU
    _scrub_to(box, b + 5)
    m = box.evaluate(_SPLIT)
    assert "4" not in m["moving"].split(",") and next(y for r, y in m["blocks"] if r == 4) >= ys[-1], m
    projector.keyboard.press("PageDown")
    p = prediction(ch.number)
    projector.locator(".st-key-predict [data-testid='stRadioOption']").nth(p.option_ids.index(p.correct_option)).click()
    projector.wait_for_timeout(250)
    wait_for_app(projector, timeout_ms=90000)
    projector.get_by_test_id("stAlertContentSuccess").first.wait_for(timeout=90000)
    projector.wait_for_timeout(500)  # the fit follows the verdict's arrival
    box = projector.locator(BOX).first
    _check_split(box, "answered")
    assert float(box.get_attribute("data-fit-px")) < 330  # the fit did shrink the stage, and the lanes stayed ≥ 10 px
    projector.screenshot(path=str(SHOTS / f"ch7-{lang}-split-answered.png"))


# Chapter 6's budget as a handle on the slide: the runs of the chapter's sweep (256/512/1024/2048 tokens) arrive once
# with the page; ←/→ on the handle, or a drag, switches the drawn run in the browser (another step count, another
# verdict line) while the page sends nothing to the server (no websocket frame: no rerun) and the element is not
# re-mounted (window.__cvMounts).
_HANDLE = """(e) => ({variant: e.dataset.variant, counters: e.dataset.counters, mounts: window.__cvMounts,
  verdict: e.querySelector('.handle-verdict').textContent, value: e.querySelector('.handle-value').textContent})"""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_chapter_6_budget_handle_switches_runs_without_a_rerun(browser, server_url, lang):
    from chunkviz.lessons.budgets import BUDGETS_TOKENS
    from chunkviz.lessons.chapters import scenario_for

    ch = next(c for c in CHAPTERS if c.number == 6)
    steps = {b: len(run_scenario(scenario_for(ch, ch.policies[0], b)).steps) for b in BUDGETS_TOKENS}
    context = browser.new_context(viewport=VIEW)
    page = context.new_page()
    sent = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(payload)))
    try:
        page.goto(f"{server_url}/{ch.slug}?present=1&lang={lang}")
        wait_for_app(page, timeout_ms=90000)
        box = page.locator(BOX).first
        page.locator(f"{BOX} canvas").first.wait_for(timeout=90000)
        page.wait_for_timeout(1000)  # the cursor's URL write and any late rerun settle
        m0 = box.evaluate(_HANDLE)
        assert m0["variant"] == "512" and f"{steps[512]}" in m0["counters"], m0
        handle = page.locator(f"{BOX} .handle")
        frames = len(sent)
        handle.focus()
        page.keyboard.press("ArrowRight")
        m1 = box.evaluate(_HANDLE)
        assert m1["variant"] == "1024" and f"{steps[1024]}" in m1["counters"] and m1["value"] == "1,024", m1
        bb = handle.bounding_box()  # a drag to the left end: 256 tokens
        page.mouse.move(bb["x"] + bb["width"] - 4, bb["y"] + bb["height"] / 2)
        page.mouse.down()
        page.mouse.move(bb["x"] + 1, bb["y"] + bb["height"] / 2, steps=8)
        page.mouse.up()
        m2 = box.evaluate(_HANDLE)
        assert m2["variant"] == "256" and f"{steps[256]}" in m2["counters"], m2
        page.wait_for_timeout(600)
        assert m2["mounts"] == m0["mounts"] and len(sent) == frames, (m0, m2, len(sent) - frames)
        assert page.locator('[data-testid="stApp"]').get_attribute("data-test-script-state") == "notRunning"
        page.screenshot(path=str(SHOTS / f"ch6-{lang}-handle.png"))
    finally:
        context.close()


# Outside lecture mode (a student's `/`, a chapter without ?present=1) every lane has its row label once lanes are as
# tall as a label: R0's was never drawn (a condition on the row's offset, 0 for the first row).
@pytest.mark.parametrize("path, key", [("", ".st-key-timeline"), ("ch1-kitchen", ".st-key-stage")])
def test_every_lane_has_its_row_label_outside_lecture_mode(projector, server_url, path, key):
    projector.goto(f"{server_url}/{path}")
    wait_for_app(projector, timeout_ms=90000)
    box = projector.locator(f"{key} .cv").first
    projector.locator(f"{key} .cv canvas").first.wait_for(timeout=90000)
    m = box.evaluate(_SPLIT)
    assert m["lane"] >= 14 and m["rows"], m  # lanes as tall as a label: each row has room for its own
    for p in m["rows"]:
        assert p["lanes"] and 0 in p["lanes"] and p["labelled"] == p["lanes"], (path, p)
    box.evaluate("e => e.scrollIntoView({block: 'start'})")
    projector.screenshot(path=str(SHOTS / f"row-labels-{path or 'timeline'}.png"))


# A chat window's typed words keep their newest end in sight: a line too long for its window is cut at its start, so
# the last word and the ▌ stay inside the window (chapter 2's question: "… one more dish for each tab…" hid both).
_CHAT_TAILS = """(e) => [...e.querySelectorAll('.chat .text')].filter((t) => t.textContent && t.offsetWidth).map((t) => {
  const node = t.querySelector('span').firstChild, g = document.createRange(), n = node.textContent.length;
  g.setStart(node, n - 1); g.setEnd(node, n);
  const r = g.getBoundingClientRect(), b = t.getBoundingClientRect();
  return {text: t.textContent, cut: t.scrollWidth > t.clientWidth + 1, tail: [r.left, r.right], box: [b.left, b.right]}; })"""


def test_a_chat_window_keeps_its_newest_words_in_sight(projector, server_url):
    ch = next(c for c in CHAPTERS if c.number == 2)
    box = _open_slide(projector, server_url, ch, "en")
    chats = box.evaluate(_CHAT_TAILS)
    assert any(c["cut"] for c in chats), chats  # at the question one window's words are longer than it is wide
    for c in chats:
        assert c["text"].endswith("▌") and c["box"][0] - 1 <= c["tail"][0] and c["tail"][1] <= c["box"][1] + 1, c
