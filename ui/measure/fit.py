"""Measure page section: the cost model's dense time against the public A100 measurements it was fitted to.

Invariant: everything shown is computed from the shipped file (chunkviz/data/a100-dense-ops.csv) and the shipped
constants (chunkviz/cost/fitted.py), once per process; the page only picks a model and a TP and draws.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import plotly.graph_objects as go
import streamlit as st
from plotly.subplots import make_subplots

from chunkviz.cost.fit import ErrorSummary, PointArrays, dense_errors, point_arrays, summarize_errors, v1_dense_errors
from chunkviz.cost.fitted import A100_DENSE, HELD_OUT
from chunkviz.cost.public_points import HF_NAMES, PROFILED_MODELS, load_public_points
from ui.i18n import t
from ui.url_state import choice
from ui.plotly_config import chart_config, lecture_fonts

MODEL_IDS = tuple(m.model_id for m in PROFILED_MODELS)
TP_OPTIONS = ("1", "2", "4", "8")
MIN_TOKENS = 16  # the scored range: below it a step is a handful of decodes and launch-bound
COLORS = {"measured": "#4E79A7", "v2": "#F28E2B", "v1": "#9C9C9C"}


@lru_cache(maxsize=1)
def _fit_data() -> tuple[PointArrays, np.ndarray, np.ndarray]:
    """The points with the v2 (shipped) and v1 (previous) relative errors of each."""
    arrays = point_arrays(load_public_points())
    return arrays, dense_errors(A100_DENSE, arrays), v1_dense_errors(arrays)


def _summaries_by_tp() -> list[tuple[int, ErrorSummary, ErrorSummary]]:
    arrays, v2, v1 = _fit_data()
    scored = arrays.gated & (arrays.tokens >= MIN_TOKENS)
    return [(tp, summarize_errors(v1[m]), summarize_errors(v2[m]))
            for tp in (1, 2, 4, 8) for m in [scored & (arrays.tensor_parallel == tp)]]


def error_table_markdown() -> str:
    """Median / p90 / worst |error| and signed median per TP, v1 → v2, as a markdown table."""
    cells = [t(f"mf.col.{key}").replace("|", "\\|") for key in ("tp", "median", "p90", "worst", "signed")]
    head = "| " + " | ".join(cells) + " |\n|---|---|---|---|---|\n"  # a bare | in "|error|" would split a cell
    pct = lambda a, b: f"{a:.1%} → **{b:.1%}**"  # noqa: E731
    rows = [f"| {tp} | {pct(b.median_abs, a.median_abs)} | {pct(b.p90_abs, a.p90_abs)} | "
            f"{pct(b.worst_abs, a.worst_abs)} | {b.median_signed:+.1%} → **{a.median_signed:+.1%}** |"
            for tp, b, a in _summaries_by_tp()]
    return head + "\n".join(rows)


def held_out_caption() -> str:
    """The leave-one-model-out and leave-one-TP-out figures the fit script stored."""
    model, tp = HELD_OUT["model_id=pooled"], HELD_OUT["tensor_parallel=pooled"]
    worst_model = max((k for k in HELD_OUT if k.startswith("model_id=") and not k.endswith("pooled")),
                      key=lambda k: HELD_OUT[k][2])
    return t("mf.held_out", m_med=model[1], m_p90=model[2], t_med=tp[1], t_p90=tp[2],
             worst=worst_model.removeprefix("model_id="), w_p90=HELD_OUT[worst_model][2])


def fit_figure(model_id: str, tp: int) -> go.Figure:
    """Left: dense ms per layer against tokens (measured, v2, v1). Right: the two models' errors in %."""
    arrays, v2, v1 = _fit_data()
    m = (arrays.model_id == model_id) & (arrays.tensor_parallel == tp)
    order = np.argsort(arrays.tokens[m])
    tokens, measured_ms = arrays.tokens[m][order], arrays.dense_s[m][order] * 1e3
    err_v2, err_v1 = v2[m][order], v1[m][order]
    fig = make_subplots(rows=1, cols=2, subplot_titles=(t("mf.panel.time"), t("mf.panel.error")),
                        horizontal_spacing=0.1)
    fig.add_trace(go.Scatter(x=tokens, y=measured_ms, mode="markers", name=t("mf.measured"),
                             marker={"color": COLORS["measured"], "size": 5}), row=1, col=1)
    for key, err in (("v2", err_v2), ("v1", err_v1)):
        dash = "solid" if key == "v2" else "dash"
        fig.add_trace(go.Scatter(x=tokens, y=measured_ms * (1 + err), mode="lines", name=t(f"mf.{key}"),
                                 line={"color": COLORS[key], "dash": dash}, legendgroup=key), row=1, col=1)
        fig.add_trace(go.Scatter(x=tokens, y=err * 100, mode="lines", showlegend=False, legendgroup=key,
                                 line={"color": COLORS[key], "dash": dash}, name=t(f"mf.{key}")), row=1, col=2)
    fig.add_hrect(y0=-5, y1=5, fillcolor="#59A14F", opacity=0.12, line_width=0, row=1, col=2)
    fig.update_xaxes(type="log", title_text=t("mf.tokens"))
    fig.update_yaxes(type="log", title_text=t("mf.ms_per_layer"), row=1, col=1)
    fig.update_yaxes(title_text=t("mf.error_pct"), row=1, col=2)
    fig.update_layout(height=420, margin={"l": 10, "r": 10, "t": 40, "b": 10},
                      legend={"orientation": "h", "y": -0.2, "yanchor": "top"})
    return fig


def show_public_fit() -> None:
    """The whole section: lesson, model and TP pickers, chart, error table and held-out figures."""
    st.subheader(t("mf.title"))
    st.markdown(t("mf.lesson"))
    cols = st.columns(2)
    model_id = choice(cols[0], t("mf.model"), MODEL_IDS, "mf_model", "llama-3-8b", HF_NAMES.get)
    tp = int(choice(cols[1], t("mf.tp"), TP_OPTIONS, "mf_tp", "1"))
    arrays = _fit_data()[0]
    if not ((arrays.model_id == model_id) & (arrays.tensor_parallel == tp)).any():
        st.caption(t("mf.tp1_only", model=HF_NAMES[model_id]))
        tp = 1
    st.plotly_chart(lecture_fonts(fit_figure(model_id, tp)), width="stretch", key="mf_chart", config=chart_config())
    st.markdown(error_table_markdown())
    st.caption(t("mf.table_note", min_tokens=MIN_TOKENS))
    st.caption(held_out_caption())
