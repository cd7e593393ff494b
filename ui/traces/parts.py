"""The real-traces page's parts: cached loading and prefix study, the source picker, the window and sample
selection, and the monolithic-versus-chunked replay. pages/traces_page.py only lays them out.

Invariant: every widget keeps the key (and so the URL parameter) the page has always used (rt_*); a bad upload or
window never stops the page: it says why and falls back to the bundled sample or the whole trace.
"""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from chunkviz.analysis.metrics import summarize
from chunkviz.analysis.trace_summary import LoadOutcome, PrefixCurve, load_or_error, prefix_curve
from chunkviz.errors import InputError
from chunkviz.request import Request
from chunkviz.workloads.checks import LoadOptions
from chunkviz.workloads.loaders import BUNDLED_SAMPLE_PATH, TRACE_FORMATS, TraceLoad
from chunkviz.workloads.select import select
from ui.traces import charts
from ui.i18n import labeler, t
from ui.page_common import base_scenario, metric_cards
from ui.plain import md_escape
from ui.runs import trace_or_error
from ui.url_state import choice, number, stepped_choice
from ui.widgets import MAX_UI_REQUESTS, file_uploader
from ui.plotly_config import chart_config, lecture_fonts

UPLOAD_MB = 10
OPTIONS = LoadOptions(max_bytes=UPLOAD_MB * 1_000_000)
BUDGETS = (64, 128, 256, 512, 1024, 2048, 4096, 8192)
Source = tuple[bytes, str | None, str]  # (file bytes, format or None for auto, file name): what keys the caches


# cache_resource, not cache_data: keyed on the file's bytes and options just the same, but a deeply frozen TraceLoad
# is shared instead of unpickled on every rerun (10 s for the 12,000-request Mooncake trace; style guide §5.7).
@st.cache_resource(max_entries=8, show_spinner=False)
def load_source(raw: bytes, fmt: str | None, name: str, options: LoadOptions) -> LoadOutcome:
    return load_or_error(raw, fmt, name, options)


@st.cache_resource(max_entries=8, show_spinner=False)
def study(raw: bytes, fmt: str | None, name: str, window_s: tuple[float, float] | None) -> PrefixCurve:
    return prefix_curve(select(load_source(raw, fmt, name, OPTIONS).load.requests, window_s))


def pick_source() -> tuple[Source, TraceLoad]:
    """Bundled sample or upload (with format); a bad upload shows its error and the sample is used instead."""
    c = st.columns(2)
    source = choice(c[0], t("rt.source"), ("sample", "upload"), "rt_source", "sample", labeler("rt.src."))
    fmt = choice(c[1], t("rt.format"), ("auto", *TRACE_FORMATS), "rt_format", "auto", labeler("rt.fmt."))
    c[1].caption(t("rt.format_help"))
    picked: Source = (BUNDLED_SAMPLE_PATH.read_bytes(), "azure", BUNDLED_SAMPLE_PATH.name)
    if source == "upload":
        upload = file_uploader(st, t("rt.upload", mb=UPLOAD_MB), ("csv", "jsonl"), "rt_upload", UPLOAD_MB,
                               help=t("rt.upload_help"))
        if upload is None:
            st.info(t("rt.upload_wait"))
        else:
            wanted = None if fmt == "auto" else fmt
            outcome = load_source(upload.getvalue(), wanted, upload.name, OPTIONS)
            if outcome.error is None:
                picked = (upload.getvalue(), wanted, upload.name)
            else:
                st.error(t("rt.bad_upload", name=md_escape(upload.name), error=md_escape(outcome.error)))
                st.info(t("rt.fallback"))
    load = load_source(*picked, OPTIONS).load
    st.caption(t("rt.loaded", name=md_escape(picked[2]), n=len(load.requests), fmt=load.trace_format))
    if load.notes:
        st.info("\n".join(f"- {t('rt.note', note=md_escape(note))}" for note in load.notes))
    return picked, load


def pick_requests(load: TraceLoad) -> tuple[tuple[float, float] | None, tuple[Request, ...], tuple[Request, ...]]:
    """(the time window, or None for all; the requests in it; the sample of them to replay)."""
    c = st.columns(5)
    start_s = number(c[0], t("rt.start"), 0.0, 1e6, 0.0, 10.0, "rt_start")
    end_s = number(c[1], t("rt.end"), 0.0, 1e6, 60.0, 10.0, "rt_end")
    rate = number(c[2], t("rt.rate"), 0.1, 20.0, 1.0, 0.5, "rt_rate", help=t("rt.rate_help"))
    sample = number(c[3], t("rt.sample"), 1, MAX_UI_REQUESTS, 200, 10, "rt_sample")
    seed = number(c[4], t("rt.seed"), 0, 1_000_000, 0, 1, "rt_seed")
    st.caption(t("rt.limit", max=MAX_UI_REQUESTS))
    window_s: tuple[float, float] | None = (float(start_s), float(end_s))
    if start_s >= end_s:
        st.warning(t("rt.bad_window", start=start_s, end=end_s))
        window_s = None
    try:
        in_window = select(load.requests, window_s)
    except InputError as exc:
        st.warning(t("rt.bad_select", error=str(exc)))  # numbers only: the window, rate and sample
        window_s, in_window = None, load.requests
    requests = select(in_window, None, float(rate), int(sample), int(seed))
    if len(requests) < len(in_window):
        st.caption(t("rt.kept_sample", n=len(requests), m=len(in_window), k=rate,
                     share=len(requests) / len(in_window)))
    else:
        st.caption(t("rt.kept_all", n=len(requests), k=rate))
    return window_s, in_window, requests


def replay(requests: tuple[Request, ...], labels: dict[str, str]) -> None:
    """The sample through monolithic and chunked prefill on the sidebar's model and GPU: cards and latency chart."""
    budget = stepped_choice(st, t("rt.budget"), BUDGETS, "rt_budget", 512)
    base = base_scenario()
    # Prefix caching off in both runs (vLLM V1 ships it on, V0 off): the cards compare the schedulers alone; the
    # prefix-cache study below measures the cache. With no cache, prompt contents do not matter (faster keys).
    base = replace(base, cache=replace(base.cache, enable_prefix_caching=False))
    requests = tuple(replace(r, segments=None) for r in requests)
    base = replace(base, explicit_requests=requests, record_detail=False)  # no snapshots: 3x faster
    st.caption(t("rt.replay_note", model=md_escape(base.model.model_id), gpu=md_escape(base.gpu.gpu_id)))
    trace_mono = trace_or_error(base.with_policy("monolithic", None))
    trace_chunked = trace_or_error(base.with_policy("chunked", int(budget)))
    if trace_mono is None or trace_chunked is None:
        return
    m_mono, m_chunked = summarize(trace_mono), summarize(trace_chunked)
    names = {"monolithic": t("rt.eng.monolithic"), "chunked": t("rt.eng.chunked", budget=budget)}
    for engine_id, m, ref in (("monolithic", m_mono, None), ("chunked", m_chunked, m_mono)):
        st.markdown(f"**{names[engine_id]}**")
        metric_cards(m, ref)
    st.caption(t("rt.delta_note"))
    engines = {"monolithic": (names["monolithic"], m_mono), "chunked": (names["chunked"], m_chunked)}
    st.plotly_chart(lecture_fonts(charts.latency_figure(engines, labels)), width="stretch",
                    key="rt_latency_chart", config=chart_config())
    st.caption(t("rt.takeaway"))
