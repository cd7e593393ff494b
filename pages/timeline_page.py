"""Timeline: two engines on the same workload, one shared cursor, stalls in red."""

import streamlit as st

from chunkviz.simulator.policies.registry import POLICY_NAMES, policy_entry
from chunkviz.analysis.metrics import summarize
from chunkviz.analysis.timeline import composition, lane_segments, next_event_time, step_at_time, union_step_times
from ui import charts_timeline as charts
from ui.downloads import download_buttons
from ui.explain import explain_step
from ui.i18n import current_lang, labeler, t
from ui.page_common import base_scenario, lane_labels, metric_cards
from ui.playback import playback
from ui.url_state import choice, number, stepped_choice
from ui.runs import trace_or_error

BUDGETS = (64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384)
st.title(t("tl.title"))
st.markdown(t("tl.lesson"))
c = st.columns([2, 2, 3, 2])
policy_a = choice(c[0], t("tl.policy_a"), POLICY_NAMES, "pa", "monolithic", labeler("policy."))
policy_b = choice(c[1], t("tl.policy_b"), POLICY_NAMES, "pb", "chunked", labeler("policy."))
budget = stepped_choice(c[2], t("tl.budget"), BUDGETS, "budget", 512)
threshold = number(c[3], t("tl.threshold"), 0, 65536, 0, 64, "thr")


def scenario_for(policy: str):
    from dataclasses import replace

    base = base_scenario()
    chunking = policy_entry(policy).chunks(base.scheduler)  # the registry says which policies chunk prompts
    s = base.with_policy(policy, int(budget) if chunking else None)
    return replace(s, scheduler=replace(s.scheduler, long_prefill_token_threshold=int(threshold)))


trace_a, trace_b = trace_or_error(scenario_for(policy_a)), trace_or_error(scenario_for(policy_b))
if trace_a is None or trace_b is None:
    st.stop()
times = union_step_times(trace_a, trace_b)
jumps = {t(f"tl.{name}"): (lambda i, kinds=kinds: _next(i, kinds)) for name, kinds in
         (("stall", ("DecodeStalled",)), ("preemption", ("Preempted",)), ("first_token", ("FirstToken",)))}


def _next(index: int, kinds: tuple[str, ...]) -> int | None:
    found = [x for x in (next_event_time(tr, times[index], kinds) for tr in (trace_a, trace_b)) if x is not None]
    return times.index(min(found)) if found else None


cursor = playback("step", len(times), jumps)
cursor_s = times[cursor] + 1e-9 if times else 0.0
m_a, m_b = summarize(trace_a), summarize(trace_b)
follow = st.toggle(t("tl.follow"), value=True, key="follow", help=t("tl.follow_help"))
x_range = charts.x_window_s(cursor_s, max(trace_a.makespan_s, trace_b.makespan_s), follow)
labels = lane_labels()
for trace, policy, m, base in ((trace_a, policy_a, m_a, None), (trace_b, policy_b, m_b, m_a)):
    metric_cards(m, base)
    st.plotly_chart(charts.gantt_figure(trace, lane_segments(trace), cursor_s, x_range, t(f"policy.{policy}"), labels),
                    width="stretch", key=f"gantt_{'b' if base else 'a'}")
st.caption(t("tl.delta_note"))
cols = st.columns(2)
for col, trace, policy in ((cols[0], trace_a, policy_a), (cols[1], trace_b, policy_b)):
    index = step_at_time(trace, cursor_s)
    with col:
        st.markdown(f"**{t('tl.batch', policy=t(f'policy.{policy}'))}**")
        if index is None:
            st.info(t("tl.no_step"))
            continue
        st.plotly_chart(charts.composition_figure(composition(trace, index), labels), width="stretch",
                        key=f"comp_{policy}_{col is cols[1]}")
        with st.expander(t("explain.title"), expanded=True):
            for line in explain_step(trace.steps[index], trace.budget_tokens, current_lang()):
                st.write(line)
with st.expander(t("tl.downloads")):
    download_buttons(trace_b, f"chunkviz-{policy_b}")
