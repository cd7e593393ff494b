"""A per-trace memo for the pure views of a run (lane segments, bookmarks) that several drawers read from one trace.

Invariant: a memoized function returns exactly what the undecorated one would (it is called once per live trace, and
its result, an immutable tuple, is shared); an entry holds its trace, so the id it is keyed by cannot be reused by
another object while the entry lives; at most MAX_TRACES traces per function are remembered (oldest dropped first).
"""

from __future__ import annotations

import functools
import threading
from typing import Callable, TypeVar

from chunkviz.simulator.trace import Trace

R = TypeVar("R")
# A page shows at most a few runs at once (the timeline two plus a metrics-only run, a chapter up to four); the
# memo only has to outlive one script run, the shared run caches (ui/runs.py) keep the traces themselves.
MAX_TRACES = 8


def per_trace(fn: Callable[[Trace], R]) -> Callable[[Trace], R]:
    """Memoize `fn(trace)` by the trace's identity: a Trace is deeply frozen, and hashing one by value would cost
    more than the views it saves (why: the timeline's payload and its start cursor read the lane segments and
    bookmarks of the same run up to three times per rerun, issue 37)."""
    memo: dict[int, tuple[Trace, R]] = {}
    lock = threading.Lock()  # Streamlit runs sessions in threads

    @functools.wraps(fn)
    def wrapper(trace: Trace) -> R:
        hit = memo.get(id(trace))
        if hit is not None and hit[0] is trace:
            return hit[1]
        result = fn(trace)
        with lock:
            while len(memo) >= MAX_TRACES:  # bounded: drop the oldest
                memo.pop(next(iter(memo)))
            memo[id(trace)] = (trace, result)
        return result

    wrapper.cache_clear = memo.clear  # type: ignore[attr-defined]
    return wrapper
