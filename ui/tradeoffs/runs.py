"""Parallel, cached simulation runs for the trade-offs page: sweep points and capacity searches.

Invariant: a point's trace is the one run_scenario gives (same scenario, same trace, on any worker); traces are
cached per Scenario (bounded, shared between sessions), so a new SLO re-summarizes without re-simulating, and only
the missing points go to the worker pool.

Why a kept pool from forkserver: the Streamlit server is multi-threaded, and forking such a process can inherit a
held lock; the forkserver is a clean single-threaded process that forks the workers. It is started once per
server and reused; if it cannot start (or breaks), the points run in this process.
"""

from __future__ import annotations

import multiprocessing
import threading
from collections import OrderedDict
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Callable

import streamlit as st

from chunkviz.analysis.capacity import CapacityResult, Slo, find_capacity
from chunkviz.analysis.parallel import default_workers, map_ordered
from chunkviz.analysis.scenario import Scenario, run_scenario
from chunkviz.simulator.trace import Trace

MAX_CACHED_TRACES = 96
Progress = Callable[[int, int], None] | None


class _TraceCache:
    """A bounded LRU of traces by scenario, safe to share between the server's session threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.traces: OrderedDict[Scenario, Trace] = OrderedDict()

    def get(self, scenario: Scenario) -> Trace | None:
        with self.lock:
            trace = self.traces.get(scenario)
            if trace is not None:
                self.traces.move_to_end(scenario)
            return trace

    def put(self, scenario: Scenario, trace: Trace) -> None:
        with self.lock:
            self.traces[scenario] = trace
            while len(self.traces) > MAX_CACHED_TRACES:
                self.traces.popitem(last=False)


@st.cache_resource(show_spinner=False)
def _cache() -> _TraceCache:
    return _TraceCache()


@st.cache_resource(show_spinner=False)
def _pool() -> Executor | None:
    workers = default_workers()
    if workers < 2:
        return None
    try:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["chunkviz.analysis.scenario"])
        return ProcessPoolExecutor(max_workers=workers, mp_context=context)
    except (ValueError, OSError):  # no forkserver on this platform
        return None


def _map(fn: Callable, items: list, on_progress: Progress) -> list:
    """fn over items on the kept pool, or here when there is none (or it broke: then it is dropped for a new one)."""
    pool = _pool()
    try:
        return map_ordered(fn, items, workers=1, on_progress=on_progress, executor=pool)
    except BrokenProcessPool:
        _pool.clear()
        return map_ordered(fn, items, workers=1, on_progress=on_progress)


def run_points(scenarios: list[Scenario], on_progress: Progress = None) -> list[Trace]:
    """The traces of `scenarios`, in order: cached ones at once, the rest in parallel; progress counts both."""
    cache = _cache()
    found = {i: cache.get(s) for i, s in enumerate(scenarios)}
    missing = [i for i, trace in found.items() if trace is None]
    already = len(scenarios) - len(missing)
    if on_progress is not None and already:
        on_progress(already, len(scenarios))
    step = None if on_progress is None else (lambda done, _: on_progress(already + done, len(scenarios)))
    for i, trace in zip(missing, _map(run_scenario, [scenarios[i] for i in missing], step)):
        cache.put(scenarios[i], trace)
        found[i] = trace
    return [found[i] for i in range(len(scenarios))]


@st.cache_resource(max_entries=32, show_spinner=False)
def capacity(scenario: Scenario, slo: Slo, qps_min: float, qps_max: float) -> CapacityResult:
    """One capacity search (cached per scenario and SLO), its probes in parallel on the kept pool."""
    return find_capacity(scenario, slo, lambda fn, jobs: _map(fn, list(jobs), None), qps_min, qps_max,
                         tolerance=0.05, probes_per_round=4, max_rounds=3)
