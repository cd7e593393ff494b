"""A class of followers on one app process: N server-sent-event followers on loopback (default 200) follow a teacher
who steps the cursor; then every follower votes (some change their vote) and the teacher reveals.

Measures, in one run: the lag from the teacher's POST to each follower's event carrying that cursor (p50 / p95 /
max), the server's CPU per teacher step and per delivered event (from /proc/PID/stat), and the tally (every voter
counted once, the last vote each). Starts `streamlit run serve.py` (the app with its room routes) on a free port,
with --redis also a redis-server for the room state (the replicas' path). With --proxy the class is served as
`CHUNKVIZ_WORKERS=R bash scripts/run-app.sh` serves it (tests/class_run.py: R replicas of serve.py behind HAProxy,
sticky cookie, a Redis for the room state): every follower, the teacher's page, its steps and every vote go through
HAProxy; each follower's replica is read from the proxy's cookie on its stream; CPU is the replicas', HAProxy's and
Redis's summed (each also printed).

Run: .venv/bin/python bench/room_load.py [--followers 200] [--steps 40] [--interval-s 0.5] [--redis]
     .venv/bin/python bench/room_load.py --proxy [--replicas 2] [--followers 200]
Invariant: loopback only; every wait is bounded (a follower that misses an event within --timeout-s counts as lost).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.st_client import Session  # noqa: E402
from tests.class_run import class_run  # noqa: E402
from tests.room_services import redis_server  # noqa: E402
from ui.components.room import store as rs  # noqa: E402

KEY = "bench-teacher-key-0123456789"
ROOM = "BENCH22"
TICK_S = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_s(pids: int | list[int]) -> float:
    """utime + stime of the processes and their waited children (fields 14-17 of /proc/PID/stat), summed."""
    total = 0.0
    for pid in [pids] if isinstance(pids, int) else pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += sum(int(x) for x in fields[11:15]) / TICK_S
    return total


def start_app(port: int, env: dict) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "serve.py", "--server.headless=true",
                             "--server.address=127.0.0.1", f"--server.port={port}", "--server.fileWatcherType=none",
                             "--browser.gatherUsageStats=false"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # bounded
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                if r.read().strip() == b"ok":
                    return proc
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise SystemExit("the app did not become healthy within 120 s")


async def post(port: int, path: str, body: dict) -> int:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    data = json.dumps(body).encode()
    writer.write(f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {len(data)}"
                 f"\r\nConnection: close\r\n\r\n".encode() + data)
    await writer.drain()
    head = await asyncio.wait_for(reader.readline(), 10)
    writer.close()
    return int(head.split()[1])


class Follower:
    def __init__(self):
        self.seen: dict[float, float] = {}  # cursor -> arrival (perf_counter)
        self.events = 0
        self.last: dict | None = None
        self.replica = ""  # the proxy's cookie on the stream's response (--proxy), "" on one process

    async def run(self, port: int, stop: asyncio.Event) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(f"GET /_room/stream?room={ROOM} HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n".encode())
        await writer.drain()
        try:
            for _ in range(100):  # the response's head: at most 100 header lines
                line = await asyncio.wait_for(reader.readline(), 30)
                if line in (b"\r\n", b"\n", b""):
                    break
                if line.lower().startswith(b"set-cookie: cvsrv="):
                    self.replica = line.split(b"=", 1)[1].split(b";")[0].decode()
            while not stop.is_set():  # bounded by the stop event and each read's timeout
                try:
                    line = await asyncio.wait_for(reader.readline(), 30)
                except asyncio.TimeoutError:
                    continue
                if not line:
                    return
                if line.startswith(b"data: "):
                    state = json.loads(line[6:])
                    self.events += 1
                    self.last = state
                    if state.get("cursor") is not None:
                        self.seen.setdefault(state["cursor"], time.perf_counter())
        finally:
            writer.close()


async def teacher_opens(port: int) -> None:
    """The teacher's page, as a browser opens it: a real Streamlit session on chapter 1 with the key opens the room's
    question (ui/components/room/mount.py room_question)."""
    session = Session(f"ws://127.0.0.1:{port}", timeout_s=180)
    await session.open()
    try:
        await session.rerun(page_name="")  # the process's first run on "/" (shared/guides/streamlit.md §8)
        result = await session.rerun(page_name="ch1-kitchen", query_string=f"room={ROOM}&teacher_key={KEY}")
        if not result.ok:
            raise SystemExit(f"the teacher's page failed: {result.reason}")
    finally:
        await session.close()


async def main_async(args, port: int, pids: dict[str, int]) -> dict:
    """`pids`: name -> pid of every server process (one "app"; or the replicas, "haproxy" and "redis")."""
    pid = list(pids.values())
    await teacher_opens(port)
    stop = asyncio.Event()
    followers = [Follower() for _ in range(args.followers)]
    tasks = [asyncio.create_task(f.run(port, stop)) for f in followers]
    await asyncio.sleep(3)  # every stream open and its first state read
    connected = sum(1 for f in followers if f.last is not None)
    question = next(f.last["question"] for f in followers if f.last and f.last.get("question"))
    qid, options = question["qid"], question["options"]
    cpu0, sent = cpu_s(pid), {}
    for i in range(args.steps):  # the teacher steps
        cursor = 10.0 + i
        sent[cursor] = time.perf_counter()
        status = await post(port, "/_room/teacher", {"room": ROOM, "key": KEY, "cursor": cursor, "element": "bench"})
        assert status == 200, status
        await asyncio.sleep(args.interval_s)
    await asyncio.sleep(1.0)
    cpu_steps = cpu_s(pid) - cpu0
    cpu_by_process = {name: cpu_s(p) for name, p in pids.items()}
    lags, lost = [], 0
    for f in followers:
        for cursor, t0 in sent.items():
            if cursor in f.seen:
                lags.append(f.seen[cursor] - t0)
            else:
                lost += 1
    # Votes: every follower votes, a third change their mind; then the teacher reveals. All voters at once, each
    # voter's own votes in order (a student's second click comes after its first was answered: through the proxy,
    # two requests in flight at once may reach different replicas and land in either order).
    rng, last = random.Random(0), {}
    ballots: dict[str, list[str]] = {}
    for i in range(args.followers):
        token = rs.voter_token(KEY, ROOM, f"bench-{i}")
        ballots[token] = [rng.choice(options)] + ([rng.choice(options)] if i % 3 == 0 else [])
        last[token] = ballots[token][-1]
    votes = [(tok, opt) for tok, opts in ballots.items() for opt in opts]

    async def voter(token: str, opts: list[str]) -> list[int]:
        return [await post(port, "/_room/vote", {"room": ROOM, "voter": token, "question": qid, "option": opt})
                for opt in opts]

    cpu1 = cpu_s(pid)
    statuses = [st for sts in await asyncio.gather(*(voter(t, o) for t, o in ballots.items())) for st in sts]
    await asyncio.sleep(1.0)
    assert await post(port, "/_room/reveal", {"room": ROOM, "key": KEY, "question": qid}) == 200
    await asyncio.sleep(1.5)
    cpu_votes = cpu_s(pid) - cpu1
    tally = shown[0]["tally"] if (shown := [f.last["question"] for f in followers
                                            if f.last and f.last.get("question")]) else {}
    stop.set()
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    expected = {o: sum(1 for v in last.values() if v == o) for o in options}
    tallies_ok = sum(1 for q in shown if q["revealed"] and q["tally"] == expected)
    lags.sort()
    q = statistics.quantiles(lags, n=100) if len(lags) > 1 else [0] * 99
    by_replica: dict[str, int] = {}
    for f in followers:
        by_replica[f.replica or "-"] = by_replica.get(f.replica or "-", 0) + 1
    return {"followers": args.followers, "connected": connected, "steps": args.steps, "interval_s": args.interval_s,
            "store": "redis" if args.redis or args.proxy else "memory",
            "served_by": f"HAProxy, {args.replicas} replicas" if args.proxy else "one process",
            "followers_by_replica": by_replica,
            "lag_ms": {"p50": q[49] * 1e3, "p95": q[94] * 1e3, "max": lags[-1] * 1e3 if lags else None},
            "events_lost": lost, "cpu_ms_per_step": cpu_steps / args.steps * 1e3,
            "cpu_us_per_event": cpu_steps / max(1, args.steps * connected) * 1e6,
            "votes_sent": len(votes), "votes_accepted": statuses.count(200), "votes_refused": len(votes) - statuses.count(200),
            "voters": len(last), "tally_expected": expected, "tally_shown": tally,
            "tally_total": sum(tally.values()), "all_counted_none_twice": tally == expected and sum(tally.values()) == len(last),
            "followers_shown_the_right_tally": tallies_ok,
            "cpu_ms_votes_and_reveal": cpu_votes * 1e3,
            "cpu_s_by_process_after_steps": {k: round(v, 2) for k, v in cpu_by_process.items()}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--followers", type=int, default=200)
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--interval-s", type=float, default=0.5)
    ap.add_argument("--redis", action="store_true", help="keep the room state in a redis-server (the replicas' path)")
    ap.add_argument("--proxy", action="store_true", help="through HAProxy in front of --replicas replicas and a Redis")
    ap.add_argument("--replicas", type=int, default=2, help="replicas behind the proxy (with --proxy), 1-8")
    args = ap.parse_args()
    if not 1 <= args.followers <= 2000 or not 1 <= args.steps <= 1000 or not 0.01 <= args.interval_s <= 10:
        raise SystemExit("--followers 1-2000, --steps 1-1000, --interval-s 0.01-10")
    if not 1 <= args.replicas <= 8:
        raise SystemExit("--replicas 1-8")
    if args.redis and args.proxy:
        raise SystemExit("--proxy starts its own Redis (as run-app.sh does): leave out --redis")
    env = dict(os.environ, CHUNKVIZ_TEACHER_KEY=KEY, CHUNKVIZ_ROOM=ROOM, PYTHONUNBUFFERED="1")
    env.pop("CHUNKVIZ_REDIS_URL", None)

    def run(env: dict) -> dict:
        port = free_port()
        proc = start_app(port, env)
        try:
            return asyncio.run(main_async(args, port, {"app": proc.pid}))
        finally:
            proc.terminate()
            proc.wait(15)

    if args.proxy:
        with class_run(args.replicas, env={"CHUNKVIZ_TEACHER_KEY": KEY, "CHUNKVIZ_ROOM": ROOM}) as klass:
            pids = {r["name"]: r["pid"] for r in klass.state["replicas"]}
            pids.update(haproxy=klass.state["haproxy_pid"], redis=klass.state["redis_pid"])
            result = asyncio.run(main_async(args, int(klass.url.rsplit(":", 1)[1]), pids))
    elif args.redis:
        with redis_server() as url:
            result = run(dict(env, CHUNKVIZ_REDIS_URL=url))
    else:
        result = run(env)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
