"""Class load benchmark: N students on one Streamlit server, driven through Streamlit's own websocket protocol
(bench/st_client.py), no browser; the server's side of each action is what is measured.

Run: .venv/bin/python bench/class_load.py [--sessions 10,20,40,80] [--root DIR] [--python PY]
     .venv/bin/python bench/class_load.py --proxy [--replicas 2] --sessions 40,80,200 [--pace-s 5] [--paced 5]
`--root /path/to/other/checkout` measures another revision's app (e.g. main before this branch) the same way.
`--proxy`: the class as `CHUNKVIZ_WORKERS=R bash scripts/run-app.sh` serves it (R replicas behind HAProxy, a Redis;
tests/class_run.py) and every session connects through HAProxy; server CPU and memory are the replicas' summed
(HAProxy's own CPU is printed apart), and each session's replica is read from the proxy's cookie. Then a paced
phase: every student acts once every `--pace-s` seconds (starts spread over the first interval) for `--paced`
actions, cycling open → answer → timeline → setting (a new seed each time); an action due while the previous
one still runs starts when it returns (counted as late).
Loopback only: the servers bind 127.0.0.1 and every session connects there. Speed is printed, never asserted.

Per N, on a fresh server (after one warm-up session on "/", the teacher's own tab: see shared/guides/streamlit.md
§8 for why a fresh server's first deep link needs it), all N sessions at once:
- open: open chapter 1 (/ch1-kitchen): its runs are simulated once and shared (ui/runs.py);
- answer: answer the chapter's question (its radio, keyed c1_pred; options spread over the class). Stepping a
  chapter runs in the browser (a custom component: shared/guides/streamlit.md §7) and costs the server nothing, so
  it is no longer measured here; the answer is the chapter's server action;
- timeline: open the timeline page (the sidebar's default run, shared);
- setting: set the sidebar's seed to a value of one's own (worst case: every student a different run, nothing
  shared).
Figures: latency from sending the rerun to the server's script_finished (p50 / p95 over all the actions of that
kind), the server's CPU per action (utime + stime from /proc/PID/stat over the phase, divided by its actions),
memory (VmRSS once the N sessions have opened the chapter, minus after the warm-up, per session; VmHWM = the process's
peak RSS at the end, with every student's own run cached) and
errors (exceptions shown, timeouts, lost connections). The server runs Python under one GIL, so it uses about
one core whatever the machine has: "class size one core holds" is the largest N whose every p95 stays within 1 s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.st_client import RunResult, Session  # noqa: E402
from tests.class_run import class_run  # noqa: E402
from tests.e2e.conftest import _free_port, start_server  # noqa: E402

CHAPTER = "ch1-kitchen"
ANSWER_KEY, SEED_KEY = "c1_pred", "seed"
TARGET_P95_S = 1.0
ACTIONS = ("open", "answer", "timeline", "setting")
TICKS_PER_S = os.sysconf("SC_CLK_TCK")


def cpu_s(pids: int | list[int]) -> float:
    """User + system CPU seconds the processes have used (/proc/PID/stat fields 14 and 15), summed; a process that
    has exited counts 0 from then on."""
    total = 0.0
    for pid in [pids] if isinstance(pids, int) else pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            continue
        total += (int(fields[11]) + int(fields[12])) / TICKS_PER_S
    return total


def memory_mib(pids: int | list[int], field: str) -> float:
    """VmRSS (now) or VmHWM (peak) of the processes, in MiB, summed."""
    total = 0.0
    for pid in [pids] if isinstance(pids, int) else pids:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                total += int(line.split()[1]) / 1024
    return total


async def phase(pids: int | list[int], sessions: list[Session], action) -> tuple[list[RunResult], float]:
    """Every session runs `action(session, index)` at once; (all results, server CPU seconds used)."""
    before = cpu_s(pids)
    per_session = await asyncio.gather(*(action(s, i) for i, s in enumerate(sessions)))
    return [r for results in per_session for r in results], cpu_s(pids) - before


async def _open(s: Session, _: int) -> list[RunResult]:
    return [await s.rerun(page_name=CHAPTER)]


async def _answer(s: Session, index: int) -> list[RunResult]:
    return [await s.choose(ANSWER_KEY, index)]


async def _timeline(s: Session, _: int) -> list[RunResult]:
    return [await s.rerun(page_name="")]  # the timeline page is the default page, served at "/"


async def _setting(s: Session, index: int) -> list[RunResult]:
    return [await s.set_int(SEED_KEY, 1 + index)]


def _new_seed(seed: int):
    async def setting(s: Session, _: int) -> list[RunResult]:
        return [await s.set_int(SEED_KEY, seed)]
    return setting


def summary(results: list[RunResult], used_s: float | None) -> dict[str, object]:
    """p50/p95 of the successful actions' latency, CPU ms per action (when measured), errors and their reasons."""
    latencies = sorted(r.latency_s for r in results if r.ok)
    return {"p50": statistics.median(latencies) if latencies else None,
            "p95": latencies[max(0, round(0.95 * len(latencies)) - 1)] if latencies else None,
            "cpu_ms": None if used_s is None else 1e3 * used_s / max(1, len(results)),
            "errors": sum(not r.ok for r in results), "count": len(results),
            "reasons": sorted({r.reason for r in results if not r.ok})}


