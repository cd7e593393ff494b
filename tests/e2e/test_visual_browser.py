"""Real browser, lecture mode, 1280×720 (issue 35, the visual part): on every lane chapter, in English and 中文, after
the reveal (a clicker's PageDown) and at the run's end, the labels the comparison element draws (the rectangles it
reports in data-labels and box.__cvLayout) are pairwise disjoint, touch none of the bars, steps rows, KV bands and
titles drawn on the canvas, and lie inside it. Screenshots go to test-artifacts/screenshots/visual/.

One page per language walks the chapters, on the session's shared server (conftest.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from chunkviz.lessons.chapters import CHAPTERS
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
