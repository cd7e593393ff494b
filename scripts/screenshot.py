"""Dev tool: start the app on a free port and save full-page screenshots of URLs.

Usage: .venv/bin/python scripts/screenshot.py "replacement?lang=zh|pr-zh.png" ["kv|kv.png" ...]
Each argument is PATH_AND_QUERY|OUTPUT_PNG; the viewport is 1400×2600 so long pages fit.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from playwright.sync_api import sync_playwright  # noqa: E402

from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, _free_port, start_server, wait_for_app, warm_up  # noqa: E402


def main(args: list[str]) -> None:
    port = _free_port()
    proc = start_server(port)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            warm_up(browser, f"http://127.0.0.1:{port}/")
            for arg in args:
                path, out = arg.split("|", 1)
                page = browser.new_page(viewport={"width": 1400, "height": 2600})
                page.goto(f"http://127.0.0.1:{port}/{path}")
                wait_for_app(page)
                page.wait_for_timeout(1500)  # let Plotly finish drawing
                page.screenshot(path=out, full_page=True)
                page.close()
                print(out)
    finally:
        proc.terminate()


if __name__ == "__main__":
    main(sys.argv[1:])
