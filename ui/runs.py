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


@st.cache_resource(max_entries=48, show_spinner=False)
def _cached_trace(scenario: Scenario) -> Trace:
    # cache_resource, not cache_data: a Trace is deeply frozen, so sharing one object is safe and skips a copy
    # on every step click (style guide §5.7).
    return run_scenario(scenario)


def trace_or_error(scenario: Scenario) -> Trace | None:
    """The trace of a scenario, or None after showing why it cannot run; contradictory settings get a note."""
    try:
        trace = _cached_trace(scenario)
    except (InputError, ValueError, SimulationLimitError) as exc:
        st.error(t("err.config", error=md_escape(exc)))
        return None
    for note in trace.knob_notes:  # found when the run resolved its knobs, its one resolution
        st.info(t("err.note", note=md_escape(note)))
    return trace
