"""Class load benchmark: N students on one Streamlit server, driven through Streamlit's own websocket protocol
(bench/st_client.py), no browser; the server's side of each action is what is measured.

Run: .venv/bin/python bench/class_load.py [--sessions 10,20,40,80] [--root DIR] [--python PY] [--steps 3]
`--root /path/to/other/checkout` measures another revision's app (e.g. main before this branch) the same way.
Loopback only: the server binds 127.0.0.1 and every session connects there. Speed is printed, never asserted.

Per N, on a fresh server (after one warm-up session on "/", the teacher's own tab: see shared/guides/streamlit.md
§8 for why a fresh server's first deep link needs it), all N sessions at once:
- open: open chapter 1 (/ch1-kitchen): its runs are simulated once and shared (ui/runs.py);
- step: press Next `--steps` times each (the Right-arrow button);
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
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.st_client import RunResult, Session  # noqa: E402
from tests.e2e.conftest import _free_port, start_server  # noqa: E402

CHAPTER = "ch1-kitchen"
NEXT_KEY, SEED_KEY = "c1_step_next", "seed"
TARGET_P95_S = 1.0
ACTIONS = ("open", "step", "timeline", "setting")
TICKS_PER_S = os.sysconf("SC_CLK_TCK")


def cpu_s(pid: int) -> float:
    """User + system CPU seconds the process has used (/proc/PID/stat fields 14 and 15)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS_PER_S


def memory_mib(pid: int, field: str) -> float:
    """VmRSS (now) or VmHWM (peak) of the process, in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def phase(pid: int, sessions: list[Session], action) -> tuple[list[RunResult], float]:
    """Every session runs `action(session, index)` at once; (all results, server CPU seconds used)."""
    before = cpu_s(pid)
    per_session = await asyncio.gather(*(action(s, i) for i, s in enumerate(sessions)))
    return [r for results in per_session for r in results], cpu_s(pid) - before


async def _open(s: Session, _: int) -> list[RunResult]:
    return [await s.rerun(page_name=CHAPTER)]


def _stepper(num_steps: int):
    async def step(s: Session, _: int) -> list[RunResult]:
        return [await s.click(NEXT_KEY) for _ in range(num_steps)]
    return step


async def _timeline(s: Session, _: int) -> list[RunResult]:
    return [await s.rerun(page_name="")]  # the timeline page is the default page, served at "/"


async def _setting(s: Session, index: int) -> list[RunResult]:
    return [await s.set_int(SEED_KEY, 1 + index)]


async def measure(url: str, pid: int, num_sessions: int, num_steps: int) -> dict[str, object]:
    teacher = Session(url)
    await teacher.open()
    await teacher.rerun(page_name="")
    await teacher.close()
    base_rss = memory_mib(pid, "VmRSS")
    sessions = [Session(url) for _ in range(num_sessions)]
    await asyncio.gather(*(s.open() for s in sessions))
    row: dict[str, object] = {"sessions": num_sessions}
    for name, action in (("open", _open), ("step", _stepper(num_steps)), ("timeline", _timeline),
                         ("setting", _setting)):
        results, used_s = await phase(pid, sessions, action)
        if name == "open":  # sessions plus the chapter's shared runs; later phases add each student's own run
            row["rss_per_session_mib"] = (memory_mib(pid, "VmRSS") - base_rss) / num_sessions
        latencies = sorted(r.latency_s for r in results if r.ok)
        row[name] = {"p50": statistics.median(latencies) if latencies else None,
                     "p95": latencies[max(0, round(0.95 * len(latencies)) - 1)] if latencies else None,
                     "cpu_ms": 1e3 * used_s / len(results), "errors": sum(not r.ok for r in results),
                     "reasons": sorted({r.reason for r in results if not r.ok})}
    row["peak_rss_mib"] = memory_mib(pid, "VmHWM")
    await asyncio.gather(*(s.close() for s in sessions))
    return row


def run_one(root: Path, python: str, num_sessions: int, num_steps: int) -> dict[str, object]:
    port = _free_port()
    proc = start_server(port, root, python)
    try:
        return asyncio.run(measure(f"ws://127.0.0.1:{port}", proc.pid, num_sessions, num_steps))
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value * 1e3:.0f}"


def print_table(rows: list[dict[str, object]]) -> None:
    print("latency p50/p95 in ms; CPU = server CPU ms per action")
    print(f"{'N':>3} | {'open chapter':>11} | {'step':>11} | {'open timeline':>13} | {'own setting':>11} | "
          f"{'CPU open/step/tl/set':>20} | {'MiB/session':>11} | {'peak RSS MiB':>12} | errors")
    for row in rows:
        acts = [row[k] for k in ACTIONS]
        lat = [f"{_ms(a['p50'])}/{_ms(a['p95'])}" for a in acts]
        cpu = "/".join(f"{a['cpu_ms']:.0f}" for a in acts)
        errors = sum(a["errors"] for a in acts)
        reasons = sorted({r for a in acts for r in a["reasons"]})
        print(f"{row['sessions']:>3} | {lat[0]:>11} | {lat[1]:>11} | {lat[2]:>13} | {lat[3]:>11} | {cpu:>20} | "
              f"{row['rss_per_session_mib']:>11.2f} | {row['peak_rss_mib']:>12.0f} | {errors}"
              f"{' (' + '; '.join(reasons) + ')' if reasons else ''}")
    held = [row["sessions"] for row in rows if all(
        row[k]["errors"] == 0 and row[k]["p95"] is not None and row[k]["p95"] <= TARGET_P95_S for k in ACTIONS)]
    print(f"class size one server (one core, GIL-bound) holds within {TARGET_P95_S:g} s p95: "
          f"{max(held) if held else 'fewer than ' + str(rows[0]['sessions'])} of the sizes tried")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", default="10,20,40,80", help="class sizes, comma-separated")
    parser.add_argument("--steps", type=int, default=3, help="Next presses per session")
    parser.add_argument("--root", type=Path, default=ROOT, help="checkout whose app to serve")
    parser.add_argument("--python", default=sys.executable, help="interpreter with streamlit for that checkout")
    args = parser.parse_args()
    sizes = [int(x) for x in args.sessions.split(",")]
    if not all(1 <= n <= 500 for n in sizes) or not 1 <= args.steps <= 50:
        parser.error("--sessions must be from 1 to 500 each, --steps from 1 to 50")
    print(f"serving {args.root} on 127.0.0.1; {os.cpu_count()} CPUs on this machine")
    rows = []
    for n in sizes:
        started = time.monotonic()
        rows.append(run_one(args.root.resolve(), args.python, n, args.steps))
        print(f"  N={n} measured in {time.monotonic() - started:.0f} s", flush=True)
    print_table(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
