"""Real-browser fixtures: one Streamlit server per session on a free port, Debian's Chromium via Playwright.

Screenshots go to test-artifacts/screenshots/ (the tests name each file); look at them after a run.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
CHROMIUM = os.environ.get("CHUNKVIZ_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int, root: Path = ROOT, python: str = sys.executable, host: str = "127.0.0.1",
                 env: dict[str, str] | None = None, script: str = "app.py") -> subprocess.Popen:
    """Serve `root`'s app (bench/browser_bench.py serves another checkout with its own venv) and wait until healthy.
    `host` is a loopback address (127.0.0.2, … stand in for other machines); `env` is added to this process's;
    `script` serve.py serves the app with the class room's routes (st.App)."""
    cmd = [python, "-m", "streamlit", "run", str(root / script), "--server.headless=true",
           f"--server.address={host}", f"--server.port={port}", "--browser.gatherUsageStats=false",
           "--server.fileWatcherType=none", "--global.developmentMode=false", "--client.toolbarMode=minimal"]
    proc = subprocess.Popen(cmd, cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env={**os.environ, **env} if env else None)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # bounded wait for /_stcore/health
        try:
            with urllib.request.urlopen(f"http://{host}:{port}/_stcore/health", timeout=2) as r:
                if r.read().strip() == b"ok":
                    return proc
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise RuntimeError("Streamlit server did not become healthy within 60 s")


def warm_up(browser, url: str) -> None:
    """Load the main page once: st.navigation registers the pages' url paths on its first run, so before that a
    deep link (e.g. /kv) shows Streamlit's "Page not found" dialog on a freshly started server."""
    page = browser.new_page()
    page.goto(url)
    wait_for_app(page, timeout_ms=120000)
    page.close()


def stop_server(proc: subprocess.Popen) -> None:
    """Stop a server start_server began: terminate, then kill after 10 s."""
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


def _served(browser, **server):
    """A warmed app server for the session (start_server's `server` options); stopped when the session ends."""
    port = _free_port()
    proc = start_server(port, **server)
    warm_up(browser, f"http://127.0.0.1:{port}/")
    yield f"http://127.0.0.1:{port}"
    stop_server(proc)


@pytest.fixture(scope="session")
def server_url(browser):
    yield from _served(browser)


ROOM_KEY = "e2e-teacher-key-0123456789"
ROOM_CODE = "E2EROOM"


@pytest.fixture(scope="session")
def room_server_url(browser):
    """One serve.py server (the app with the room routes, st.App) per session, room ROOM_CODE open, key ROOM_KEY."""
    yield from _served(browser, script="serve.py", env={"CHUNKVIZ_TEACHER_KEY": ROOM_KEY, "CHUNKVIZ_ROOM": ROOM_CODE})


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: the test command installs Debian's chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture()
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 2400})  # tall: Streamlit scrolls inside
    p = context.new_page()
    yield p
    context.close()


def wait_for_app(page, timeout_ms: int = 30000) -> None:
    """Streamlit's own recipe: a short pause, then script idle and no skeletons left."""
    page.wait_for_timeout(250)
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=timeout_ms)
    page.wait_for_function("document.querySelectorAll('[data-testid=\"stSkeleton\"]').length === 0",
                           timeout=timeout_ms)
    page.wait_for_timeout(150)


def settled(page, element, timeout_ms: int = 2000) -> None:
    """Wait until `element` (a locator) carries no data-animating: a step's glide (the motion convention, issue 35)
    has drawn its last frame, the frame a move without motion draws, so rectangles and pixels read are final."""
    page.wait_for_function("(e) => !e.hasAttribute('data-animating')", arg=element.element_handle(), timeout=timeout_ms)


def screenshot(page, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


PROJECTOR = {"width": 1280, "height": 720}


@pytest.fixture()
def projector(browser, request):
    """A fresh 1280×720 tab (a projector's screen) in its own context, light unless the test parametrizes the fixture
    indirectly with "dark"; closed after the test."""
    context = browser.new_context(viewport=PROJECTOR, color_scheme=getattr(request, "param", "light"))
    page = context.new_page()
    yield page
    context.close()
