"""Cached simulation runs for the pages; errors become messages, not tracebacks.

Invariant: a trace is simulated once per Scenario (bounded cache) and shared read-only between sessions.
"""

from __future__ import annotations

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


@st.cache_resource(max_entries=MAX_CACHED_RUNS, ttl=CACHE_TTL_S, show_spinner=False)
def cached_trace(scenario: Scenario) -> Trace:
    # cache_resource, not cache_data: a Trace is deeply frozen, so sharing one object is safe and skips a copy
    # on every step click (style guide §5.7).
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
