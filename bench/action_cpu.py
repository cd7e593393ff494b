"""Server CPU per action, two revisions side by side: this checkout's app and another's (`--root`, e.g. main before
a change), each on one Streamlit server of its own, measured in interleaved rounds so both see the same machine load.

Run: .venv/bin/python bench/action_cpu.py --root /path/to/other/checkout [--sessions 4] [--rounds 3]

Actions (bench/class_load.py's, done by a handful of sessions one after the other, so each action's CPU is its own):
- open: open chapter 1 (/ch1-kitchen) once its runs are cached (the shared preset: a cached chapter);
- answer: answer the chapter's question (radio c1_pred);
- timeline: open the timeline page `/` (the sidebar's default run, cached);
- setting: set the sidebar's seed to a value no session used before (every action simulates a run of its own).
Figures: server CPU ms per action (utime + stime of the server process from /proc around each action), the median
and p90 over all sessions and rounds, per revision, and the ratio this/other. Loopback only; speed is printed, never
asserted. Each server is warmed up with one session on `/` and one open of the chapter first.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.class_load import ANSWER_KEY, CHAPTER, SEED_KEY, cpu_s  # noqa: E402
from bench.st_client import Session  # noqa: E402
from tests.e2e.conftest import _free_port, start_server  # noqa: E402

KINDS = ("open", "answer", "timeline", "setting")
TARGET_MS = {"open": 50.0, "setting": 300.0}  # issue 37: a cached chapter, a student's own setting


async def _act(session: Session, kind: str, index: int, seed: int):
    if kind == "open":
        return await session.rerun(page_name=CHAPTER)
    if kind == "answer":
        return await session.choose(ANSWER_KEY, index)
    if kind == "timeline":
        return await session.rerun(page_name="")
    return await session.set_int(SEED_KEY, seed)


async def one_round(url: str, pid: int, num_sessions: int, first_seed: int) -> dict[str, list[float]]:
    """Each session does open → answer → timeline → setting, one action at a time; CPU ms of each action."""
    out: dict[str, list[float]] = {k: [] for k in KINDS}
    sessions = [Session(url, timeout_s=120.0) for _ in range(num_sessions)]
    for s in sessions:
        await s.open()
    try:
        for i, s in enumerate(sessions):
            for kind in KINDS:
                before = cpu_s(pid)
                result = await _act(s, kind, i, first_seed + i)
                if not result.ok:
                    raise RuntimeError(f"{kind}: {result.reason}")
                out[kind].append(1e3 * (cpu_s(pid) - before))
    finally:
        for s in sessions:
            await s.close()
    return out


async def warm_up(url: str) -> None:
    s = Session(url, timeout_s=120.0)
    await s.open()
    await s.rerun(page_name="")
    await s.rerun(page_name=CHAPTER)
    await s.close()


def _stats(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return statistics.median(ordered), ordered[max(0, round(0.9 * len(ordered)) - 1)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, required=True, help="the other checkout to compare with")
    parser.add_argument("--python", default=sys.executable, help="interpreter with streamlit for that checkout")
    parser.add_argument("--sessions", type=int, default=4, help="sessions per round (1-20)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (1-20)")
    args = parser.parse_args()
    if not 1 <= args.sessions <= 20 or not 1 <= args.rounds <= 20:
        parser.error("--sessions and --rounds must be from 1 to 20")
    if not (args.root / "app.py").is_file():
        parser.error(f"--root {args.root}: no app.py there")
    revisions = {"this": ROOT, "other": args.root.resolve()}
    servers: dict[str, tuple[subprocess.Popen, str]] = {}
    try:
        for name, root in revisions.items():
            port = _free_port()
            proc = start_server(port, root, sys.executable if name == "this" else args.python)
            servers[name] = (proc, f"ws://127.0.0.1:{port}")
            asyncio.run(warm_up(servers[name][1]))
        cpu: dict[str, dict[str, list[float]]] = {n: {k: [] for k in KINDS} for n in revisions}
        seed = 10_000
        for r in range(args.rounds):  # interleaved: this, other, this, other, ...
            for name, (proc, url) in servers.items():
                started = time.monotonic()
                got = asyncio.run(one_round(url, proc.pid, args.sessions, seed))
                for k in KINDS:
                    cpu[name][k] += got[k]
                print(f"  round {r + 1} {name}: " + ", ".join(f"{k} {statistics.median(got[k]):.0f}" for k in KINDS)
                      + f" ms median ({time.monotonic() - started:.0f} s)", flush=True)
            seed += args.sessions  # both revisions simulate the same new seeds in a round
    finally:
        for proc, _ in servers.values():
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
    print(f"server CPU ms per action, median/p90 over {args.sessions} sessions x {args.rounds} rounds "
          f"(this = {ROOT}, other = {revisions['other']})")
    print(f"{'action':>9} | {'this':>11} | {'other':>11} | {'this/other':>10} | target")
    for k in KINDS:
        (m_this, p_this), (m_other, p_other) = _stats(cpu["this"][k]), _stats(cpu["other"][k])
        ratio = f"{m_this / m_other:.2f}" if m_other > 0 else "-"
        target = f"<= {TARGET_MS[k]:.0f}" if k in TARGET_MS else ""
        print(f"{k:>9} | {m_this:>5.0f}/{p_this:<5.0f} | {m_other:>5.0f}/{p_other:<5.0f} | {ratio:>10} | {target}")
    print("(/proc CPU ticks are 10 ms: single actions read in steps of 10 ms; the medians are over all actions)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