async def measure(url: str, pids: int | list[int], num_sessions: int,
                  proxy_pid: int | None = None) -> dict[str, object]:
    teacher = Session(url)
    await teacher.open()
    await teacher.rerun(page_name="")
    await teacher.close()
    base_rss = memory_mib(pids, "VmRSS")
    proxy_before = cpu_s(proxy_pid) if proxy_pid else 0.0
    sessions, open_errors = await _open_all(url, num_sessions)
    row: dict[str, object] = {"sessions": num_sessions, "split": _split(sessions), "open_errors": open_errors}
    for name, action in (("open", _open), ("answer", _answer), ("timeline", _timeline), ("setting", _setting)):
        results, used_s = await phase(pids, sessions, action)
        if name == "open":  # sessions plus the chapter's shared runs; later phases add each student's own run
            row["rss_per_session_mib"] = (memory_mib(pids, "VmRSS") - base_rss) / num_sessions
        row[name] = summary(results, used_s)
    row["peak_rss_mib"] = memory_mib(pids, "VmHWM")
    if proxy_pid:
        row["proxy_cpu_s"] = cpu_s(proxy_pid) - proxy_before
    await asyncio.gather(*(s.close() for s in sessions))
    return row


async def _open_all(url: str, num_sessions: int) -> tuple[list[Session], list[str]]:
    """Connect every session at once; those the server or proxy refuses are left out and their reasons returned."""
    sessions = [Session(url) for _ in range(num_sessions)]
    outcomes = await asyncio.gather(*(s.open() for s in sessions), return_exceptions=True)
    errors = [f"connect: {type(o).__name__}: {str(o)[:80]}" for o in outcomes if isinstance(o, BaseException)]
    return [s for s, o in zip(sessions, outcomes) if not isinstance(o, BaseException)], errors


def _split(sessions: list[Session]) -> str:
    """Sessions per replica, from the cookie HAProxy set on each websocket's upgrade ("" without a proxy)."""
    counts: dict[str, int] = {}
    for s in sessions:
        cookie = s.ws.response.headers.get("set-cookie", "")
        name = cookie.split(";", 1)[0].split("=", 1)[1] if cookie.startswith("CVSRV=") else ""
        counts[name] = counts.get(name, 0) + 1
    return "/".join(f"{n}:{c}" for n, c in sorted(counts.items()) if n)


PACED_CYCLE = ("open", "answer", "timeline", "setting")


