"""The trade-offs page's capacity section: capacity (requests/s within the SLO) by policy and budget.

Invariant: every bar is the result of one capacity search (chunkviz.analysis.capacity) on the sidebar's workload
with the page's targets; a policy/budget with no capacity has no bar and says why in a sentence.
"""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from chunkviz.analysis.capacity import SARATHI_QUEUE_P50_S, CapacityResult, Slo, native_qps
from chunkviz.analysis.scenario import Scenario
from chunkviz.errors import SimulationLimitError
from chunkviz.config import SchedulerConfig
from chunkviz.simulator.policies.registry import policy_entry
from ui.i18n import t
from ui.palette import DECODE, MIXED, PREFILL
from ui.tradeoffs.runs import capacity
from ui.plotly_config import chart_config, lecture_fonts

BUDGETS_TOKENS = (256, 512, 2048, 8192)
# Policies that never chunk run at the engine's default budget only: vLLM refuses a budget below max_model_len
# without chunked prefill (SchedulerConfig._verify_args), so the budget axis means nothing to them.
CAPACITY_POLICIES = ("monolithic", "vllm-nochunk", "chunked")  # the three the section compares (data)
POLICY_BUDGETS: dict[str, tuple[int | None, ...]] = {
    p: BUDGETS_TOKENS if policy_entry(p).chunks(SchedulerConfig(policy=p)) else (None,) for p in CAPACITY_POLICIES}
POLICY_COLORS = {"monolithic": PREFILL, "vllm-nochunk": MIXED, "chunked": DECODE}
# The search spans 1/8 to 16 times the sidebar's rate: wide enough to bracket both policies on the presets.
RATE_RANGE = (0.125, 16.0)


def _setting(policy: str, budget: int | None) -> str:
    if budget is None:
        return t("cap.setting_default", policy=t(f"cap.policy.{policy}"))
    return t("cap.setting", policy=t(f"cap.policy.{policy}"), budget=budget)


def _criterion(slo: Slo) -> str:
    """Slo.criterion in the page's language: the metrics' names as the command prints them, joined in prose."""
    parts = [t("cap.criterion_part", name=name[:-2], ms=getattr(slo, name) * 1e3)
             for name in ("tbt_p99_s", "ttft_p50_s", "queue_p50_s") if getattr(slo, name) is not None]
    return t("cap.and").join(parts)


def _category(budget: int | None) -> str:
    return t("cap.engine_default") if budget is None else str(budget)


def capacity_figure(results: dict[tuple[str, int], CapacityResult]) -> go.Figure:
    """Grouped bars: budget on x (non-chunking policies at "engine default"), one bar per policy; missing
    capacities are left out."""
    fig = go.Figure()
    for policy, budgets in POLICY_BUDGETS.items():
        found = [b for b in budgets if results[(policy, b)].capacity_qps is not None]
        xs = [_category(b) for b in found]
        ys = [results[(policy, b)].capacity_qps for b in found]
        # A bar whose search hit its top (bound_hit) is a lower bound: "≥" says so on the bar itself.
        labels = [t("cap.at_least" if results[(policy, b)].bound_reached else "cap.value", qps=y)
                  for b, y in zip(found, ys)]
        fig.add_bar(x=xs, y=ys, name=t(f"cap.policy.{policy}"), marker_color=POLICY_COLORS[policy],
                    text=labels, textposition="outside")
    fig.update_layout(barmode="group", height=380, margin={"t": 30, "b": 40},
                      legend={"orientation": "h", "y": -0.3},  # under the axis title, not on it
                      xaxis={"title": t("cap.axis_budget"), "type": "category",
                             "categoryarray": [_category(b) for b in (*BUDGETS_TOKENS, None)]},
                      yaxis={"title": t("cap.axis_qps")})
    return fig


def render(scenario: Scenario, slo_ttft_s: float, slo_tbt_s: float) -> None:
    """The section: lesson, an opt-in toggle (it costs about a hundred runs), the chart and its sentences."""
    st.subheader(t("cap.title"))
    st.markdown(t("cap.lesson", queue_s=SARATHI_QUEUE_P50_S))
    if not st.toggle(t("cap.toggle"), key="to_capacity"):
        return
    # The core's capacity search also bounds the median queueing delay (Sarathi-Serve's 2 s, analysis/capacity.py
    # SARATHI_QUEUE_P50_S), as the `capacity` command does: a rate whose queue keeps growing is not sustainable.
    slo = Slo(tbt_p99_s=slo_tbt_s, ttft_p50_s=slo_ttft_s, queue_p50_s=SARATHI_QUEUE_P50_S)
    rate = native_qps(scenario)
    low, high = rate * RATE_RANGE[0], rate * RATE_RANGE[1]
    results: dict[tuple[str, int], CapacityResult] = {}
    bar = st.empty()
    settings = [(p, b) for p, budgets in POLICY_BUDGETS.items() for b in budgets]
    try:
        for done, (policy, budget) in enumerate(settings):
            bar.progress(done / len(settings), text=t("cap.running", setting=_setting(policy, budget)))
            results[(policy, budget)] = capacity(scenario.with_policy(policy, budget), slo, low, high)
    except (ValueError, SimulationLimitError) as exc:  # InputError is a ValueError
        bar.empty()
        st.error(t("err.config", error=str(exc)))
        return
    bar.empty()
    st.plotly_chart(lecture_fonts(capacity_figure(results)), width="stretch",
                    key="to_fig_capacity", config=chart_config())
    st.caption(t("cap.criterion", criterion=_criterion(slo), low=round(low, 3), high=round(high, 3),
                 queue_s=SARATHI_QUEUE_P50_S))
    for (policy, budget), result in results.items():
        if result.capacity_qps is None:
            st.markdown("- " + t("cap.none", setting=_setting(policy, budget), low=round(low, 3)))
        elif result.bound_reached:
            st.markdown("- " + t("cap.bound", setting=_setting(policy, budget), high=round(high, 3)))
    found = [(r.capacity_qps, key) for key, r in results.items() if r.capacity_qps is not None]
    if found:
        qps, (policy, budget) = max(found)
        best = "cap.best_bound" if results[(policy, budget)].bound_reached else "cap.best"  # a lower bound: say so
        st.success(t(best, setting=_setting(policy, budget), qps=qps))
