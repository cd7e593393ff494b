"""Helpers for browser tests of a class room (tests/e2e/test_room_browser.py, test_room_fault_browser.py): open a
page as a student or teacher (optionally pinned to a replica by the proxy's cookie), read a stepper's cursor, and
wait, bounded, for something to become true.

Invariant: every wait here is bounded by its `timeout_ms`; a wait that runs out asserts, so a test fails, never hangs.
"""

from __future__ import annotations

from tests.e2e.conftest import wait_for_app

LANES = ".st-key-c1_lanes .cv"


def open_page(browser, url: str, replica: str | None = None, proxy_url: str | None = None):
    """A 1280×720 page on `url`; with `replica`, its context first carries the proxy's cookie (CVSRV) naming it."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    if replica is not None:
        context.add_cookies([{"name": "CVSRV", "value": replica, "url": proxy_url or url}])
    page = context.new_page()
    page.goto(url)
    wait_for_app(page, timeout_ms=180000)
    return page


def cursor(page) -> float:
    return float(page.locator(LANES).get_attribute("data-cursor-ms"))


def poll(predicate, page, timeout_ms: int) -> None:
    for _ in range(max(1, timeout_ms // 50)):  # bounded
        if predicate():
            return
        page.wait_for_timeout(50)
    assert predicate()


def follows(student, teacher, timeout_ms: int = 1000) -> None:
    """The student's cursor equals the teacher's within `timeout_ms` (the issue's 1 s)."""
    want = cursor(teacher)
    poll(lambda: abs(cursor(student) - want) < 0.01, student, timeout_ms)
