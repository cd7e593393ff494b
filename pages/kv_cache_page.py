"""Paged KV cache: step a teaching-size cache block by block: sharing, copy-on-write, eviction, preemption."""

from dataclasses import replace

import streamlit as st

from chunkviz.config import ALLOCATION_NAMES, EVICTION_NAMES, CacheConfig
from chunkviz.lessons.kv_view import (BLOCK_SIZES, KV_SCENARIOS, MAX_BLOCKS, MAX_REQUESTS, MIN_BLOCKS, MIN_REQUESTS,
                              TEACHING_MAX_MODEL_LEN_TOKENS, event_steps, grid_cells, kv_scenario, memory_series,
                              next_step, rejections, table_rows)
from chunkviz.analysis.metrics import summarize
from ui import charts_kv as charts
from ui.explain import explain_step
from ui.i18n import current_lang, labeler, t
from ui.page_common import base_scenario, finite
from ui.playback import playback
from ui.runs import trace_or_error
from ui.text_kv import chart_labels, rejection_markdown, table_records
from ui.url_state import choice, choice_parser, number, publish, seed, stepped_choice

JUMPS = (("hit", "PrefixHit"), ("cow", "CopyOnWrite"), ("evict", "Evicted"), ("preempt", "Preempted"))


# A scenario determines its trace, so the scenarios alone key this cache (the traces are passed along, unhashed).
@st.cache_resource(max_entries=32, show_spinner=False)
def _derived(scenario, other, _trace, _other_trace):
    steps = {kind: event_steps(_trace, kind) for _, kind in JUMPS}
    series = memory_series(_trace, scenario.requests(), scenario.model.max_model_len_tokens)
    return steps, series, summarize(_trace), summarize(_other_trace)


def _ms(m) -> str:
    if finite(m.ttft_s.mean) is None:
        return "–"
    v = m.ttft_s.mean * 1e3
    return t("kv.ms", v=f"{v:.1f}" if v < 100 else f"{v:.0f}")  # short enough for six cards in a row


st.title(t("kv.title"))
st.markdown(t("kv.lesson"))
c = st.columns([3, 2, 3, 2])
scn = choice(c[0], t("kv.scn"), KV_SCENARIOS, "kv_scn", "shared-system-prompt", labeler("kv.scn."))
blocks = number(c[1], t("kv.blocks"), MIN_BLOCKS, MAX_BLOCKS, 128, 16, "kv_blocks", help=t("kv.blocks_help"))
block_size = stepped_choice(c[2], t("kv.bs"), BLOCK_SIZES, "kv_bs", 16)
num_requests = number(c[3], t("kv.n"), MIN_REQUESTS, MAX_REQUESTS, 16, 1, "kv_n")
c = st.columns([2, 3, 3], vertical_alignment="bottom")
seed("kv_cache", True, lambda raw: choice_parser(("True", "False"))(raw) == "True")
caching = c[0].toggle(t("kv.cache"), key="kv_cache", help=t("kv.cache_help"))
publish("kv_cache")
evict = choice(c[1], t("kv.evict"), EVICTION_NAMES, "kv_evict", "lru", labeler("kv.evict."))
alloc = choice(c[2], t("kv.alloc"), ALLOCATION_NAMES, "kv_alloc", "incremental", labeler("kv.alloc."))
st.caption(t("kv.limits", lo=MIN_REQUESTS, hi=MAX_REQUESTS, blo=MIN_BLOCKS, bhi=MAX_BLOCKS,
             max_len=TEACHING_MAX_MODEL_LEN_TOKENS))

cache = CacheConfig(block_size=int(block_size), num_gpu_blocks=int(blocks), enable_prefix_caching=bool(caching),
                    eviction=evict, allocation=alloc)
scenario = kv_scenario(base_scenario(), scn, int(num_requests), cache)
other = replace(scenario, cache=replace(cache, enable_prefix_caching=not caching))
trace, other_trace = trace_or_error(scenario), trace_or_error(other)
if trace is None or other_trace is None:
    st.stop()
if rejections(trace):
    st.warning(rejection_markdown(rejections(trace)))
if not trace.steps:
    st.info(t("kv.no_steps"))
    st.stop()

steps_of, series, m, m_other = _derived(scenario, other, trace, other_trace)
on, off = (m, m_other) if caching else (m_other, m)
st.subheader(t("kv.run_title"))
cols = st.columns(6)
cols[0].metric(t("kv.m.hit_rate"), f"{m.prefix_hit_rate:.0%}", help=t("kv.m.hit_rate_help"))
cols[1].metric(t("kv.m.evicted"), trace.num_evicted_blocks)
cols[2].metric(t("kv.m.peak"), f"{trace.peak_blocks_used} / {trace.num_gpu_blocks}")
cols[3].metric(t("kv.m.preemptions"), m.num_preemptions)
gain_ms = None if on.ttft_s.mean is None or off.ttft_s.mean is None else (on.ttft_s.mean - off.ttft_s.mean) * 1e3
cols[4].metric(t("kv.m.ttft_on"), _ms(on), None if gain_ms is None else f"{gain_ms:+.1f} ms", help=t("kv.m.ttft_help"),
               delta_color="off" if gain_ms is not None and abs(gain_ms) < 0.05 else "inverse")
cols[5].metric(t("kv.m.ttft_off"), _ms(off))

jumps = {t(f"kv.jump.{name}"): (lambda i, s=steps_of[kind]: next_step(s, i)) for name, kind in JUMPS}
cursor = playback("kv_step", len(trace.steps), jumps)
record = trace.steps[cursor]
labels = chart_labels()
cells = grid_cells(record.snapshot, trace.num_gpu_blocks)
st.plotly_chart(charts.grid_figure(cells, t("kv.grid_title", step=cursor), labels), width="stretch",
                key="kv_grid")
st.caption(t("kv.grid_caption"))
st.markdown(f"**{t('kv.free_title')}**")
if record.snapshot.free_queue_head:
    st.plotly_chart(charts.free_queue_figure(record.snapshot.free_queue_head, cells, labels), width="stretch",
                    key="kv_free")
else:
    st.info(t("kv.free_none"))
left, right = st.columns([3, 2])
with left:
    st.markdown(f"**{t('kv.tables_title')}**")
    rows = table_rows(record.snapshot)
    if rows:
        st.dataframe(table_records(rows), hide_index=True, width="stretch", height=min(38 + 35 * len(rows), 360),
                     key="kv_tables")
        st.caption(t("kv.tables_caption"))
    else:
        st.info(t("kv.tables_none"))
with right, st.expander(t("explain.title"), expanded=True):
    for line in explain_step(record, trace.budget_tokens, current_lang()):
        st.write(line)

st.subheader(t("kv.mem_title"))
st.plotly_chart(charts.memory_figure(series, cursor, labels), width="stretch", key="kv_memory")
st.caption(t("kv.mem_caption", max_len=series.max_model_len_tokens))
st.markdown(t("kv.fit", n=series.num_seqs, paged_prompts=series.num_fit_paged_prompts,
              paged_full=series.num_fit_paged_full, exact=series.num_fit_exact, max_len=series.num_fit_max_len))
