"""A class on one server (issue 26): forty sessions opening the same chapter at once cost one simulation per engine
of that chapter, not forty; every cache in ui/ and pages/ is bounded.

The server is a real Streamlit process on 127.0.0.1 whose run_scenario is wrapped to append one line per call to a
file (the wrap is installed before the app imports it); forty websocket sessions (bench/st_client.py, Streamlit's own
protocol, no browser) open chapter 1 concurrently.
"""

from __future__ import annotations

import ast
import asyncio
from concurrent.futures import ThreadPoolExecutor
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from bench.st_client import Session
from tests.e2e.conftest import _free_port

ROOT = Path(__file__).resolve().parents[1]
NUM_STUDENTS = 40
# Runs the app with run_scenario counted: one line (a digest of the scenario) per call, appended to argv[1].
COUNTING_SERVER = """
import hashlib, sys
import chunkviz.analysis.scenario as scenario
count_file, port = sys.argv[1], sys.argv[2]
real_run = scenario.run_scenario
def counted(sc, *args, **kwargs):
    with open(count_file, "a") as fh:
        fh.write(hashlib.sha256(repr(sc).encode()).hexdigest()[:16] + "\\n")
    return real_run(sc, *args, **kwargs)
scenario.run_scenario = counted
from streamlit.web.cli import main
sys.argv = ["streamlit", "run", "app.py", "--server.headless=true", "--server.address=127.0.0.1",
            f"--server.port={port}", "--browser.gatherUsageStats=false", "--server.fileWatcherType=none",
            "--global.developmentMode=false"]
main()
"""


def _wait_healthy(port: int, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # bounded
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                if r.read().strip() == b"ok":
                    return
        except OSError:
            time.sleep(0.3)
    proc.kill()
    pytest.fail("the counting server did not become healthy within 60 s")


async def _class_opens_chapter_1(url: str) -> list[bool]:
    teacher = Session(url)  # the teacher's tab on "/" first: a fresh server's first deep link needs it
    await teacher.open()
    assert (await teacher.rerun(page_name="")).ok
    await teacher.close()
    students = [Session(url) for _ in range(NUM_STUDENTS)]
    await asyncio.gather(*(s.open() for s in students))
    results = await asyncio.gather(*(s.rerun(page_name="ch1-kitchen") for s in students))
    await asyncio.gather(*(s.close() for s in students))
    return [r.ok for r in results]


def test_forty_sessions_opening_a_chapter_run_each_simulation_once(tmp_path):
    count_file = tmp_path / "runs.txt"
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-c", COUNTING_SERVER, str(count_file), str(port)], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_healthy(port, proc)
        # In a thread of its own: in the whole suite Playwright's sync API (tests/e2e) keeps an event loop running
        # in this thread, where asyncio.run refuses to start another.
        with ThreadPoolExecutor(max_workers=1) as pool:
            oks = pool.submit(lambda: asyncio.run(asyncio.wait_for(
                _class_opens_chapter_1(f"ws://127.0.0.1:{port}"), 240))).result()
        runs = count_file.read_text().split()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert oks == [True] * NUM_STUDENTS  # every student's page ran to the end, no exception shown
    teacher_runs = 1  # the timeline page's sidebar scenario
    assert len(runs) > teacher_runs  # the chapter's runs did happen on this fresh server ...
    assert sorted(set(runs)) == sorted(runs)  # ... and each scenario ran once for the forty students, not forty times


def _cache_decorators(path: Path):
    for node in ast.walk(ast.parse(path.read_text())):
        for deco in getattr(node, "decorator_list", ()):
            if isinstance(deco, ast.Call) and getattr(deco.func, "attr", "") in ("cache_data", "cache_resource"):
                yield node.name, {kw.arg for kw in deco.keywords}
            elif getattr(deco, "attr", "") in ("cache_data", "cache_resource"):  # bare @st.cache_data
                yield node.name, set()


def test_every_cache_in_the_app_is_bounded():
    # st.cache_data / st.cache_resource are process-wide: an unbounded one grows with every student's settings.
    files = [*ROOT.glob("ui/**/*.py"), *ROOT.glob("pages/*.py"), ROOT / "app.py"]
    found = [(str(p.relative_to(ROOT)), name, kws) for p in files for name, kws in _cache_decorators(p)]
    assert len(found) >= 15  # the app's caches were found at all
    assert [(p, name) for p, name, kws in found if not kws & {"max_entries", "ttl"}] == []


def test_a_sweep_asked_for_by_two_sessions_at_once_runs_once(monkeypatch):
    # The trade-offs page's points: the second session waits on the first's run instead of repeating it.
    import threading
    from dataclasses import replace

    from chunkviz.analysis.scenario import DEFAULT_SCENARIO, run_scenario
    from ui.tradeoffs import runs

    calls = []

    def slow_counted_run(scenario):
        calls.append(scenario)
        time.sleep(0.2)  # long enough for the other session to arrive while this one computes
        return run_scenario(scenario)

    monkeypatch.setattr(runs, "run_scenario", slow_counted_run)
    monkeypatch.setattr(runs, "_pool", lambda: None)  # in this process, so the calls can be counted
    runs._cache.clear()
    small = replace(DEFAULT_SCENARIO, workload=replace(DEFAULT_SCENARIO.workload, num_requests=4))
    points = [small.with_policy(small.scheduler.policy, budget) for budget in (256, 512)]
    results = [None, None]
    sessions = [threading.Thread(target=lambda i=i: results.__setitem__(i, runs.run_points(points))) for i in (0, 1)]
    for s in sessions:
        s.start()
    for s in sessions:
        s.join(timeout=60)
    assert len(calls) == len(points)  # not 2 x len(points)
    assert results[0] == results[1] and len(results[0]) == len(points)
