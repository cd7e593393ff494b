"""A class in Chromium through the real HAProxy in front of two replicas, started by `CHUNKVIZ_WORKERS=2 bash
scripts/run-app.sh` (tests/class_run.py): in this file's order,
1. a fresh start answers deep links only — students never open "/" — without "Page not found" on either replica
   (each replica is warmed before the proxy opens; shared/guides/streamlit.md §8), watched by a MutationObserver that
   sees the dialog even if the app's own dismissal closes it at once;
2. the cookie keeps a browser on its replica and uploads work; the same replicas behind a proxy that sends each
   request to a random replica, without the cookie (scripts/proxy_config.py --no-cookie), fail uploads (HTTP 400):
   the control of §9;
3. a replica killed: its browser reconnects through the proxy to the other replica and lands on the same page with
   the same settings and cursor (the URL carries them).
Loopback only.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from urllib.parse import urlsplit

import pytest

from chunkviz.lessons.chapters import CHAPTERS
from tests.class_run import ROOT, class_run, free_port
from tests.e2e.conftest import screenshot, wait_for_app

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(900)]
TRACE_CSV = "\n".join((ROOT / "chunkviz" / "data" / "azure_conv_sample.csv").read_text().splitlines()[:30]) + "\n"
# Records every "Page not found" dialog the moment it is attached, before anything can close it.
WATCH_DIALOGS = """
window.__notFound = 0;
new MutationObserver(() => {
  for (const d of document.querySelectorAll('[role="dialog"]')) {
    if (d.textContent.includes("Page not found") && !d.__seen) { d.__seen = true; window.__notFound += 1; }
  }
}).observe(document, {subtree: true, childList: true});
"""


@pytest.fixture(scope="module")
def klass():
    with class_run(2) as run:
        yield run


def _pinned(browser, run, replica: str):
    """A browser context whose proxy cookie names `replica` (as after its first visit), watching for the dialog."""
    context = browser.new_context(viewport={"width": 1400, "height": 1600})
    context.add_cookies([{"name": "CVSRV", "value": replica, "url": run.url}])
    context.add_init_script(WATCH_DIALOGS)
    return context


def _cookie(context, url: str) -> str:
    """The replica the proxy's cookie names for `url` in this browser ("" without one)."""
    return next((c["value"] for c in context.cookies(url) if c["name"] == "CVSRV"), "")


def test_a_fresh_start_answers_deep_links_only(browser, klass):
    slugs = [CHAPTERS[1].slug, "kv"]
    for replica in ("r1", "r2"):
        context = _pinned(browser, klass, replica)
        try:
            for slug in slugs:  # bounded: two deep links per replica, the first ones it gets from a browser
                page = context.new_page()
                page.goto(f"{klass.url}/{slug}")
                wait_for_app(page, timeout_ms=180000)
                assert page.evaluate("window.__notFound") == 0, (replica, slug)
                assert urlsplit(page.url).path == f"/{slug}"
                assert page.get_by_test_id("stException").count() == 0
                if slug == CHAPTERS[1].slug:
                    assert page.locator(".st-key-stage").count() == 1
                    screenshot(page, f"class_proxy_deep_link_{replica}")
                page.close()
            assert _cookie(context, klass.url) == replica  # stayed on its replica
        finally:
            context.close()


