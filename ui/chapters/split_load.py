"""Chapter 7's load axis: at each document length and offered load, which deployment of two GPUs meets the SLO
(colocated chunked, 1P+1D over the slide's link), and, at one length, TTFT p90 and TBT p99 against the load.

Invariant: every cell and point is one run of chunkviz.lessons.split.load_sweep (cached); a winner is read from
those runs (split.load_winner), never typed in.
"""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st
from plotly.subplots import make_subplots

from chunkviz.lessons import split
from ui.chapters.common import chapter_chart
from ui.chapters.split import link_label
from ui.i18n import t
from ui.palette import CURSOR, REFERENCE, TRANSFER
from ui.runs import CACHE_TTL_S


@st.cache_resource(max_entries=1, ttl=CACHE_TTL_S, show_spinner=False)
def _cells() -> tuple[split.LoadCell, ...]:
    return split.load_sweep()


def _deployment_name(dep: str, link_name: str) -> str:
    return t("chx.split.sweep.colocated") if dep == "colocated" else t("chx.split.sweep.disagg", link=link_name)


def winners_table(cells: tuple[split.LoadCell, ...]) -> dict[str, list]:
    """Rows: document length; columns: load; each cell: who meets the SLO there."""
    names = {w: t(f"chx.split.load.{w}") for w in split.WINNERS}  # short: nine loads fit 1280 px
    table: dict[str, list] = {t("chx.split.sweep.doc"): list(split.SWEEP_DOC_TOKENS)}
    for qps in split.LOADS_QPS:
        table[t("chx.split.load.col", qps=qps)] = [names[split.load_winner(cells, doc, qps)]
                                                   for doc in split.SWEEP_DOC_TOKENS]
    return table


def load_figure(cells: tuple[split.LoadCell, ...], link_name: str) -> go.Figure:
    """TTFT p90 and TBT p99 (ms) against the load at LOAD_CHART_DOC_TOKENS, one line per deployment, the SLO dashed;
    the two lines differ by dash and marker as well as colour."""
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.1,
                        subplot_titles=[t("chx.split.load.ttft"), t("chx.split.load.tbt")])
    # Colocated the reference brown, 1P+1D the transfer indigo (ui/palette.py); dash and marker tell them apart too.
    styles = {"colocated": ("solid", "circle", REFERENCE), split.LOAD_DEPLOYMENTS[1]: ("dash", "square", TRANSFER)}
    for dep, (dash, symbol, colour) in styles.items():
        mine = [c for c in cells if c.doc_tokens == split.LOAD_CHART_DOC_TOKENS and c.deployment == dep]
        for col, attr in ((1, "ttft_p90_s"), (2, "tbt_p99_s")):
            fig.add_trace(go.Scatter(x=[c.qps for c in mine], y=[(getattr(c, attr) or 0.0) * 1e3 for c in mine],
                                     mode="lines+markers", name=_deployment_name(dep, link_name),
                                     legendgroup=dep, showlegend=col == 1,
                                     line={"dash": dash, "color": colour},
                                     marker={"symbol": symbol, "size": 8, "color": colour}), row=1, col=col)
    for col, limit in ((1, split.SWEEP_SLO.ttft_p90_s), (2, split.SWEEP_SLO.tbt_p99_s)):
        fig.add_hline(y=limit * 1e3, line={"color": CURSOR, "dash": "dot"}, annotation_text=t("chx.split.load.slo"),
                      annotation_position="top left", row=1, col=col)
        fig.update_xaxes(title_text=t("chx.split.load.axis"), row=1, col=col)
        fig.update_yaxes(title_text=t("chx.split.load.ms"), rangemode="tozero", row=1, col=col)
    fig.update_layout(height=300, margin={"l": 10, "r": 10, "t": 40, "b": 30}, legend={"orientation": "h", "y": -0.3})
    return fig


def load_lesson() -> None:
    """The winners over length × load, then the curves at one length."""
    cells, link_name = _cells(), link_label(split.SLIDE_LINK)
    st.subheader(t("chx.split.load.title"))
    st.markdown(t("chx.split.load.body", link=link_name, ttft_ms=split.SWEEP_SLO.ttft_p90_s * 1e3,
                  tbt_ms=split.SWEEP_SLO.tbt_p99_s * 1e3, doc=split.LOAD_CHART_DOC_TOKENS))
    st.dataframe(winners_table(cells), hide_index=True, key="c7_load_table")
    chapter_chart("c7_load", load_figure(cells, link_name))
    st.caption(t("chx.split.load.limits", doc=split.LOAD_CHART_DOC_TOKENS,
                 **{k: _highest_met(cells, dep) for k, dep in zip(("colocated", "disagg"), split.LOAD_DEPLOYMENTS)}))


def _highest_met(cells: tuple[split.LoadCell, ...], dep: str) -> str:
    """The highest load run at which `dep` meets the SLO at the chart's length ("–": none)."""
    met = [c.qps for c in cells if c.doc_tokens == split.LOAD_CHART_DOC_TOKENS and c.deployment == dep and c.meets_slo]
    return t("chx.split.load.col", qps=max(met)) if met else "–"
