"""A per-trace memo for the pure views of a run (lane segments, bookmarks) that several drawers read from one trace.

Invariant: a memoized function returns exactly what the undecorated one would (it is called once per live trace, and
its result, an immutable tuple, is shared); an entry holds its trace, so the id it is keyed by cannot be reused by
another object while the entry lives; at most MAX_TRACES traces per function are remembered (oldest dropped first).
"""

from __future__ import annotations

import functools
import threading
from typing import Callable, Generic, TypeVar

from chunkviz.simulator.trace import Trace

R = TypeVar("R")
# A page shows at most a few runs at once (the timeline two plus a metrics-only run, a chapter up to four); the
# memo only has to outlive one script run, the shared run caches (ui/runs.py) keep the traces themselves.
MAX_TRACES = 8


class PerTrace(Generic[R]):
    """`fn(trace)` memoized by the trace's identity (see per_trace); `cache_clear()` forgets every entry."""

    def __init__(self, fn: Callable[[Trace], R]):
        functools.update_wrapper(self, fn)
        self._fn = fn
        self._memo: dict[int, tuple[Trace, R]] = {}
        self._lock = threading.Lock()  # Streamlit runs sessions in threads

    def __call__(self, trace: Trace) -> R:
        hit = self._memo.get(id(trace))
        if hit is not None and hit[0] is trace:
            return hit[1]
        result = self._fn(trace)
        with self._lock:
            while len(self._memo) >= MAX_TRACES:  # bounded: drop the oldest
                self._memo.pop(next(iter(self._memo)))
            self._memo[id(trace)] = (trace, result)
        return result

    def cache_clear(self) -> None:
        self._memo.clear()

    def held(self) -> int:
        """How many traces the memo holds now (at most MAX_TRACES)."""
        return len(self._memo)


def per_trace(fn: Callable[[Trace], R]) -> PerTrace[R]:
    """Memoize `fn(trace)` by the trace's identity: a Trace is deeply frozen, and hashing one by value would cost
    more than the views it saves (why: the timeline's payload and its start cursor read the lane segments and
    bookmarks of the same run up to three times per rerun, issue 37)."""
    return PerTrace(fn)