async def paced(url: str, pids: list[int], num_sessions: int, pace_s: float, num_actions: int,
                seed: int = 0) -> dict[str, object]:
    """Each student acts every `pace_s` s (first action at a random offset within one interval), `num_actions`
    times, cycling PACED_CYCLE; latency per kind, server CPU per action over the phase, late starts."""
    rng = random.Random(seed)
    offsets = [rng.uniform(0, pace_s) for _ in range(num_sessions)]
    sessions, open_errors = await _open_all(url, num_sessions)
    by_kind: dict[str, list[RunResult]] = {k: [] for k in PACED_CYCLE}
    late = [0]

    async def student(index: int, s: Session, t0: float) -> None:
        for k in range(num_actions):  # bounded
            due = t0 + offsets[index] + k * pace_s
            wait_s = due - time.monotonic()
            if wait_s > 0:
                await asyncio.sleep(wait_s)
            else:
                late[0] += k > 0
            kind = PACED_CYCLE[k % len(PACED_CYCLE)]
            action = {"open": _open, "answer": _answer, "timeline": _timeline,
                      "setting": _new_seed(1000 + index * num_actions + k)}[kind]
            by_kind[kind] += await action(s, index)

    before = cpu_s(pids)
    t0 = time.monotonic()
    await asyncio.gather(*(student(i, s, t0) for i, s in enumerate(sessions)))
    wall_s = time.monotonic() - t0
    used_s = cpu_s(pids) - before
    await asyncio.gather(*(s.close() for s in sessions))
    total = sum(len(v) for v in by_kind.values())
    row = {k: summary(v, None) for k, v in by_kind.items()}
    return {"kinds": row, "cpu_ms_per_action": 1e3 * used_s / max(1, total), "late": late[0], "wall_s": wall_s,
            "actions": total, "planned_s": pace_s * num_actions, "open_errors": open_errors}


def run_proxied(replicas: int, num_sessions: int, pace_s: float, num_paced: int) -> dict[str, object]:
    """A fresh class of `replicas` behind HAProxy per N: the burst phases, then (pace_s > 0) the paced phase."""
    with class_run(replicas) as run:
        pids = [r["pid"] for r in run.state["replicas"]]
        url = "ws" + run.url.removeprefix("http")
        row = asyncio.run(measure(url, pids, num_sessions, run.state["haproxy_pid"]))
        if pace_s > 0:
            row["paced"] = asyncio.run(paced(url, pids, num_sessions, pace_s, num_paced))
        return row


def run_one(root: Path, python: str, num_sessions: int) -> dict[str, object]:
    port = _free_port()
    proc = start_server(port, root, python)
    try:
        return asyncio.run(measure(f"ws://127.0.0.1:{port}", proc.pid, num_sessions))
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value * 1e3:.0f}"


def print_paced(rows: list[dict[str, object]], pace_s: float) -> None:
    print(f"paced: one action per student every {pace_s:g} s; latency p50/p95 in ms (count); CPU = the replicas' "
          "CPU ms per action over the phase")
    print(f"{'N':>3} | " + " | ".join(f"{k:>17}" for k in PACED_CYCLE) +
          f" | {'CPU/action':>10} | {'late':>5} | {'wall s':>11} | errors")
    for row in rows:
        p = row["paced"]
        cells = [f"{_ms(p['kinds'][k]['p50'])}/{_ms(p['kinds'][k]['p95'])} ({p['kinds'][k]['count']})"
                 for k in PACED_CYCLE]
        errors = sum(v["errors"] for v in p["kinds"].values()) + len(p["open_errors"])
        reasons = sorted({r for v in p["kinds"].values() for r in v["reasons"]} | {e.split(":")[0]
                                                                                  for e in p["open_errors"]})
        print(f"{row['sessions']:>3} | " + " | ".join(f"{c:>17}" for c in cells) +
              f" | {p['cpu_ms_per_action']:>10.0f} | {p['late']:>5} | {p['wall_s']:>5.0f}/{p['planned_s']:<5.0f} | "
              f"{errors}{' (' + '; '.join(reasons) + ')' if reasons else ''}")


