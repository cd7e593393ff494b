"""Real browser, lecture mode, 1280×720 (issue 35, the visual part): on every lane chapter, in English and 中文, after
the reveal (a clicker's PageDown) and at the run's end, the labels the comparison element draws (the rectangles it
reports in data-labels and box.__cvLayout) are pairwise disjoint, touch none of the bars, steps rows, KV bands and
titles drawn on the canvas, and lie inside it. A slide's caption per moment: one line above the stage that, at every
stop PageDown walks, quotes the scheduler's why-sentence (chunkviz/analysis/why.py) of the step at the cursor, on the
engine of that moment. Screenshots go to test-artifacts/screenshots/visual/.

One page per language walks the chapters, on the session's shared server (conftest.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from chunkviz.analysis.scenario import run_scenario
from chunkviz.analysis.why import why_sentences
from chunkviz.lessons.chapters import CHAPTERS, scenario_for
from tests.e2e.conftest import ROOT, wait_for_app

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


@pytest.fixture()
def projector(browser):
    context = browser.new_context(viewport=VIEW)
    page = context.new_page()
    yield page
    context.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_labels_never_overlap_each_other_nor_cover_a_lane(projector, server_url, lang):
    SHOTS.mkdir(parents=True, exist_ok=True)
    for ch in LANE_CHAPTERS:
        projector.goto(f"{server_url}/{ch.slug}?present=1&lang={lang}")
        wait_for_app(projector, timeout_ms=90000)
        box = projector.locator(BOX).first
        projector.locator(f"{BOX} canvas").first.wait_for(timeout=90000)
        box.focus()
        projector.keyboard.press("PageDown")  # the reveal
        assert box.get_attribute("data-held") == "0", (ch.number, lang)
        shown = _check_labels(box, f"ch{ch.number} {lang} reveal")
        assert shown >= 1, (ch.number, lang)
        projector.screenshot(path=str(SHOTS / f"ch{ch.number}-{lang}-labels-reveal.png"))
        projector.keyboard.press("End")
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
        projector.goto(f"{server_url}/{ch.slug}?present=1&lang={lang}")
        wait_for_app(projector, timeout_ms=90000)
        box = projector.locator(BOX).first
        projector.locator(f"{BOX} canvas").first.wait_for(timeout=90000)
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
                projector.screenshot(path=str(SHOTS / f"ch{ch.number}-{lang}-caption.png"))
            if len(seen) > 1 and seen[-1][0] == seen[-2][0]:
                break  # the end: PageDown stays
        assert len({text for _, text in seen}) >= 2, (ch.number, lang, seen)  # the caption moves with the moments
