"""A class served the way a teacher starts it: `bash scripts/run-app.sh` with CHUNKVIZ_WORKERS > 1 (or --backend),
for the tests and bench/class_load.py.

Invariant: `class_run` yields only once HAProxy answers (every replica warmed), and on leaving it has stopped every
process the start made — it SIGTERMs the supervisor, waits (bounded), and fails if a replica, HAProxy or Redis
outlived it. HAProxy and redis-server must be installed (scripts/test.sh installs them): a missing one fails, it is
never skipped.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "run-app.sh"
READY_WITHIN_S = 300.0  # two Streamlit imports and two first runs, on two cores shared with other work
STOP_WITHIN_S = 30.0
PR_SET_PDEATHSIG = 1


def need_tools() -> None:
    """HAProxy and Redis are real dependencies of these tests: fail loudly, never skip."""
    for tool in ("haproxy", "redis-server"):
        if not (shutil.which(tool) or os.access(f"/usr/sbin/{tool}", os.X_OK)):
            raise RuntimeError(f"{tool} is missing: scripts/test.sh installs Debian's {tool}")


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


@dataclass
class ClassRun:
    proc: subprocess.Popen
    state: dict
    stdout_lines: list[str]

    @property
    def url(self) -> str:
        return self.state["proxy_url"]

    @property
    def pids(self) -> list[int]:
        """Every process the start made besides its supervisor."""
        return [r["pid"] for r in self.state["replicas"]] + [self.state["haproxy_pid"]] + (
            [self.state["redis_pid"]] if self.state["redis_pid"] else [])

    def replica(self, name: str) -> dict:
        return next(r for r in self.state["replicas"] if r["name"] == name)

    def haproxy(self, command: str) -> str:
        """One command on HAProxy's admin socket (e.g. "show stat"), its answer."""
        sock_path = str(Path(self.state["config"]).with_name("haproxy.sock"))
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(5)
            s.connect(sock_path)
            s.sendall(command.encode() + b"\n")
            chunks = []
            while chunk := s.recv(65536):  # bounded: HAProxy closes after one answer
                chunks.append(chunk)
        return b"".join(chunks).decode()

    def server_stats(self) -> dict[str, dict[str, str]]:
        """HAProxy's per-server counters (name -> column -> value): stot = sessions, status = UP/DOWN."""
        lines = self.haproxy("show stat").splitlines()
        header = lines[0].lstrip("# ").split(",")
        rows = [dict(zip(header, line.split(","))) for line in lines[1:] if line]
        return {r["svname"]: r for r in rows if r["pxname"] == "replicas" and r["svname"] not in ("BACKEND",)}


def _die_with_parent() -> None:
    """In the child before exec: SIGTERM it (and so, through class_server.py, the whole class) when the test or
    benchmark that started it dies without reaching its own cleanup."""
    with contextlib.suppress(OSError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/status")
    return status.exists() and "\nState:\tZ" not in status.read_text()


@contextlib.contextmanager
def class_run(workers: int = 2, args: tuple[str, ...] = (), env: dict[str, str] | None = None,
              stop_signal: int = signal.SIGTERM):
    need_tools()
    full_env = {**os.environ, "CHUNKVIZ_WORKERS": str(workers), "CHUNKVIZ_PORT": str(free_port()), **(env or {})}
    proc = subprocess.Popen(["bash", str(SCRIPT), *args], cwd=ROOT, env=full_env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True,
                            preexec_fn=_die_with_parent)
    lines: list[str] = []
    run = None
    try:
        state_dir = _read_until_ready(proc, lines)
        run = ClassRun(proc, json.loads((state_dir / "state.json").read_text()), lines)
        yield run
    finally:
        _stop(proc, run, stop_signal)


def _read_until_ready(proc: subprocess.Popen, lines: list[str]) -> Path:
    """Collect the start's output (a thread keeps draining it, so the pipe never fills) until "Logs and state: DIR",
    within READY_WITHIN_S."""
    def drain() -> None:
        for line in proc.stdout:  # ends at EOF, when the start exits
            lines.append(line.rstrip("\n"))
    threading.Thread(target=drain, daemon=True).start()
    deadline = time.monotonic() + READY_WITHIN_S
    seen = 0
    while time.monotonic() < deadline:
        current = lines[seen:]
        seen += len(current)
        for line in current:
            if match := re.fullmatch(r"Logs and state: (.+)", line):
                return Path(match.group(1))
        if proc.poll() is not None:
            time.sleep(0.2)  # let the thread take the last lines
            raise RuntimeError(f"run-app.sh exited with {proc.returncode}: " + " | ".join(lines[-8:]))
        time.sleep(0.2)
    raise RuntimeError(f"the class was not ready within {READY_WITHIN_S:.0f} s: " + " | ".join(lines[-8:]))


def _stop(proc: subprocess.Popen, run: ClassRun | None, stop_signal: int) -> None:
    if proc.poll() is None:
        proc.send_signal(stop_signal)
    try:
        proc.wait(timeout=STOP_WITHIN_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        name = signal.Signals(stop_signal).name
        raise RuntimeError(f"run-app.sh did not stop within {STOP_WITHIN_S:.0f} s of {name}")
    if run is not None:
        deadline = time.monotonic() + 5
        while any(alive(p) for p in run.pids) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = [p for p in run.pids if alive(p)]
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        if left:
            raise RuntimeError(f"processes outlived the class: {left}")
