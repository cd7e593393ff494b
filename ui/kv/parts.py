"""The paged-KV-cache page's parts: its controls, the cached derived data and the metric cards (the steps are drawn
by the KV stage, ui/components/kv_stage/mount.py). pages/kv_cache_page.py only lays them out.

Invariant: every widget keeps the key (and so the URL parameter) the page has always used (kv_*).
"""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from chunkviz.analysis.metrics import Metrics, summarize
from chunkviz.analysis.scenario import Scenario
from chunkviz.config import ALLOCATION_NAMES, EVICTION_NAMES, CacheConfig
from chunkviz.lessons.kv_view import (BLOCK_SIZES, KV_SCENARIOS, MAX_BLOCKS, MAX_REQUESTS, MIN_BLOCKS, MIN_REQUESTS,
                                      TEACHING_MAX_MODEL_LEN_TOKENS, kv_scenario, memory_series)
from chunkviz.simulator.policies.registry import policy_entry
from chunkviz.simulator.trace import Trace
from ui.i18n import labeler, t
from ui.page_common import base_scenario, definitions, finite
from ui.url_state import choice, choice_parser, number, publish, seed, stepped_choice


def kv_controls() -> tuple[Scenario, Scenario, bool]:
    """The page's widgets → (the chosen scenario, the same with prefix caching flipped, whether caching is on)."""
    c = st.columns([3, 2, 3, 2])
    scn = choice(c[0], t("kv.scn"), KV_SCENARIOS, "kv_scn", "shared-system-prompt", labeler("kv.scn."))
    blocks = number(c[1], t("kv.blocks"), MIN_BLOCKS, MAX_BLOCKS, 128, 16, "kv_blocks", help=t("kv.blocks_help"))
    block_size = stepped_choice(c[2], t("kv.bs"), BLOCK_SIZES, "kv_bs", 16)
    num_requests = number(c[3], t("kv.n"), MIN_REQUESTS, MAX_REQUESTS, 16, 1, "kv_n")
    c = st.columns([2, 3, 3], vertical_alignment="bottom")
    # Defaults to what the sidebar's engine ships (on for vLLM V1, SGLang, TensorRT-LLM; off for V0 and the others).
    engine_default = policy_entry(base_scenario().scheduler.policy).prefix_caching_default
    seed("kv_cache", engine_default, lambda raw: choice_parser(("True", "False"))(raw) == "True")
    caching = bool(c[0].toggle(t("kv.cache"), key="kv_cache", help=t("kv.cache_help")))
    publish("kv_cache")
    evict = choice(c[1], t("kv.evict"), EVICTION_NAMES, "kv_evict", "lru", labeler("kv.evict."))
    alloc = choice(c[2], t("kv.alloc"), ALLOCATION_NAMES, "kv_alloc", "incremental", labeler("kv.alloc."))
    st.caption(t("kv.limits", lo=MIN_REQUESTS, hi=MAX_REQUESTS, blo=MIN_BLOCKS, bhi=MAX_BLOCKS,
                 max_len=TEACHING_MAX_MODEL_LEN_TOKENS))
    cache = CacheConfig(block_size=int(block_size), num_gpu_blocks=int(blocks), enable_prefix_caching=caching,
                        eviction=evict, allocation=alloc)
    scenario = kv_scenario(base_scenario(), scn, int(num_requests), cache)
    return scenario, replace(scenario, cache=replace(cache, enable_prefix_caching=not caching)), caching


# A scenario determines its trace, so the scenarios alone key this cache (the traces are passed along, unhashed).
@st.cache_resource(max_entries=32, show_spinner=False)
def derived(scenario, other, _trace, _other_trace):
    """(the memory series, metrics of the run, metrics of the other run)."""
    series = memory_series(_trace, scenario.requests(), scenario.model.max_model_len_tokens)
    return series, summarize(_trace), summarize(_other_trace)


def _ms(m: Metrics) -> str:
    if finite(m.ttft_s.mean) is None:
        return "–"
    v = m.ttft_s.mean * 1e3
    return t("kv.ms", v=f"{v:.1f}" if v < 100 else f"{v:.0f}")  # short enough for six cards in a row


def kv_metric_cards(trace: Trace, m: Metrics, on: Metrics, off: Metrics) -> None:
    """Hit rate, evictions, peak blocks, preemptions, and TTFT with caching on against off."""
    cols = st.columns(6)
    cols[0].metric(t("kv.m.hit_rate"), f"{m.prefix_hit_rate:.0%}", help=t("kv.m.hit_rate_help"))
    cols[1].metric(t("kv.m.evicted"), trace.num_evicted_blocks)
    cols[2].metric(t("kv.m.peak"), f"{trace.peak_blocks_used} / {trace.num_gpu_blocks}")
    cols[3].metric(t("kv.m.preemptions"), m.num_preemptions)
    gain_ms = None if on.ttft_s.mean is None or off.ttft_s.mean is None else (on.ttft_s.mean - off.ttft_s.mean) * 1e3
    cols[4].metric(t("kv.m.ttft_on"), _ms(on), None if gain_ms is None else t("unit.delta_ms", v=round(gain_ms, 1) + 0.0),
                   help=t("kv.m.ttft_help") + "  \n" + definitions("ttft"),
                   delta_color="off" if gain_ms is not None and abs(gain_ms) < 0.05 else "inverse")
    cols[5].metric(t("kv.m.ttft_off"), _ms(off))
