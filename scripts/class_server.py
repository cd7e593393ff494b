"""Serves a class from several Streamlit processes: N replicas on loopback ports, a Redis for the room state, and
HAProxy in front on the class's address (scripts/run-app.sh runs this when CHUNKVIZ_WORKERS > 1 or --backend given).

Invariants:
- HAProxy opens only once every replica (and every --backend) has served one real session on "/": a fresh Streamlit
  process answers its first deep link with "Page not found" (shared/guides/streamlit.md §8), and every student
  arrives by a deep link. A plain HTTP GET runs no script, so the warm-up is a websocket session
  (bench/st_client.py).
- Every replica gets the same STREAMLIT_SERVER_COOKIE_SECRET, CHUNKVIZ_REDIS_URL, upload cap and options.
- Every process started here is stopped here: on SIGINT/SIGTERM, when HAProxy or Redis dies, when the last replica
  dies, and (PR_SET_PDEATHSIG) when this process itself is killed. Every wait is bounded.
- Once ready, the run directory holds state.json: the proxy's URL, each replica's name, URL and pid, Redis's URL and
  pid (tests and bench/class_load.py read it; it is removed with the directory when this stops).

Run: python scripts/class_server.py --workers 2 --address 127.0.0.1 --port 8501 [--backend HOST:PORT ...]
     [--redis-url URL] [--max-upload-mb 10]
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from bench.st_client import Session  # noqa: E402
from launch_env import (MAX_WORKERS, Refused, check_backend, check_host, check_port,  # noqa: E402
                        check_redis_url, url_host)
from proxy_config import render  # noqa: E402

REPLICA_HOST = "127.0.0.1"
HEALTHY_WITHIN_S = 90.0  # a Streamlit process on a busy 2-core machine imports for ~5-20 s
WARM_WITHIN_S = 180.0  # the first run on "/" simulates the default scenario
PROXY_WITHIN_S = 20.0
STOP_WITHIN_S = 10.0
POLL_S = 0.5
PR_SET_PDEATHSIG = 1


@dataclass
class Child:
    name: str
    proc: subprocess.Popen
    url: str = ""
    log: Path | None = None


def _die_with_parent() -> None:
    """In the child before exec: SIGTERM it when this supervisor dies, however it dies (Linux prctl)."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except OSError:
        pass


def find_binary(name: str) -> str:
    """Debian puts haproxy and redis-server in /usr/sbin, which a non-root PATH may lack."""
    found = shutil.which(name) or (f"/usr/sbin/{name}" if os.access(f"/usr/sbin/{name}", os.X_OK) else None)
    if not found:
        raise Refused(f"{name} is not installed (Debian: apt-get install {name}; scripts/run-app.sh does it)")
    return found


def free_port(host: str = REPLICA_HOST) -> int:
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def spawn(name: str, cmd: list[str], log: Path, env: dict[str, str] | None = None) -> Child:
    handle = log.open("ab")
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=handle, stderr=subprocess.STDOUT,
                            start_new_session=True, preexec_fn=_die_with_parent)
    handle.close()
    return Child(name, proc, log=log)


def log_tail(child: Child, num_lines: int = 5) -> str:
    if child.log is None or not child.log.exists():
        return ""
    lines = child.log.read_text(errors="replace").strip().splitlines()[-num_lines:]
    return " | ".join(line.strip() for line in lines)


def redis_ping(port: int, timeout_s: float = 1.0) -> bool:
    """One RESP PING on loopback; True on +PONG."""
    try:
        with socket.create_connection((REPLICA_HOST, port), timeout=timeout_s) as s:
            s.sendall(b"*1\r\n$4\r\nPING\r\n")
            return s.recv(64).startswith(b"+PONG")
    except OSError:
        return False


def start_redis(run_dir: Path) -> Child:
    """Debian's redis-server on loopback, in memory only (no snapshot, no append-only file), bounded memory."""
    port = free_port()
    child = spawn("redis", [find_binary("redis-server"), "--bind", REPLICA_HOST, "--port", str(port),
                            "--protected-mode", "yes", "--save", "", "--appendonly", "no", "--dir", str(run_dir),
                            "--daemonize", "no", "--maxmemory", "256mb", "--maxmemory-policy", "noeviction"],
                  run_dir / "redis.log")
    child.url = f"redis://{REPLICA_HOST}:{port}/0"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:  # bounded
        if child.proc.poll() is not None:
            raise RuntimeError(f"redis-server exited: {log_tail(child)}")
        if redis_ping(port):
            return child
        time.sleep(0.1)
    raise RuntimeError("redis-server did not answer PING within 10 s")