def print_table(rows: list[dict[str, object]]) -> None:
    print("latency p50/p95 in ms; CPU = server CPU ms per action")
    print(f"{'N':>3} | {'open chapter':>11} | {'answer':>11} | {'open timeline':>13} | {'own setting':>11} | "
          f"{'CPU open/ans/tl/set':>20} | {'MiB/session':>11} | {'peak RSS MiB':>12} | errors")
    for row in rows:
        if row.get("split"):
            print(f"    N={row['sessions']}: sessions per replica {row['split']}; HAProxy used "
                  f"{row['proxy_cpu_s']:.1f} s CPU over the burst phases")
    for row in rows:
        acts = [row[k] for k in ACTIONS]
        lat = [f"{_ms(a['p50'])}/{_ms(a['p95'])}" for a in acts]
        cpu = "/".join(f"{a['cpu_ms']:.0f}" for a in acts)
        errors = sum(a["errors"] for a in acts) + len(row.get("open_errors", []))
        refused = {e.split(":")[0] for e in row.get("open_errors", [])}
        reasons = sorted({r for a in acts for r in a["reasons"]} | refused)
        print(f"{row['sessions']:>3} | {lat[0]:>11} | {lat[1]:>11} | {lat[2]:>13} | {lat[3]:>11} | {cpu:>20} | "
              f"{row['rss_per_session_mib']:>11.2f} | {row['peak_rss_mib']:>12.0f} | {errors}"
              f"{' (' + '; '.join(reasons) + ')' if reasons else ''}")
    held = [row["sessions"] for row in rows if all(
        row[k]["errors"] == 0 and row[k]["p95"] is not None and row[k]["p95"] <= TARGET_P95_S for k in ACTIONS)]
    servers = "one server (one core, GIL-bound)" if not rows[0].get("split") else "these replicas"
    print(f"class size {servers} holds within {TARGET_P95_S:g} s p95: "
          f"{max(held) if held else 'fewer than ' + str(rows[0]['sessions'])} of the sizes tried")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", default="10,20,40,80", help="class sizes, comma-separated")
    parser.add_argument("--root", type=Path, default=ROOT, help="checkout whose app to serve")
    parser.add_argument("--python", default=sys.executable, help="interpreter with streamlit for that checkout")
    parser.add_argument("--proxy", action="store_true", help="serve through HAProxy in front of --replicas replicas")
    parser.add_argument("--replicas", type=int, default=2, help="replicas behind the proxy (with --proxy)")
    parser.add_argument("--pace-s", type=float, default=5.0, help="paced phase: seconds between a student's actions"
                                                                   " (0: none; with --proxy)")
    parser.add_argument("--paced", type=int, default=5, help="paced phase: actions per student")
    args = parser.parse_args()
    try:
        sizes = [int(x) for x in args.sessions.split(",")]
    except ValueError:
        parser.error(f"--sessions must be whole numbers separated by commas, got {args.sessions!r}")
    if not all(1 <= n <= 500 for n in sizes):
        parser.error("--sessions must be from 1 to 500 each")
    if not 1 <= args.replicas <= 8 or not 0 <= args.pace_s <= 60 or not 1 <= args.paced <= 50:
        parser.error("--replicas must be from 1 to 8, --pace-s from 0 to 60, --paced from 1 to 50")
    if args.proxy and args.root.resolve() != ROOT:
        parser.error("--proxy serves this checkout (scripts/run-app.sh); --root is for the single server")
    where = f"{args.replicas} replicas behind HAProxy" if args.proxy else "one server"
    print(f"serving {args.root} on 127.0.0.1 ({where}); {os.cpu_count()} CPUs on this machine")
    rows = []
    for n in sizes:
        started = time.monotonic()
        if args.proxy:
            rows.append(run_proxied(args.replicas, n, args.pace_s, args.paced))
        else:
            rows.append(run_one(args.root.resolve(), args.python, n))
        print(f"  N={n} measured in {time.monotonic() - started:.0f} s: {json.dumps(rows[-1])}", flush=True)
    print_table(rows)
    if args.proxy and args.pace_s > 0:
        print_paced(rows, args.pace_s)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
