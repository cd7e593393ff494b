"""Attention math: chunked prefill over a KV cache equals one causal pass; same FLOPs, more bytes read."""

import streamlit as st

from ui.attention import charts
from ui.attention.parts import HEAD_DIMS, REAL_PROMPT_TOKENS, demo_cards, demo_of, real_costs
from ui.attention.stage import render as render_stage
from ui.attention.export import caption, html_for
from ui.i18n import current_lang, t
from ui.components.offline.download import download_view
from ui.page_common import base_scenario
from ui.plain import md_escape
from ui.url_state import number, stepped_choice

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
    demo = demo_of(n, d, chunk)
except ValueError as exc:
    st.error(t("am.error", error=md_escape(exc)))
    st.stop()

demo_cards(demo)
mounted = render_stage(demo)  # steps chunk by chunk in the browser; the cursor is ?am_step
download_view(lambda: html_for(mounted, current_lang(), caption(demo, current_lang())),
              f"chunkviz-attention-{n}-tokens-{chunk}-chunk", "am_dl_view")

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
st.caption(t("am.real_note"))
