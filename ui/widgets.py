"""The shared sidebar: the only place that maps widgets to a Scenario (language, preset, model, GPU, workload).

Invariant: every widget has a stable key bound to the URL, and every value it can hold yields a valid Scenario or a
clear message (uploads are validated before use).
"""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from chunkviz.cost.catalogue import GPUS, MODELS, gpu_from_json, model_from_hf_config
from chunkviz.errors import InputError
from chunkviz.analysis.scenario import DEFAULT_SCENARIO, Scenario
from ui import url_state
from ui.i18n import LANG_LABELS, LANGS, labeler, t
from ui.plain import md_escape


MAX_UI_REQUESTS = 400
SCENARIO_PRESETS = ("long-among-chats", "seed-article", "azure-conv-like", "azure-code-like",
                    "shared-system-prompt", "multi-turn", "parallel-sampling", "synthetic")


def language_switch() -> str:
    url_state.seed("lang", "en", url_state.choice_parser(LANGS))
    st.sidebar.radio(t("lang.label"), LANGS, key="lang", format_func=LANG_LABELS.get, horizontal=True)
    url_state.publish("lang")
    return st.session_state["lang"]


def sidebar_scenario() -> Scenario:
    """The base scenario (workload, model, GPU) chosen in the sidebar; pages add their scheduler knobs."""
    side = st.sidebar
    preset = url_state.choice(side, t("side.scenario"), SCENARIO_PRESETS, "preset", "long-among-chats", labeler("preset."))
    model_id = url_state.choice(side, t("side.model"), tuple(MODELS), "model", "llama-3-8b")
    gpu_id = url_state.choice(side, t("side.gpu"), tuple(GPUS), "gpu", "h100-sxm")
    with side.expander(t("side.workload")):
        num = url_state.number(st, t("side.num_requests"), 1, MAX_UI_REQUESTS, 64, 8, "n")
        qps = url_state.number(st, t("side.qps"), 0.1, 200.0, 16.0, 1.0, "qps")
        seed = url_state.number(st, t("side.seed"), 0, 1_000_000, 0, 1, "seed")
        st.caption(t("side.limits", n=MAX_UI_REQUESTS))
    model = _uploaded_model() or MODELS[model_id]
    gpu = _uploaded_gpu() or GPUS[gpu_id]
    workload = replace(DEFAULT_SCENARIO.workload, num_requests=int(num), qps=float(qps), seed=int(seed))
    return replace(DEFAULT_SCENARIO, workload_preset=preset, workload=workload, model=model, gpu=gpu)


def _uploaded_model():
    with st.sidebar.expander(t("side.own_model")):
        # Streamlit keeps an upload in the server's memory for the session (default cap 200 MB); the gate refuses
        # specs over 1,000,000 bytes anyway (chunkviz/inputs.py), so 1 MB bounds what a student can park there.
        upload = st.file_uploader("config.json", type=["json"], key="model_upload", max_upload_size=1)
    if upload is None:
        return None
    try:
        model = model_from_hf_config(upload.getvalue(), model_id=upload.name[:40])
    except InputError as exc:
        st.sidebar.error(t("side.bad_file", error=md_escape(exc)))
        return None
    st.sidebar.caption(t("side.custom_loaded", what=t("side.model"), name=md_escape(upload.name)))
    return model


def _uploaded_gpu():
    with st.sidebar.expander(t("side.own_gpu")):
        upload = st.file_uploader("gpu.json", type=["json"], key="gpu_upload", help=t("side.own_gpu_help"),
                                  max_upload_size=1)
    if upload is None:
        return None
    try:
        gpu = gpu_from_json(upload.getvalue(), gpu_id=upload.name[:40])
    except InputError as exc:
        st.sidebar.error(t("side.bad_file", error=md_escape(exc)))
        return None
    st.sidebar.caption(t("side.custom_loaded", what="GPU", name=md_escape(upload.name)))
    return gpu
