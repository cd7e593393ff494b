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
from ui.i18n import LANG_LABELS, LANGS, current_lang, labeler, t
from ui.plain import md_escape


MAX_UI_REQUESTS = 400
SCENARIO_PRESETS = ("long-among-chats", "seed-article", "azure-conv-like", "azure-code-like",
                    "shared-system-prompt", "multi-turn", "parallel-sampling", "synthetic")


# The session's language, kept apart from the radio's own state: on a fresh server the first script run draws the
# radio under another page identity than every later run (ui/deep_link.py), so the second run sees a new widget
# that would start on its first option (English) and rewrite ?lang=zh to en. This plain key survives that.
LANG_VALUE = "_value_lang"


def language_switch() -> str:
    """The sidebar's language radio (key `lang`, mirrored in ?lang=): the URL's language is kept on every run."""
    if LANG_VALUE not in st.session_state:  # the URL is read once per session, into the kept value
        url_state.seed("lang", "en", url_state.choice_parser(LANGS))
        st.session_state[LANG_VALUE] = st.session_state["lang"]
    st.session_state["lang"] = st.session_state[LANG_VALUE]  # before the radio: it starts on the kept language
    st.sidebar.radio(t("lang.label"), LANGS, key="lang", format_func=LANG_LABELS.get, horizontal=True,
                     on_change=_keep_lang)
    url_state.publish("lang")
    if st.session_state["lang"] == "zh":
        st.html(f"<style>{_ZH_SKIP_LINK_CSS}</style>")
    return st.session_state["lang"]


def _keep_lang() -> None:
    """A click on the radio (run before the script): the new choice becomes the kept language."""
    st.session_state[LANG_VALUE] = st.session_state["lang"]


# Streamlit prints a few strings of its own that no argument translates: the uploader's button ("Upload") and limit
# line ("200MB per file • JSON"), and the keyboard skip link. On a 中文 page CSS hides each (visibility, so the
# layout keeps its size) and draws the translated text in its place (::after); a screen reader reads ::after too.
# Plotly's mode-bar buttons read in 中文 through ui/plotly_config.py's locale, but the "Fullscreen" button Streamlit
# adds has a fixed English title; its tooltip (Plotly draws it as `content: attr(data-title)` on ::after, selector
# `.js-plotly-plot .plotly [data-title]:after`) is drawn in 中文 here by a more specific rule.
_ZH_SKIP_LINK_CSS = ('[data-testid="stSkipToContent"]{visibility:hidden}'
                     '[data-testid="stSkipToContent"]::after{content:"跳到正文";visibility:visible;position:absolute;'
                     'left:0;top:0;padding:inherit}'
                     '.js-plotly-plot .plotly .modebar-btn[data-title="Fullscreen"]::after{content:"全屏"}'
                     '.js-plotly-plot .plotly .modebar-btn[data-title="Close fullscreen"]::after{content:"退出全屏"}')
DEFAULT_UPLOAD_MB = 10  # the server-wide cap scripts/run-app.sh sets (--server.maxUploadSize); uploaders pass their own


def _zh_uploader_css(key: str, types: tuple[str, ...], max_mb: int) -> str:
    # font-size 0 gives the hidden English no width, so the translation (::after, inline) sets the size itself.
    where = f".st-key-{key} [data-testid=stFileUploaderDropzone]"
    limit = t("side.upload_limit", mb=max_mb, types=" · ".join(x.upper() for x in types))
    hide = "{visibility:hidden;font-size:0}"
    return (f"{where} button p{hide}{where} [data-testid=stFileUploaderDropzoneInstructions] span{hide}"
            f'{where} button p::after{{content:"{t("side.upload_button")}";visibility:visible;font-size:1rem}}'
            f"{where} [data-testid=stFileUploaderDropzoneInstructions] span::after"
            f'{{content:"{limit}";visibility:visible;font-size:0.875rem}}')


def file_uploader(container, label: str, types: tuple[str, ...], key: str, max_mb: int = DEFAULT_UPLOAD_MB, **kw):
    """st.file_uploader whose own strings read in the page's language (see _zh_uploader_css)."""
    if current_lang() == "zh":
        st.html(f"<style>{_zh_uploader_css(key, types, max_mb)}</style>")
    return container.file_uploader(label, type=list(types), key=key, max_upload_size=max_mb, **kw)


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
        upload = file_uploader(st, "config.json", ("json",), "model_upload", max_mb=1)
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
        upload = file_uploader(st, "gpu.json", ("json",), "gpu_upload", max_mb=1, help=t("side.own_gpu_help"))
    if upload is None:
        return None
    try:
        gpu = gpu_from_json(upload.getvalue(), gpu_id=upload.name[:40])
    except InputError as exc:
        st.sidebar.error(t("side.bad_file", error=md_escape(exc)))
        return None
    st.sidebar.caption(t("side.custom_loaded", what="GPU", name=md_escape(upload.name)))
    return gpu
