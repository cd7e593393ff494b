"""Cached simulation runs for the pages; errors become messages, not tracebacks.

Invariant: a trace is simulated once per Scenario (bounded cache) and shared read-only between sessions; the
collector pause (COLLECTOR_PAUSE) leaves the collector as it found it once the last overlapping build ends.
"""

from __future__ import annotations

import gc
import threading

import streamlit as st

from chunkviz.errors import InputError, SimulationLimitError
from chunkviz.analysis.scenario import Scenario, run_scenario
from chunkviz.simulator.trace import Trace
from ui.i18n import t
from ui.plain import md_escape


# Every cache in ui/ is process-wide (shared by all sessions, so a class opening the same chapter costs one run) and
# bounded: max_entries caps its size, CACHE_TTL_S drops what nobody asked for within an hour (a lesson's length), so
# a server left running after class gives the memory back. tests/test_class_sharing.py checks the sharing.
CACHE_TTL_S = 3600
MAX_CACHED_RUNS = 48  # the sidebar's default run is ~4.5 MB (tracemalloc), a chapter's preset under 2.5 MB


class CollectorPause:
    """Python's cyclic collector off while at least one heavy build runs, back on (if it was on) when the last ends.

    Why: a server's heap holds every cached run (each ~10^5 objects), and a simulation allocates and drops objects
    by the hundred thousand, so the collector's automatic full passes walked the whole heap several times per run:
    measured, the sidebar's default chunked run took 185 ms with 20 runs cached against 88 ms with the collector
    paused (90 ms on an empty heap; issue 37). Reference counting still frees every acyclic object at once; cycles
    left meanwhile wait for the next pass after the pause. Sessions overlap, so the pause is counted, not nested
    blindly: it ends when no build is running (a simulation is bounded by the engine's limits, a payload by its run).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running = 0
        self._resume = False

    def __enter__(self) -> None:
        with self._lock:
            if self._running == 0:
                self._resume = gc.isenabled()
                gc.disable()
            self._running += 1

    def __exit__(self, *_exc: object) -> None:
        with self._lock:
            self._running -= 1
            if self._running == 0 and self._resume:
                gc.enable()


COLLECTOR_PAUSE = CollectorPause()


@st.cache_resource(max_entries=MAX_CACHED_RUNS, ttl=CACHE_TTL_S, show_spinner=False)
def cached_trace(scenario: Scenario) -> Trace:
    # cache_resource, not cache_data: a Trace is deeply frozen, so sharing one object is safe and skips a copy
    # on every step click (style guide §5.7).
    with COLLECTOR_PAUSE:
        return run_scenario(scenario)


def trace_or_error(scenario: Scenario) -> Trace | None:
    """The trace of a scenario, or None after showing why it cannot run; contradictory settings get a note."""
    try:
        # Streamlit shows the spinner only after 0.5 s (elements/spinner.py DELAY_SECS), so cached runs show
        # nothing. A rerun asked for meanwhile (the student changes a setting again) stops this script at its next
        # Streamlit call, i.e. once the simulation returns: a pure-Python run has no point to stop at, and its
        # result is kept in the shared cache, so going back to that setting is instant. The engine's limits
        # (simulator/engine.py MAX_DETAIL_STEPS, MAX_DETAIL_SEQ_ENTRIES, MAX_DETAIL_BLOCK_VIEWS) bound its length.
        with st.spinner(t("run.simulating"), show_time=True):
            trace = cached_trace(scenario)
    except (InputError, ValueError, SimulationLimitError) as exc:
        st.error(t("err.config", error=md_escape(exc)))
        return None
    for note in trace.knob_notes:  # found when the run resolved its knobs, its one resolution
        st.info(t("err.note", note=md_escape(note)))
    return trace
