"""Replicas behind the real HAProxy, with the real Redis, started by the one command a teacher runs
(`CHUNKVIZ_WORKERS=2 bash scripts/run-app.sh`), and the proxy config generator on its own.

Checked here without a browser (tests/e2e/test_class_proxy_browser.py has the browser's side): every replica is
warmed before the proxy opens (a deep link on each replica is answered, not "Page not found"), replicas share the
cookie secret, the Redis URL, the teacher key and the upload cap; the cookie keeps a client on its replica; a killed
replica's clients are redispatched; replicas "on other machines" (127.0.0.2, 127.0.0.3) are warmed and served;
SIGTERM and SIGINT stop every process the start made. Loopback only.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from bench.st_client import Session
from tests.class_run import ROOT, alive, class_run, free_port, need_tools
from tests.e2e.conftest import start_server

pytestmark = pytest.mark.timeout(600)
CONFIG = [sys.executable, str(ROOT / "scripts" / "proxy_config.py")]
DEEP_LINK = "ch2-long-prefill"



def _run_async(coro):
    """Run `coro` to completion on a thread of its own: in the whole suite the browser tests' Playwright keeps an event
    loop running on the main thread, where asyncio.run refuses to start another."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()

def _haproxy_check(text: str, tmp_path: Path) -> subprocess.CompletedProcess:
    need_tools()
    path = tmp_path / "class.cfg"
    path.write_text(text)
    haproxy = "/usr/sbin/haproxy" if os.access("/usr/sbin/haproxy", os.X_OK) else "haproxy"
    return subprocess.run([haproxy, "-c", "-f", str(path)], capture_output=True, text=True, timeout=30)


@pytest.mark.parametrize("bind, extra", [("127.0.0.1:8501", []), ("[::1]:8501", ["--no-cookie"]),
                                         ("[::]:8501", []), ("localhost:8501", ["--max-upload-mb", "2"])])
