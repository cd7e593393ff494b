"""Attention math: chunked prefill over a KV cache equals one causal pass; same FLOPs, more bytes read."""

import streamlit as st

from chunkviz.lessons.attention_math import causal_mask_by_chunk, run_attention_demo
from chunkviz.cost.prefill import prefill_cost
from ui import charts_attention as charts
from ui.i18n import t
from ui.page_common import base_scenario
from ui.plain import md_escape
from ui.playback import playback
from ui.url_state import number, stepped_choice

HEAD_DIMS = (8, 16, 32, 64, 128)
REAL_PROMPT_TOKENS = 8192
REAL_CHUNKS = (8192, 2048, 512, 256, 128)
LABEL_KEYS = ("query", "key", "chunk_no", "chunk_index", "flops_panel", "bytes_panel", "per_chunk", "cumulative",
              "one_pass", "done", "cached", "fresh", "later")


@st.cache_resource(max_entries=32, show_spinner=False)
def demo_of(n: int, d: int, chunk: int):
    # Shared, not copied per rerun (a step click must stay fast): the demo is frozen and the mask read-only.
    mask = causal_mask_by_chunk(n, chunk)
    mask.flags.writeable = False
    return run_attention_demo(num_tokens=n, head_dim=d, chunk_tokens=chunk), mask


@st.cache_data(max_entries=16, show_spinner=False)
def real_costs(model, gpu):
    return tuple(prefill_cost(model, gpu, REAL_PROMPT_TOKENS, c) for c in REAL_CHUNKS)


st.title(t("am.title"))
st.markdown(t("am.lesson"))
c = st.columns([2, 2, 3])
n = int(number(c[0], t("am.n"), 8, 512, 64, 8, "am_n"))
chunk = int(number(c[1], t("am.chunk"), 1, 512, 16, 1, "am_chunk"))
d = int(stepped_choice(c[2], t("am.d"), HEAD_DIMS, "am_d", 64))
if chunk > n:
    st.warning(t("am.chunk_too_big", chunk=chunk, n=n))
    chunk = n
try:
    demo, mask = demo_of(n, d, chunk)
except ValueError as exc:
    st.error(t("am.error", error=md_escape(exc)))
    st.stop()

num_chunks = len(demo.chunks)
m = st.columns(4)
m[0].metric(t("am.diff"), f"{demo.max_abs_diff:.1e}", help=t("am.diff_help"))
same = demo.total_attention_flops == demo.one_pass_attention_flops
m[1].metric(t("am.flops"), charts.si(demo.total_attention_flops), t("am.flops_equal" if same else "am.flops_differ"),
            delta_color="off", delta_arrow="off")
extra = demo.total_kv_read_bytes / demo.one_pass_kv_read_bytes - 1
m[2].metric(t("am.kv_read"), charts.si(demo.total_kv_read_bytes, "B"), f"{extra:+.0%}", delta_color="inverse")
m[3].metric(t("am.num_chunks"), num_chunks)

cursor = playback("am_step", num_chunks + 1)
if cursor == 0:
    st.caption(t("am.cursor_all"))
else:
    r = demo.chunks[cursor - 1]
    st.info(t("am.cursor_chunk", k=cursor, num=num_chunks, start=r.start_token, end=r.end_token - 1,
              cached=r.num_cached_tokens, c=r.num_query_tokens, pairs=f"{r.num_attention_pairs:,}",
              flops=charts.si(r.qk_flops + r.av_flops), bytes=charts.si(r.kv_read_bytes, "B")))
labels = {k: t(f"am.lbl.{k}") for k in LABEL_KEYS}
labels |= {"mask_title": t("am.mask_title"), "work_title": t("am.work_title")}
left, right = st.columns(2)
left.plotly_chart(charts.mask_figure(mask, chunk, cursor, labels), width="stretch", key="am_mask")
right.plotly_chart(charts.work_figure(demo, cursor, labels), width="stretch", key="am_work")

st.subheader(t("am.real_title"))
scenario = base_scenario()
st.markdown(t("am.real_lesson", n=f"{REAL_PROMPT_TOKENS:,}", model=md_escape(scenario.model.model_id), gpu=md_escape(scenario.gpu.gpu_id)))
try:
    costs = real_costs(scenario.model, scenario.gpu)
except ValueError as exc:
    st.error(t("am.real_error", error=md_escape(exc)))
    st.stop()
col_keys = ("col.chunk", "col.whole", "col.steps", "col.flops", "col.attn_flops", "col.weights", "col.kv", "col.time")
st.dataframe(charts.real_model_rows(costs, {k: t(f"am.{k}") for k in col_keys}), hide_index=True, width="stretch",
             key="am_real")
st.caption(t("am.real_note", overhead=scenario.cost.step_overhead_s * 1e3))
