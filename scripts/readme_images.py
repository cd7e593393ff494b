"""Regenerate the README's pictures from the running app: docs/images/*.png at 1280×720.

Usage: .venv/bin/python scripts/readme_images.py [--out DIR] [--only NAME ...]

Starts the app with this venv's streamlit on a free loopback port (tests/e2e/conftest.py's start_server), opens each
view in Debian's headless Chromium through Playwright at a 1280×720 viewport (the projector a slide is judged on) and
saves what that screen shows, not the whole scrollable page. Run it after a change to the UI and commit the PNGs;
tests/test_docs.py checks that the README shows at least one of them.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, _free_port, start_server, wait_for_app, warm_up  # noqa: E402

VIEWPORT = {"width": 1280, "height": 720}
# name -> path and query, all in lecture mode. Chapter 1 opens with its kitchen drawn beside the lanes; chapter 2 opens at its key moment with the question asked; `/` is the
# comparison of both engines on one time axis at the cursor where the app opens.
VIEWS: dict[str, str] = {
    "chapter1-kitchen": "ch1-kitchen?present=1",
    "chapter2-slide": "ch2-long-prefill?present=1",
    "timeline": "?present=1",
}
SETTLE_MS = 2000  # the components draw on a canvas after the script is idle; Plotly animates its first frame


def capture(out_dir: Path, names: list[str]) -> list[Path]:
    """Serve the app, save one PNG per view name into out_dir, and return their paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    port = _free_port()
    proc = start_server(port, ROOT)
    written: list[Path] = []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            try:
                warm_up(browser, f"http://127.0.0.1:{port}/")
                for name in names:
                    context = browser.new_context(viewport=VIEWPORT, color_scheme="light")
                    page = context.new_page()
                    page.goto(f"http://127.0.0.1:{port}/{VIEWS[name]}")
                    wait_for_app(page, timeout_ms=120000)
                    page.wait_for_timeout(SETTLE_MS)
                    path = out_dir / f"{name}.png"
                    page.screenshot(path=str(path), full_page=False)
                    context.close()
                    written.append(path)
                    print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
            finally:
                browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images", help="folder for the PNGs")
    parser.add_argument("--only", nargs="+", choices=sorted(VIEWS), help="just these views")
    args = parser.parse_args(argv)
    if not Path(CHROMIUM).exists():
        print(f"readme_images: {CHROMIUM} is missing; `bash scripts/test.sh` installs Debian's chromium",
              file=sys.stderr)
        return 2
    capture(args.out, args.only or list(VIEWS))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
