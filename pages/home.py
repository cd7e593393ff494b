"""Home: the default scenario under monolithic and chunked prefill, side by side."""

import streamlit as st

from chunkviz.metrics import summarize
from chunkviz.scenario import DEFAULT_SCENARIO, run_scenario

st.title("chunkviz")
st.write("A long prompt arrives while chats are streaming. Without chunking, its prefill takes a whole step and "
         "every running chat waits; with chunked prefill, decodes keep flowing.")


@st.cache_data(max_entries=8)
def _metrics(policy: str, budget: int | None):
    return summarize(run_scenario(DEFAULT_SCENARIO.with_policy(policy, budget)))


cols = st.columns(2)
for col, (label, policy, budget) in zip(cols, [("Monolithic prefill", "monolithic", None),
                                              ("Chunked prefill (512)", "chunked", 512)]):
    m = _metrics(policy, budget)
    with col:
        st.subheader(label)
        st.metric("TBT p99 (ms)", f"{m.tbt_s.p99 * 1e3:.1f}")
        st.metric("TTFT p50 (ms)", f"{m.ttft_s.p50 * 1e3:.1f}")
        st.metric("Throughput (output tok/s)", f"{m.throughput_output_tokens_per_s:.0f}")