def test_the_generated_config_is_valid_haproxy(bind, extra, tmp_path):
    proc = subprocess.run(CONFIG + ["--bind", bind, "--backend", "127.0.0.2:8501", "--backend", "[::1]:8502",
                                    *extra], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    check = _haproxy_check(proc.stdout, tmp_path)
    assert check.returncode == 0, check.stdout + check.stderr
    sticky = "--no-cookie" not in extra
    assert ("cookie CVSRV insert indirect nocache httponly" in proc.stdout) == sticky
    assert ("balance leastconn" if sticky else "balance random") in proc.stdout
    for line in ("timeout tunnel 1h", "http-check send meth GET uri /_stcore/health", "http-check expect string ok",
                 "option redispatch", "server r1 127.0.0.2:8501 check", "server r2 [::1]:8502 check"):
        assert line in proc.stdout
    limit_mb = int(extra[1]) if "--max-upload-mb" in extra else 10
    assert f"gt {limit_mb * 2**20 + 64 * 1024} }}" in proc.stdout


@pytest.mark.parametrize("args, message", [
    (["--bind", "127.0.0.1:8501"], "at least one --backend HOST:PORT is needed"),
    (["--bind", "127.0.0.1", "--backend", "127.0.0.2:1"], "--bind must be HOST:PORT (IPv6 as [ADDR]:PORT), "
                                                          "got '127.0.0.1'"),
    (["--bind", "127.0.0.1:1", "--backend", "127.0.0.2:0"], "--backend must be HOST:PORT (IPv6 as [ADDR]:PORT), "
                                                            "got '127.0.0.2:0'"),
    (["--bind", "127.0.0.1:1", "--backend", "a:1", "--max-upload-mb", "0"], "--max-upload-mb must be from 1 to "
                                                                            "1024, got 0"),
])
def test_config_generator_refuses_with_one_line(args, message):
    proc = subprocess.run(CONFIG + args, capture_output=True, text=True, timeout=30)
    assert (proc.returncode, proc.stdout, proc.stderr) == (2, "", message + "\n")


def _environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(item.decode().split("=", 1) for item in raw if b"=" in item)


def _redis_ping(url: str) -> bool:
    from scripts.class_server import redis_ping  # noqa: PLC0415 -- the supervisor's own check, a real RESP PING
    return redis_ping(int(url.rsplit(":", 1)[1].split("/")[0]))


async def _deep_link(ws_url: str, replica: str, page: str = DEEP_LINK) -> tuple[bool, str, str]:
    """A session pinned to `replica` by the proxy's cookie opens `page`: (ok, reason, the cookie the proxy set)."""
    session = Session(ws_url, timeout_s=240, headers={"Cookie": f"CVSRV={replica}"})
    await session.open()
    try:
        result = await session.rerun(page_name=page)
        set_cookie = session.ws.response.headers.get("set-cookie", "")
    finally:
        await session.close()
    return result.ok, result.reason, set_cookie


def _get(url: str, headers: dict[str, str] | None = None, method: str = "GET"):
    """(status, the response's headers: case-insensitive, as HAProxy writes them in lower case)."""
    request = urllib.request.Request(url, headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as r:
            return r.status, r.headers
    except urllib.error.HTTPError as err:
        return err.code, err.headers


def test_two_replicas_behind_haproxy_from_one_command():
    key = "teacher-key-for-the-test-0123"
    with class_run(2, env={"CHUNKVIZ_TEACHER_KEY": key, "CHUNKVIZ_ROOM": "TEST42"}) as run:
        assert f"Teacher (keep this link to yourself): http://127.0.0.1:{run.url.rsplit(':', 1)[1]}/?room=TEST42" \
               f"&teacher_key={key}" in run.stdout_lines
        names = [r["name"] for r in run.state["replicas"]]
        assert names == ["r1", "r2"] and all(alive(p) for p in run.pids)
        assert _redis_ping(run.state["redis_url"])
        envs = [_environ(r["pid"]) for r in run.state["replicas"]]
        for name in ("STREAMLIT_SERVER_COOKIE_SECRET", "CHUNKVIZ_REDIS_URL", "CHUNKVIZ_TEACHER_KEY", "CHUNKVIZ_ROOM"):
            assert envs[0].get(name) and envs[0][name] == envs[1][name], name
        assert envs[0]["CHUNKVIZ_REDIS_URL"] == run.state["redis_url"] and envs[0]["CHUNKVIZ_TEACHER_KEY"] == key
        for r in run.state["replicas"]:
            cmdline = Path(f"/proc/{r['pid']}/cmdline").read_bytes().split(b"\0")
            assert b"--server.maxUploadSize=10" in cmdline and b"--server.address=127.0.0.1" in cmdline
        stats = run.server_stats()
        assert [stats[n]["status"].startswith("UP") for n in names] == [True, True]

        # Warmed before the proxy opened: the first deep link each replica gets is answered, not "Page not found".
        ws_url = "ws" + run.url.removeprefix("http")
        results = _run_async(_gather(*(_deep_link(ws_url, n) for n in names)))
        assert [(ok, reason) for ok, reason, _ in results] == [(True, "")] * 2
        sessions_before = {n: int(run.server_stats()[n]["stot"]) for n in names}
        status, headers = _get(f"{run.url}/{DEEP_LINK}", {"Cookie": "CVSRV=r2"})
        assert status == 200 and "CVSRV" not in headers.get("Set-Cookie", "")  # already sticky: no new cookie
        after = {n: int(run.server_stats()[n]["stot"]) for n in names}
        assert (after["r1"] - sessions_before["r1"], after["r2"] - sessions_before["r2"]) == (0, 1)
        status, headers = _get(f"{run.url}/")
        assert status == 200 and headers.get("Set-Cookie", "").startswith("CVSRV=r")

        # An upload past the cap is refused at the door (413), before a replica holds it.
        status, _ = _get(f"{run.url}/_stcore/upload_file/x/y", {"Content-Length": str(11 * 2**20)}, "PUT")
        assert status == 413

        # A killed replica: HAProxy marks it DOWN and its clients (cookie r1) are served by r2.
        os.kill(run.replica("r1")["pid"], signal.SIGKILL)
        deadline = time.monotonic() + 30
        while not run.server_stats()["r1"]["status"].startswith("DOWN") and time.monotonic() < deadline:
            time.sleep(0.5)
        assert run.server_stats()["r1"]["status"].startswith("DOWN")
        ok, reason, set_cookie = _run_async(_deep_link(ws_url, "r1", "kv"))
        assert (ok, reason) == (True, "") and set_cookie.startswith("CVSRV=r2")
        deadline = time.monotonic() + 5
        while not any(line.startswith("Replica r1 ") for line in run.stdout_lines) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert any(line.startswith("Replica r1 (pid ") and "HAProxy sends its students to the others" in line
                   for line in run.stdout_lines)
        pids = run.pids
    assert not any(alive(p) for p in pids)  # class_run also fails if any outlived the SIGTERM


async def _gather(*coros):
    return await asyncio.gather(*coros)


def test_replicas_on_other_machines_are_warmed_and_served():
    """127.0.0.2 and 127.0.0.3 stand in for two other machines, each running one replica (started here, as their
    own machines would); the proxy machine adds one local replica and puts all three behind HAProxy."""
    secret = {"STREAMLIT_SERVER_COOKIE_SECRET": "shared-secret-of-this-class-0123456789"}
    hosts = ("127.0.0.2", "127.0.0.3")
    ports = [free_port(h) for h in hosts]
    remote = [_start_on(h, p, secret) for h, p in zip(hosts, ports)]
    try:
        backends = [a for h, p in zip(hosts, ports) for a in ("--backend", f"{h}:{p}")]
        with class_run(1, tuple(backends), env=secret, stop_signal=signal.SIGINT) as run:
            stats = run.server_stats()
            assert [stats[n]["status"].startswith("UP") for n in ("r1", "r2", "r3")] == [True] * 3
            assert "server r2 127.0.0.2" in Path(run.state["config"]).read_text()
            ws_url = "ws" + run.url.removeprefix("http")
            results = _run_async(_gather(*(_deep_link(ws_url, n) for n in ("r2", "r3"))))
            assert [(ok, reason) for ok, reason, _ in results] == [(True, "")] * 2
            assert [int(run.server_stats()[n]["stot"]) >= 1 for n in ("r2", "r3")] == [True, True]
            pids = run.pids
        assert not any(alive(p) for p in pids)
        assert all(p.poll() is None for p in remote)  # the other machines' replicas are theirs: left running
    finally:
        for proc in remote:
            proc.terminate()
            proc.wait(timeout=15)


def _start_on(host: str, port: int, env: dict[str, str]) -> subprocess.Popen:
    return start_server(port, host=host, env=env)