def start_replica(name: str, max_upload_mb: int, env: dict[str, str], run_dir: Path) -> Child:
    """The same Streamlit command as run-app.sh's single server, on a free loopback port."""
    port = free_port()
    cmd = [sys.executable, "-m", "streamlit", "run", "serve.py", f"--server.address={REPLICA_HOST}",
           f"--server.port={port}", "--server.headless=true", "--browser.gatherUsageStats=false",
           "--client.toolbarMode=minimal", f"--server.maxUploadSize={max_upload_mb}"]
    child = spawn(name, cmd, run_dir / f"{name}.log", env)
    child.url = f"http://{REPLICA_HOST}:{port}"
    return child


def healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
            return r.read().strip() == b"ok"
    except OSError:
        return False


def wait_healthy(url: str, within_s: float, child: Child | None = None) -> None:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:  # bounded
        if child is not None and child.proc.poll() is not None:
            raise RuntimeError(f"{child.name} exited with status {child.proc.returncode}: {log_tail(child)}")
        if healthy(url):
            return
        time.sleep(0.3)
    raise RuntimeError(f"{url} did not answer /_stcore/health within {within_s:.0f} s")


async def _warm(url: str) -> str:
    """One session on "/" run to the end; "" when it ran, else why not."""
    session = Session("ws" + url.removeprefix("http"), timeout_s=WARM_WITHIN_S)
    try:
        await session.open()
        result = await session.rerun(page_name="")
    except OSError as exc:
        return f"connection: {exc}"
    finally:
        await session.close()
    return "" if result.ok else result.reason


def warm_all(urls: list[str]) -> None:
    """Warm every replica at once (their first runs overlap on a multi-core machine)."""
    async def all_of() -> list[str]:
        return await asyncio.gather(*(_warm(u) for u in urls))
    for url, reason in zip(urls, asyncio.run(all_of())):
        if reason:
            raise RuntimeError(f"the warm-up session on {url}/ failed: {reason}")


