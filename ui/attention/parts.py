"""The attention-math page's parts: the cached demo and real-model costs, and the demo's metric cards.
pages/attention_page.py only lays them out.

Invariant: the cached demo is shared across reruns, never copied, so it is frozen.
"""

from __future__ import annotations

import streamlit as st

from chunkviz.cost.prefill import prefill_cost
from chunkviz.lessons.attention_math import run_attention_demo
from ui.fmt import si
from ui.i18n import t

HEAD_DIMS = (8, 16, 32, 64, 128)
REAL_PROMPT_TOKENS = 8192
REAL_CHUNKS = (8192, 2048, 512, 256, 128)


@st.cache_resource(max_entries=32, show_spinner=False)
def demo_of(n: int, d: int, chunk: int):
    # Shared, not copied per rerun: the demo is a frozen dataclass.
    return run_attention_demo(num_tokens=n, head_dim=d, chunk_tokens=chunk)


@st.cache_data(max_entries=16, show_spinner=False)
def real_costs(model, gpu):
    return tuple(prefill_cost(model, gpu, REAL_PROMPT_TOKENS, c) for c in REAL_CHUNKS)


def demo_cards(demo) -> None:
    """Largest difference from one pass, attention FLOPs, KV bytes read, number of chunks."""
    m = st.columns(4)
    m[0].metric(t("am.diff"), f"{demo.max_abs_diff:.1e}", help=t("am.diff_help"))
    same = demo.total_attention_flops == demo.one_pass_attention_flops
    m[1].metric(t("am.flops"), si(demo.total_attention_flops),
                t("am.flops_equal" if same else "am.flops_differ"), delta_color="off", delta_arrow="off")
    extra = demo.total_kv_read_bytes / demo.one_pass_kv_read_bytes - 1
    m[2].metric(t("am.kv_read"), si(demo.total_kv_read_bytes, "B"), f"{extra:+.0%}", delta_color="inverse")
    m[3].metric(t("am.num_chunks"), len(demo.chunks))
