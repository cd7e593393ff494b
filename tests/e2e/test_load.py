"""Load: 20 browser sessions at once on one Streamlit server, stepping and changing parameters.

Each session must see its own correct results and no error; the test prints (and writes to
test-artifacts/load-report.json) the server-side latency percentiles per action and the server's peak memory.
"""

from __future__ import annotations

import asyncio
import json
import os
from concurrent.futures import ThreadPoolExecutor
import time
from pathlib import Path

import pytest

from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, ROOT, _free_port, start_server

pytestmark = [pytest.mark.e2e, pytest.mark.slow]
NUM_SESSIONS = 20
REPORT = ROOT / "test-artifacts" / "load-report.json"


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process (server-side work, whatever the browsers are doing)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def _settle(page) -> None:
    await page.wait_for_timeout(250)
    await page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=120000)


async def _session(browser, base_url: str, index: int, timings: list[tuple[str, float]]) -> dict:
    await asyncio.sleep(0.5 * index)  # students join over ten seconds, not in the same millisecond
    context = await browser.new_context(viewport={"width": 1200, "height": 900})
    context.set_default_timeout(180000)  # 20 browsers and the server share two cores
    page = await context.new_page()
    budget = (256, 512, 1024, 2048)[index % 4]
    t0 = time.perf_counter()
    # A classroom-size scenario (16 requests): the load is on the server, not on 20 software-rendered charts.
    await page.goto(f"{base_url}/?n=16&budget={budget}&step={index}")
    await _settle(page)
    await page.wait_for_selector(".st-key-timeline canvas", state="attached", timeout=180000)
    timings.append(("first render", time.perf_counter() - t0))
    for _ in range(3):  # bounded: three steps per session (in the browser: the server is not involved)
        t0 = time.perf_counter()
        await page.locator(".st-key-timeline button").nth(3).click()
        await _settle(page)
        timings.append(("step click", time.perf_counter() - t0))
    t0 = time.perf_counter()
    await page.goto(f"{base_url}/?n=16&budget={budget * 2}&pa=sglang&step=5")
    await _settle(page)
    timings.append(("parameter change", time.perf_counter() - t0))
    await page.get_by_test_id("stSliderThumbValue").first.wait_for(timeout=180000)
    thumbs = [await t.text_content() for t in await page.get_by_test_id("stSliderThumbValue").all()]
    errors = await page.get_by_test_id("stException").count()
    await context.close()
    return {"index": index, "thumbs": thumbs, "errors": errors, "budget": budget * 2}


async def _drive(base_url: str) -> tuple[list[dict], list[tuple[str, float]]]:
    from playwright.async_api import async_playwright

    timings: list[tuple[str, float]] = []
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        warm = await browser.new_page()  # registers the pages (see conftest.warm_up)
        await warm.goto(base_url)
        await _settle(warm)
        await warm.close()
        results = await asyncio.gather(*(_session(browser, base_url, i, timings) for i in range(NUM_SESSIONS)))
        await browser.close()
    return list(results), timings


def _percentiles(values: list[float]) -> dict[str, float]:
    values = sorted(values)
    pick = lambda q: values[min(len(values) - 1, int(round(q * (len(values) - 1))))]  # noqa: E731
    return {"p50_ms": pick(0.5) * 1e3, "p90_ms": pick(0.9) * 1e3, "max_ms": values[-1] * 1e3, "count": len(values)}


def test_twenty_concurrent_sessions():
    port = _free_port()
    proc = start_server(port)
    cpu_before_s = _cpu_s(proc.pid)
    try:
        # Own thread, own event loop: the other browser tests' sync Playwright keeps a loop running in this one.
        with ThreadPoolExecutor(max_workers=1) as pool:
            run = pool.submit(asyncio.run, asyncio.wait_for(_drive(f"http://127.0.0.1:{port}"), timeout=900))
            results, timings = run.result()
        peak_mib = _peak_rss_mib(proc.pid)
        server_cpu_s = _cpu_s(proc.pid) - cpu_before_s
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    for r in results:
        assert r["errors"] == 0, r
        assert str(r["budget"]) in r["thumbs"], r  # each session sees its own values
    report = {kind: _percentiles([t for k, t in timings if k == kind])
              for kind in ("first render", "step click", "parameter change")}
    report["server_peak_rss_mib"] = peak_mib
    # Client-side latencies include 20 headless Chromiums sharing the machine; the server's own CPU per page run
    # (1 warm-up + 5 runs per session) says what the server costs.
    report["server_cpu_s"] = server_cpu_s
    report["server_cpu_ms_per_run"] = server_cpu_s / (1 + 5 * NUM_SESSIONS) * 1e3
    report["sessions"] = NUM_SESSIONS
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    REPORT.write_text(json.dumps(report, indent=2))
    print(json.dumps(report, indent=2))
    assert peak_mib < 4096  # bounded caches: far below the machine's memory
