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
from concurrent.futures import Executor, as_completed
from typing import Callable, Sequence, TypeVar

from chunkviz.errors import InputError

T = TypeVar("T")
R = TypeVar("R")
MAX_WORKERS = 256
CONNECT_TIMEOUT_S = 10  # a scheduler that does not answer within this is reported, not waited for
_ADDRESS = re.compile(r"^(tcp|tls|inproc|ucx)://[^\s/]+(:\d{1,5})?$")


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


def check_address(address: str) -> str:
    if not _ADDRESS.match(address):
        raise InputError(f"--scheduler-address must look like tcp://HOST:PORT, got {address!r}")
    return address


def map_ordered(fn: Callable[[T], R], items: Sequence[T], workers: int | None = None,
                scheduler_address: str | None = None,
                on_progress: Callable[[int, int], None] | None = None, executor: Executor | None = None) -> list[R]:
    """fn over items (fn must be a module-level function: it is pickled to the workers). `executor`: a pool the
    caller keeps alive between calls (the app's), used instead of a new one."""
    items = list(items)
    if executor is not None and len(items) > 1:
        return _gather(executor, fn, items, on_progress)
    if scheduler_address is not None:
        return _on_dask(fn, items, check_address(scheduler_address), on_progress)
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
    try:
        client = Client(address, timeout=f"{CONNECT_TIMEOUT_S}s")
    except (OSError, TimeoutError) as exc:
        raise InputError(f"could not reach the Dask scheduler at {address}: {exc}") from None
    try:
        return _gather(client.get_executor(), fn, items, on_progress)
    finally:
        client.close()