def _upload_statuses(browser, base_url: str, attempts: int) -> tuple[list[int], str, int]:
    """Open the traces page's upload box and upload `attempts` files: the HTTP statuses of the uploads (PUTs), the
    replica cookie, and how many uploads the app itself then read (its caption names the file it loaded: an upload
    stored on another replica than the session's is not found there, and the page falls back to the sample)."""
    statuses: list[int] = []
    loaded = 0
    context = browser.new_context(viewport={"width": 1400, "height": 1600})
    try:
        page = context.new_page()
        page.on("response", lambda r: statuses.append(r.status)
                if "/_stcore/upload_file/" in r.url and r.request.method == "PUT" else None)
        page.goto(f"{base_url}/traces?rt_source=upload")
        wait_for_app(page, timeout_ms=180000)
        box = page.locator(".st-key-rt_upload input[type=file]")
        for i in range(attempts):  # bounded
            expected = len(statuses) + 1
            box.set_input_files({"name": f"class{i}.csv", "mimeType": "text/csv", "buffer": TRACE_CSV.encode()})
            deadline = time.monotonic() + 60
            while len(statuses) < expected and time.monotonic() < deadline:
                page.wait_for_timeout(200)
            wait_for_app(page, timeout_ms=180000)
            caption = page.locator('[data-testid="stCaptionContainer"]', has_text=f"class{i}.csv")
            try:
                caption.first.wait_for(timeout=15000)
                loaded += 1
            except Exception:  # the app did not read this upload (bounded wait)
                pass
        return statuses, _cookie(context, base_url), loaded
    finally:
        context.close()


def test_sticky_uploads_work_and_the_no_cookie_control_fails(browser, klass, tmp_path):
    statuses, replica, loaded = _upload_statuses(browser, klass.url, 4)
    assert len(statuses) == 4 and all(200 <= s < 300 for s in statuses), statuses
    assert replica in ("r1", "r2") and loaded == 4, (replica, loaded)

    # The control: the same two replicas behind HAProxy without stickiness (each request to a random replica; with 8
    # uploads the chance that every one meets the session's replica is 1 in 256).
    port = free_port()
    backends = [a for r in klass.state["replicas"] for a in ("--backend", r["url"].removeprefix("http://"))]
    config = tmp_path / "no-cookie.cfg"
    subprocess.run([sys.executable, str(ROOT / "scripts" / "proxy_config.py"), "--bind", f"127.0.0.1:{port}",
                    *backends, "--no-cookie", "-o", str(config)], check=True, timeout=30)
    haproxy = "/usr/sbin/haproxy" if os.access("/usr/sbin/haproxy", os.X_OK) else "haproxy"
    control = subprocess.Popen([haproxy, "-db", "-f", str(config)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        time.sleep(1)
        assert control.poll() is None
        statuses, replica, loaded = _upload_statuses(browser, f"http://127.0.0.1:{port}", 8)
    finally:
        control.terminate()
        control.wait(timeout=10)
    # Without affinity an upload that reaches the other replica is refused there (HTTP 400 "Invalid session_id") and
    # the app does not read it.
    assert replica == "" and len(statuses) == 8 and 400 in statuses and loaded < 8, (statuses, loaded)


def test_a_killed_replica_s_browser_lands_on_the_same_page_elsewhere(browser, klass):
    context = _pinned(browser, klass, "r1")
    try:
        page = context.new_page()
        link = f"{klass.url}/replacement?pr_seed=4321&pr_step=5&pr_alg=lru&pr_frames=4"
        page.goto(link)
        wait_for_app(page, timeout_ms=180000)
        seed = page.locator(".st-key-pr_seed input")
        assert seed.input_value() == "4321"
        cursor = page.get_by_text(re.compile(r"^Reference \d+ of \d+")).first
        before_url, before_cursor = page.url, cursor.text_content()
        assert before_cursor.startswith("Reference 5 of 12")
        os.kill(klass.replica("r1")["pid"], signal.SIGKILL)
        started = time.monotonic()
        deadline = started + 60
        while _cookie(context, klass.url) != "r2" and time.monotonic() < deadline:  # bounded: the reconnect moves it
            page.wait_for_timeout(250)
        assert _cookie(context, klass.url) == "r2"
        wait_for_app(page, timeout_ms=60000)
        moved_s = time.monotonic() - started
        assert page.url == before_url  # page, settings and the cursor (pr_step) ride in the URL
        assert page.locator(".st-key-pr_seed input").input_value() == "4321"
        assert cursor.text_content() == before_cursor
        assert page.evaluate("window.__notFound") == 0 and page.get_by_test_id("stException").count() == 0
        assert moved_s < 30, moved_s
        screenshot(page, "class_proxy_after_replica_killed")
    finally:
        context.close()
