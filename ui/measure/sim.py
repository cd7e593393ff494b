"""The measure page's last section: the sidebar's scenario simulated with the measured profile instead of the
roofline, monolithic against chunked prefill.

Invariant: nothing here measures; it only runs the simulator with a CostProfile that was measured or uploaded.
"""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from chunkviz.analysis.metrics import summarize
from chunkviz.analysis.scenario import Scenario
from chunkviz.analysis.profile_coverage import measured_step_share
from chunkviz.config import CostProfile
from ui.i18n import t
from ui.page_common import metric_cards
from ui.plain import md_escape
from ui.runs import trace_or_error
from ui.url_state import stepped_choice

BUDGETS = (64, 128, 256, 512, 1024, 2048, 4096, 8192)


def show_simulation(base: Scenario, profile: CostProfile) -> None:
    """The sidebar's scenario run with the measured step times: monolithic against chunked, and how much of
    each run's steps the measurements cover."""
    st.subheader(t("me.sim"))
    budget = stepped_choice(st, t("me.budget"), BUDGETS, "me_budget", 512)
    measured = replace(base, cost_profile=profile)
    st.caption(t("me.applied", scale=base.model.num_layers / profile.model.num_layers,
                 sim_layers=base.model.num_layers, sim_model=md_escape(base.model.model_id),
                 layers=profile.model.num_layers,
                 gpu=md_escape(base.gpu.gpu_id)))
    engines = (("monolithic", measured.with_policy("monolithic", None)),
               ("chunked", measured.with_policy("chunked", int(budget))))
    traces = {name: trace_or_error(scenario) for name, scenario in engines}
    if any(trace is None for trace in traces.values()):
        return
    reference = None
    for name, scenario in engines:
        st.markdown(f"**{t(f'me.eng.{name}', budget=budget)}**")
        metrics = summarize(traces[name])
        metric_cards(metrics, reference)
        reference = reference or metrics
    st.caption(t("me.delta_note"))
    last_arrival_s = max((r.arrival_s for r in traces["chunked"].requests), default=0.0)
    if traces["chunked"].makespan_s > 3 * max(last_arrival_s, 1.0):  # the backlog, not the policy, sets latency
        st.info(t("me.overloaded", qps=base.workload.qps))
    share = {name: measured_step_share(scenario.sim_config(), traces[name]) or 0.0 for name, scenario in engines}
    st.caption(t("me.coverage", mono=share["monolithic"], chunked=share["chunked"]))
