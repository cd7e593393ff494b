"""Dev tool: screenshots of every chapter's slide in lecture mode, at the question's moment and after answering.

Usage: .venv/bin/python scripts/slide_shots.py [--size 1366x768] [--langs en,zh] [--schemes light,dark]
       [--chapters 1,2,...] [--out test-artifacts/screenshots/slides-1366]
Writes ch<N>-<lang>-<scheme>-{question,answered}.png and measures.json: per shot the boxes of the stage, the
question, the verdict and the metric line, whether each lies inside the window, and every text element whose text
is cut (scrollWidth > clientWidth, e.g. an ellipsis). Look at the PNGs; the JSON says where to look.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from playwright.sync_api import sync_playwright  # noqa: E402

from chunkviz.lessons.chapters import CHAPTERS  # noqa: E402
from chunkviz.lessons.predictions import prediction  # noqa: E402
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, ROOT, _free_port, start_server, wait_for_app, warm_up  # noqa: E402

READY = {3: ".st-key-stage .cv.attention canvas", 4: ".st-key-stage .kvs .cell"}
MEASURE = """() => {
  const q = (sel, root = document) => { const hit = root.querySelector(sel); if (hit) return hit;
    for (const e of root.querySelectorAll('*')) if (e.shadowRoot) { const x = q(sel, e.shadowRoot); if (x) return x; }
    return null; };
  const r = (e) => { if (!e) return null; const b = e.getBoundingClientRect();
                     return [Math.round(b.left), Math.round(b.top), Math.round(b.right), Math.round(b.bottom)]; };
  const caps = document.querySelectorAll('.st-key-predict [data-testid="stCaptionContainer"]');
  const cut = [];
  const walk = (root) => { for (const e of root.querySelectorAll('*')) {
    if (e.shadowRoot) walk(e.shadowRoot);
    if (e.closest('[data-testid="stSidebar"], [data-testid="stSkipToContent"]')) continue;
    const b = e.getBoundingClientRect(); if (!b.width) continue;
    if (e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== 'visible' && e.textContent.trim()
        && !['auto', 'scroll'].includes(getComputedStyle(e).overflowX))
      cut.push([e.className.toString().slice(0, 40) || e.tagName, e.textContent.trim().slice(0, 60), e.scrollWidth, e.clientWidth]);
  } };
  walk(document);
  return {stage: r(document.querySelector('.st-key-stage')), predict: r(document.querySelector('.st-key-predict')),
          verdict: r(document.querySelector('.st-key-predict [data-testid="stAlert"]')),
          metric: caps.length ? r(caps[caps.length - 1]) : null,
          handle: r(q('.cv .handle-row')), canvas: r(q('.cv canvas')),
          page_width: document.documentElement.scrollWidth, cut};
}"""


def _inside(box, w: int, h: int) -> bool | None:
    return None if box is None else box[0] >= 0 and box[1] >= 0 and box[2] <= w and box[3] <= h


def shoot(page, base: str, number: int, lang: str, scheme: str, out: Path, w: int, h: int) -> dict:
    slug = CHAPTERS[number - 1].slug
    page.goto(f"{base}/{slug}?present=1&lang={lang}")
    wait_for_app(page, timeout_ms=120000)
    page.locator(READY.get(number, ".st-key-stage .cv canvas")).first.wait_for(timeout=120000)
    page.locator(".st-key-predict [data-testid='stRadioOption']").first.wait_for(timeout=120000)
    page.mouse.move(w // 2, h - 4)
    page.wait_for_timeout(800)
    found = {}
    for moment in ("question", "answered"):
        if moment == "answered":
            p = prediction(number)
            page.locator(".st-key-predict [data-testid='stRadioOption']").nth(
                p.option_ids.index(p.correct_option)).click()
            page.wait_for_timeout(250)
            wait_for_app(page, timeout_ms=120000)
            page.get_by_test_id("stAlertContentSuccess").first.wait_for(timeout=120000)
            page.mouse.move(w // 2, h - 4)
            page.wait_for_timeout(1200)
        name = f"ch{number}-{lang}-{scheme}-{moment}"
        page.screenshot(path=str(out / f"{name}.png"))
        m = page.evaluate(MEASURE)
        m["inside"] = {k: _inside(m[k], w, h) for k in ("stage", "predict", "verdict", "metric", "handle", "canvas")}
        found[name] = m
        print(name, json.dumps(m["inside"]), "cut:", m["cut"][:6], "width:", m["page_width"], flush=True)
    return found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="1366x768")
    ap.add_argument("--langs", default="en,zh")
    ap.add_argument("--schemes", default="light,dark")
    ap.add_argument("--chapters", default=",".join(str(c.number) for c in CHAPTERS))
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    w, h = (int(x) for x in a.size.lower().split("x"))
    out = Path(a.out or ROOT / "test-artifacts" / "screenshots" / f"slides-{w}")
    out.mkdir(parents=True, exist_ok=True)
    port = _free_port()
    proc = start_server(port)
    found: dict = {}
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            base = f"http://127.0.0.1:{port}"
            warm_up(browser, base + "/")
            for scheme in a.schemes.split(","):
                context = browser.new_context(viewport={"width": w, "height": h}, color_scheme=scheme)
                page = context.new_page()
                for lang in a.langs.split(","):
                    for number in (int(n) for n in a.chapters.split(",")):
                        found |= shoot(page, base, number, lang, scheme, out, w, h)
                context.close()
    finally:
        proc.terminate()
        (out / "measures.json").write_text(json.dumps(found, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
