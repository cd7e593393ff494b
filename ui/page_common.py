"""Glue every page shares: the scenario chosen in the sidebar, the chart labels, metric cards with deltas."""

from __future__ import annotations

import math

import streamlit as st

from chunkviz.analysis.metrics import Metrics
from chunkviz.analysis.scenario import DEFAULT_SCENARIO, Scenario
from ui.i18n import t


def base_scenario() -> Scenario:
    """The sidebar's scenario (app.py stores it on every run); the default when a page runs alone in a test."""
    return st.session_state.get("_scenario", DEFAULT_SCENARIO)


def lane_labels() -> dict[str, str]:
    keys = ("steps", "waiting", "prefill", "decode", "stall", "preempted", "time_ms", "budget", "tokens", "requests")
    return {**{k: t(f"lbl.{k}") for k in keys}, "ms": t("axis.ms")}


# Which definitions (ui/text_common.py def.<term>) explain a metric; p50/p99 come with any percentile.
METRIC_TERMS = {"ttft": ("ttft", "pct"), "tbt": ("tbt", "pct"), "goodput": ("goodput",)}


def definitions(*terms: str, sep: str = "  \n") -> str:
    """The shared definitions of `terms` ("ttft", "tbt", "pct", "goodput"), one per line: a caption under a slide
    or a metric's help= (Markdown line breaks; sep="\n" for a browser tooltip). Each is defined once, in
    ui/text_common.py."""
    return sep.join(t(f"def.{term}") for term in dict.fromkeys(terms))


def definitions_caption(*terms: str) -> None:
    st.caption(definitions(*terms))


def finite(value: float | None) -> float | None:
    """`value`, or None when it is missing or not a finite number: a card shows "–", never "nan ms" (issue 16)."""
    return value if value is not None and math.isfinite(value) else None


def _ms(value: float | None) -> str:
    return "–" if finite(value) is None else t("unit.ms", v=value * 1e3)


def metric_cards(m: Metrics, base: Metrics | None = None) -> None:
    """TTFT, TBT and throughput cards; with `base`, deltas against it (lower latency is green)."""
    def delta_ms(a: float | None, b: float | None) -> str | None:
        if base is None or finite(a) is None or finite(b) is None:
            return None
        return t("unit.delta_ms", v=round((a - b) * 1e3, 1) + 0.0)  # + 0.0: a rounded -0.0 reads "+0.0 ms"

    cols = st.columns(4)
    cols[0].metric(t("metric.ttft_p50"), _ms(m.ttft_s.p50), delta_ms(m.ttft_s.p50, base and base.ttft_s.p50),
                   delta_color="inverse", help=definitions(*METRIC_TERMS["ttft"]))
    cols[1].metric(t("metric.tbt_p50"), _ms(m.tbt_s.p50), delta_ms(m.tbt_s.p50, base and base.tbt_s.p50),
                   delta_color="inverse", help=definitions(*METRIC_TERMS["tbt"]))
    cols[2].metric(t("metric.tbt_p99"), _ms(m.tbt_s.p99), delta_ms(m.tbt_s.p99, base and base.tbt_s.p99),
                   delta_color="inverse", help=definitions(*METRIC_TERMS["tbt"]))
    thr, base_thr = finite(m.throughput_output_tokens_per_s), base and finite(base.throughput_output_tokens_per_s)
    thr_delta = None if thr is None or base_thr is None else f"{thr - base_thr:+.0f}"
    cols[3].metric(t("metric.throughput"), "–" if thr is None else f"{thr:.0f}", thr_delta)
