"""Run one pure function over many points: in this process, in local worker processes, or on a Dask cluster.

Invariant: map_ordered(fn, items, ...) returns [fn(x) for x in items] — the same values in the grid's order, never
the order of completion — whichever executor ran them; each point carries everything it needs (its own seed), so
where it ran cannot change its result. Progress is reported once per finished point.

Why one code path: `distributed.Client(address).get_executor()` is a concurrent.futures.Executor, like
ProcessPoolExecutor (shared/guides/scaleout.md), so submitting and gathering is the same code for both.
dask.distributed is imported only when a scheduler address is given.
"""

from __future__ import annotations

import os
import re
import socket
import struct
from concurrent.futures import Executor, as_completed
from typing import Callable, Sequence, TypeVar

from chunkviz.errors import InputError

T = TypeVar("T")
R = TypeVar("R")
MAX_WORKERS = 256
# A scheduler that does not answer within this is reported, not waited for: a Dask scheduler on a reachable host
# accepts a connection in milliseconds, so 3 s only delays the message for a wrong or firewalled address.
CONNECT_TIMEOUT_S = 3
# Only tcp:// is taken: tls:// needs certificates (a distributed.security.Security object, no flag here),
# ucx:// needs the ucx-py transport, and inproc:// reaches only a scheduler inside this very process.
# HOST is a name, an IPv4 address or a bracketed IPv6 address; PORT is 1..65535 (checked below).
_ADDRESS = re.compile(r"^tcp://(?P<host>[A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\]):(?P<port>[0-9]{1,5})$")
_MAX_HANDSHAKE_BYTES = 1_000_000
ADDRESS_FORM = "tcp://HOST:PORT (e.g. tcp://10.0.0.5:8786; tcp:// is the only scheme supported)"


def default_workers() -> int:
    """All cores of this machine (the CPUs this process may run on, where the OS says)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def check_workers(workers: int | None) -> int:
    if workers is None:
        return default_workers()
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= MAX_WORKERS:
        raise InputError(f"--workers must be a whole number from 1 to {MAX_WORKERS}, got {workers!r}")
    return workers


def check_address(address: str) -> tuple[str, int]:
    """(host, port) of a Dask scheduler address; anything but tcp://HOST:PORT is refused with the form."""
    match = _ADDRESS.match(address) if isinstance(address, str) else None
    if match is None or not 1 <= int(match["port"]) <= 65535:
        raise InputError(f"--scheduler-address must be {ADDRESS_FORM}, got {address!r:.80}")
    return match["host"].strip("[]"), int(match["port"])


def _probe(address: str, host: str, port: int) -> None:
    """Check, within CONNECT_TIMEOUT_S, that a Dask scheduler listens at host:port, before Dask's client tries.

    Why: the client retries a refused port until its timeout, and once connected it reads the peer's handshake with
    no timeout at all, so a silent server hangs it forever and an HTTP server's bytes make it allocate exabytes. A
    scheduler writes its handshake as soon as it accepts (distributed/comm/core.py `Listener.on_connection`), each
    message led by its length as an 8-byte unsigned int (distributed/comm/tcp.py `TCP.read`, format "Q"): a few
    hundred bytes for a handshake, so a length over _MAX_HANDSHAKE_BYTES is not a Dask scheduler.
    """
    where = f"--scheduler-address {address}"
    try:
        with socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_S) as sock:
            head = _recv_exactly(sock, 8)
    except TimeoutError:
        raise InputError(f"{where}: no Dask scheduler answered there within {CONNECT_TIMEOUT_S} s") from None
    except OSError as exc:
        raise InputError(f"{where}: could not reach a Dask scheduler there "
                         f"({exc.strerror or type(exc).__name__})") from None
    if len(head) < 8 or not 0 < struct.unpack("Q", head)[0] <= _MAX_HANDSHAKE_BYTES:
        raise InputError(f"{where}: something answered there, but not a Dask scheduler (is the port right? a "
                         "scheduler listens on 8786 by default)")


def _recv_exactly(sock: socket.socket, num_bytes: int) -> bytes:
    """Up to num_bytes from sock (fewer when the peer closes first); the socket's timeout bounds each wait."""
    data = b""
    for _ in range(num_bytes):  # bounded: each recv returns at least one byte or ends the loop
        chunk = sock.recv(num_bytes - len(data))
        if not chunk:
            break
        data += chunk
        if len(data) == num_bytes:
            break
    return data


def map_ordered(fn: Callable[[T], R], items: Sequence[T], workers: int | None = None,
                scheduler_address: str | None = None,
                on_progress: Callable[[int, int], None] | None = None, executor: Executor | None = None) -> list[R]:
    """fn over items (fn must be a module-level function: it is pickled to the workers). `executor`: a pool the
    caller keeps alive between calls (the app's), used instead of a new one."""
    items = list(items)
    if executor is not None and len(items) > 1:
        return _gather(executor, fn, items, on_progress)
    if scheduler_address is not None:
        check_address(scheduler_address)
        return _on_dask(fn, items, scheduler_address, on_progress)
    num_workers = min(check_workers(workers), len(items))
    if num_workers <= 1:
        results = []
        for done, item in enumerate(items, start=1):
            results.append(fn(item))
            if on_progress is not None:
                on_progress(done, len(items))
        return results
    from concurrent.futures import ProcessPoolExecutor  # lazy: it pulls in multiprocessing (~0.1 s at start-up)

    with ProcessPoolExecutor(max_workers=num_workers) as pool:
        return _gather(pool, fn, items, on_progress)


def _gather(executor: Executor, fn: Callable[[T], R], items: list[T],
            on_progress: Callable[[int, int], None] | None) -> list[R]:
    futures = [executor.submit(fn, item) for item in items]
    for done, _ in enumerate(as_completed(futures), start=1):
        if on_progress is not None:
            on_progress(done, len(items))
    return [f.result() for f in futures]  # grid order; re-raises a point's error here


def _on_dask(fn: Callable[[T], R], items: list[T], address: str,
             on_progress: Callable[[int, int], None] | None) -> list[R]:
    try:
        from distributed import Client  # lazy: only sweeps on a cluster need it
    except ImportError:
        raise InputError("--scheduler-address needs dask.distributed: pip install distributed") from None
    _probe(address, *check_address(address))
    try:
        client = Client(address, timeout=f"{CONNECT_TIMEOUT_S}s")
    except Exception as exc:  # noqa: BLE001 -- something listens there but is not a Dask scheduler: distributed
        # then fails however the bytes it reads decode (a timeout, an OSError, or a numpy MemoryError when it
        # takes an HTTP server's reply for a frame length), none of which says what the user should fix
        raise InputError(f"--scheduler-address {address}: no Dask scheduler answered there "
                         f"({type(exc).__name__}: {str(exc)[:120]})") from None
    try:
        return _gather(client.get_executor(), fn, items, on_progress)
    finally:
        client.close()
