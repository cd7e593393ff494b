"""The timeline page's settings and its TTFT lesson: what chunking costs, and the one-click fix with its effect.

Invariant: every figure in the lesson is measured by simulating the page's scenario (nothing is hard-coded), and
"try it" only sets the threshold widget's value in a callback, before the widget is drawn.
"""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from chunkviz.analysis.metrics import Metrics, summarize
from chunkviz.analysis.scenario import Scenario
from chunkviz.simulator.policies.registry import POLICY_NAMES, policy_entry
from chunkviz.simulator.trace import Trace
from ui.i18n import labeler, t
from ui.page_common import base_scenario
from ui.runs import trace_or_error
from ui.url_state import choice, number, stepped_choice

BUDGETS = (64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384)
THRESHOLD_KEY = "thr"


def settings() -> tuple[str, str, int, int]:
    """Both engines, the budget and the long-prefill threshold, kept in the URL."""
    c = st.columns([2, 2, 3, 2])
    policy_a = choice(c[0], t("tl.policy_a"), POLICY_NAMES, "pa", "monolithic", labeler("policy."))
    policy_b = choice(c[1], t("tl.policy_b"), POLICY_NAMES, "pb", "chunked", labeler("policy."))
    budget = stepped_choice(c[2], t("tl.budget"), BUDGETS, "budget", 512)
    threshold = number(c[3], t("tl.threshold"), 0, 65536, 0, 64, THRESHOLD_KEY)
    return policy_a, policy_b, int(budget), int(threshold)


def scenario_for(policy: str, budget: int, threshold: int) -> Scenario:
    """The sidebar's scenario run by `policy`; the budget applies to engines that chunk prompts."""
    base = base_scenario()
    chunking = policy_entry(policy).chunks(base.scheduler)  # the registry says which policies chunk prompts
    s = base.with_policy(policy, budget if chunking else None)
    return replace(s, scheduler=replace(s.scheduler, long_prefill_token_threshold=threshold))


def _try_threshold(value: int) -> None:
    st.session_state[THRESHOLD_KEY] = value


def _ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None or b <= 0 else a / b


def ttft_lesson(policy_a: str, policy_b: str, budget: int, threshold: int, m_a: Metrics, m_b: Metrics) -> None:
    """Chunked TTFT p50/p99 against the first engine, why, and the threshold that gives it back (measured)."""
    p50 = _ratio(m_b.ttft_s.p50, m_a.ttft_s.p50)
    p99 = _ratio(m_b.ttft_s.p99, m_a.ttft_s.p99)
    if p50 is None or p99 is None:
        return
    st.markdown(t("tl.ttft_lesson", a=t(f"policy.{policy_a}"), b=t(f"policy.{policy_b}"), r50=p50, r99=p99,
                  b50=m_b.ttft_s.p50 * 1e3, b99=m_b.ttft_s.p99 * 1e3, a50=m_a.ttft_s.p50 * 1e3,
                  a99=m_a.ttft_s.p99 * 1e3))
    suggestion = max(budget // 2, 16)
    if threshold or not policy_entry(policy_b).chunks(base_scenario().scheduler):
        return
    # Only its metrics are shown, so a metrics-only run (record_detail=False): the same Metrics and knob notes as
    # the detailed run (tests/test_action_cost.py) at about a sixth of the CPU of a student's own setting's
    # third simulation (issue 37). Pressing "try it" then simulates the detailed run the page draws.
    trace = trace_or_error(replace(scenario_for(policy_b, budget, suggestion), record_detail=False))
    if trace is None:
        return
    m_fix = summarize(trace)
    cols = st.columns([3, 7], vertical_alignment="center")
    cols[0].button(t("tl.try_it", v=suggestion), key="try_threshold", on_click=_try_threshold, args=(suggestion,))
    cols[1].markdown(t("tl.try_effect", v=suggestion, p50=m_b.ttft_s.p50 * 1e3, p50_fix=m_fix.ttft_s.p50 * 1e3,
                       p99=m_b.ttft_s.p99 * 1e3, p99_fix=m_fix.ttft_s.p99 * 1e3, tbt=m_b.tbt_s.p99 * 1e3,
                       tbt_fix=m_fix.tbt_s.p99 * 1e3))


def caching_note(policy_a: str, policy_b: str, trace_a: Trace, trace_b: Trace, m_a: Metrics, m_b: Metrics) -> None:
    """When one engine ships prefix caching on and the other off (vLLM V1 vs V0), say so and what it did here."""
    if trace_a.prefix_caching == trace_b.prefix_caching:
        return
    (on, m_on), off = ((policy_a, m_a), policy_b) if trace_a.prefix_caching else ((policy_b, m_b), policy_a)
    name_on = t(f"policy.{on}")
    rate = m_on.prefix_hit_rate
    effect = t("tl.caching_hits", on=name_on, rate=rate) if rate > 0 else t("tl.caching_none")
    st.caption(t("tl.caching_note", on=name_on, off=t(f"policy.{off}"), effect=effect))