def stop(children: list[Child]) -> None:
    """SIGTERM each (its whole process group), then SIGKILL what is left after STOP_WITHIN_S."""
    for child in children:
        if child.proc.poll() is None:
            try:
                os.killpg(child.proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
    deadline = time.monotonic() + STOP_WITHIN_S
    for child in children:
        try:
            child.proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            try:
                os.killpg(child.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            child.proc.wait(timeout=5)


class Stop(Exception):
    """SIGINT or SIGTERM arrived."""


def _on_signal(signum, _frame) -> None:
    raise Stop(signal.Signals(signum).name)


def serve(args: argparse.Namespace, run_dir: Path) -> int:
    children: list[Child] = []
    try:
        env = dict(os.environ)
        # Streamlit signs its XSRF cookie with this secret: every replica must agree, or a browser moved to another
        # replica (its own died) has its uploads refused. The CLI flag is refused for this option; the env var works.
        env.setdefault("STREAMLIT_SERVER_COOKIE_SECRET", secrets.token_urlsafe(32))
        env["PYTHONUNBUFFERED"] = "1"
        redis = None
        if args.redis_url:
            env["CHUNKVIZ_REDIS_URL"] = args.redis_url
        else:
            redis = start_redis(run_dir)
            children.append(redis)
            env["CHUNKVIZ_REDIS_URL"] = redis.url
            print(f"Room state: Redis at {redis.url} (in memory, stopped with the class)", flush=True)
            if args.backend:
                print("Note: replicas on other machines need CHUNKVIZ_REDIS_URL set to a Redis they can reach; this "
                      "one listens on loopback only", flush=True)
        replicas = [start_replica(f"r{i}", args.max_upload_mb, env, run_dir) for i in range(1, args.workers + 1)]
        children += replicas
        for child in replicas:
            wait_healthy(child.url, HEALTHY_WITHIN_S, child)
        for backend in args.backend:
            wait_healthy(f"http://{backend}", HEALTHY_WITHIN_S)
        started = time.monotonic()
        warm_all([c.url for c in replicas] + [f"http://{b}" for b in args.backend])
        print(f"Warmed {len(replicas) + len(args.backend)} replica(s) with a session on / in "
              f"{time.monotonic() - started:.0f} s", flush=True)
        backends = [c.url.removeprefix("http://") for c in replicas] + list(args.backend)
        config = run_dir / "haproxy.cfg"
        config.write_text(render(f"{url_host(args.address)}:{args.port}", backends, args.max_upload_mb,
                                 stats_socket=str(run_dir / "haproxy.sock")))
        proxy = spawn("haproxy", [find_binary("haproxy"), "-db", "-f", str(config)], run_dir / "haproxy.log")
        children.append(proxy)
        local = "127.0.0.1" if args.address in ("0.0.0.0", "::") else url_host(args.address)
        proxy.url = f"http://{local}:{args.port}"
        wait_healthy(proxy.url, PROXY_WITHIN_S, proxy)
        state = {"proxy_url": proxy.url, "haproxy_pid": proxy.proc.pid, "config": str(config),
                 "redis_url": env["CHUNKVIZ_REDIS_URL"], "redis_pid": redis.proc.pid if redis else None,
                 "replicas": [{"name": c.name, "url": c.url, "pid": c.proc.pid} for c in replicas],
                 "backends": list(args.backend)}
        (run_dir / "state.json").write_text(json.dumps(state, indent=1))
        print(f"Ready: HAProxy on {proxy.url} in front of " + ", ".join(
            [f"{c.name} {c.url} (pid {c.proc.pid})" for c in replicas] + list(args.backend)), flush=True)
        print(f"Logs and state: {run_dir}", flush=True)
        return watch(proxy, redis, replicas, bool(args.backend))
    except Stop as why:
        print(f"Stopping ({why})...", flush=True)
        return 0
    except (RuntimeError, Refused) as exc:
        print(f"class_server: {exc}", file=sys.stderr, flush=True)
        return 1
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        stop(children)


def watch(proxy: Child, redis: Child | None, replicas: list[Child], has_backends: bool) -> int:
    """Until a signal: a dead replica is reported once (HAProxy moves its browsers); a dead proxy, Redis or last
    replica ends the class."""
    reported: set[str] = set()
    while True:  # ends on Stop (a signal) or a return below
        time.sleep(POLL_S)
        for essential in [proxy] + ([redis] if redis else []):
            if essential.proc.poll() is not None:
                print(f"class_server: {essential.name} exited with status {essential.proc.returncode}: "
                      f"{log_tail(essential)}; stopping the class", file=sys.stderr, flush=True)
                return 1
        for child in replicas:
            if child.proc.poll() is not None and child.name not in reported:
                reported.add(child.name)
                print(f"Replica {child.name} (pid {child.proc.pid}) exited with status {child.proc.returncode}; "
                      "HAProxy sends its students to the others", flush=True)
        if len(reported) == len(replicas) and not has_backends:
            print("class_server: every replica has exited; stopping", file=sys.stderr, flush=True)
            return 1


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2, help=f"local replicas, 1 to {MAX_WORKERS}")
    parser.add_argument("--address", default="127.0.0.1", help="where HAProxy listens (IP address or host name)")
    parser.add_argument("--port", default="8501", help="HAProxy's port")
    parser.add_argument("--backend", action="append", default=[], help="HOST:PORT of a replica elsewhere (repeat)")
    parser.add_argument("--redis-url", default="", help="an existing Redis for the room state (none started then)")
    parser.add_argument("--max-upload-mb", type=int, default=10, help="Streamlit's server.maxUploadSize")
    args = parser.parse_args(argv)
    try:
        if not 1 <= args.workers <= MAX_WORKERS:
            raise Refused(f"--workers must be from 1 to {MAX_WORKERS}, got {args.workers}")
        if not 1 <= args.max_upload_mb <= 1024:
            raise Refused(f"--max-upload-mb must be from 1 to 1024, got {args.max_upload_mb}")
        args.address = check_host("--address", args.address)
        args.port = check_port("--port", args.port)
        args.backend = [check_backend(b) for b in args.backend]
        args.redis_url = check_redis_url(args.redis_url) if args.redis_url else ""
    except Refused as refusal:
        parser.exit(2, f"{refusal}\n")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    signal.signal(signal.SIGINT, _on_signal)
    signal.signal(signal.SIGTERM, _on_signal)
    run_dir = Path(tempfile.mkdtemp(prefix="chunkviz-class-"))
    try:
        return serve(args, run_dir)
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
