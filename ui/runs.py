"""Cached simulation runs for the pages; errors become messages, not tracebacks.

Invariant: a trace is simulated once per Scenario (bounded cache) and shared read-only between sessions.
"""

from __future__ import annotations

import streamlit as st

from chunkviz.errors import InputError, SimulationLimitError
from chunkviz.analysis.scenario import Scenario, run_scenario
from chunkviz.simulator.engine import knob_notes, resolve_knobs
from chunkviz.simulator.trace import Trace
from ui.i18n import t
from ui.plain import md_escape


# Every cache in ui/ is process-wide (shared by all sessions, so a class opening the same chapter costs one run) and
# bounded: max_entries caps its size, CACHE_TTL_S drops what nobody asked for within an hour (a lesson's length), so
# a server left running after class gives the memory back. tests/test_class_sharing.py checks the sharing.
CACHE_TTL_S = 3600
MAX_CACHED_RUNS = 48  # the sidebar's default run is ~4.5 MB (tracemalloc), a chapter's preset under 2.5 MB


@st.cache_resource(max_entries=MAX_CACHED_RUNS, ttl=CACHE_TTL_S, show_spinner=False)
def cached_trace(scenario: Scenario) -> Trace:
    # cache_resource, not cache_data: a Trace is deeply frozen, so sharing one object is safe and skips a copy
    # on every step click (style guide §5.7).
    return run_scenario(scenario)


def trace_or_error(scenario: Scenario) -> Trace | None:
    """The trace of a scenario, or None after showing why it cannot run; contradictory settings get a note."""
    try:
        trace = cached_trace(scenario)
    except (InputError, ValueError, SimulationLimitError) as exc:
        st.error(t("err.config", error=md_escape(exc)))
        return None
    config = scenario.sim_config()
    for note in knob_notes(config, resolve_knobs(config, trace.num_gpu_blocks), trace.num_gpu_blocks):
        st.info(t("err.note", note=md_escape(note)))
    return trace
