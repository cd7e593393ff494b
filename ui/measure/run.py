"""Streamlit glue of the Measure page: run a plan with a progress bar and a cancel button, read an upload.

Invariant: a finished measurement is kept in session state under PROFILE_KEY (a cancelled or failed one keeps
nothing); torch is imported only when a run starts. Cancelling works two ways: in a browser the click interrupts
the running script at its next progress update, and the click's callback sets CANCEL_KEY, which the measurement
also polls between points (so a pending request stops it before the next point).
"""

from __future__ import annotations

import os

import streamlit as st

from chunkviz.config import CostProfile, ModelSpec
from chunkviz.cost.profile import profile_from_json
from chunkviz.errors import InputError
from chunkviz.measure import measure
from ui.i18n import t
from ui.plain import md_escape

PROFILE_KEY = "_me_profile"
CANCEL_KEY = "_me_cancel_requested"


def _request_cancel() -> None:
    st.session_state[CANCEL_KEY] = True


def run_measurement(model: ModelSpec, device: str, plan: str, num_layers: int | None) -> None:
    """Measure with live progress; on success the profile replaces the session's previous one."""
    status = st.empty()
    status.info(t("me.preparing"))
    bar = st.progress(0.0)
    cancel_slot = st.empty()
    cancel_slot.button(t("me.cancel"), key="me_cancel", on_click=_request_cancel)

    def progress(done: int, total: int) -> None:
        bar.progress(done / total, text=t("me.progress", done=done, total=total))

    try:
        # One core is left to the app server and the browser: OpenMP threads that compete for a busy core spin
        # and wait, which made CPU timings several times slower and noisy in our runs.
        outcome = measure(model, device=device, plan=plan, num_layers=num_layers,
                          num_threads=max(1, (os.cpu_count() or 1) - 1), progress=progress,
                          is_cancelled=lambda: bool(st.session_state.get(CANCEL_KEY)))
    except ValueError as exc:  # InputError (no torch, no CUDA, bad layers) or a failed correctness check
        status.error(t("me.failed", error=md_escape(exc)))
        return
    finally:
        cancel_slot.empty()
        st.session_state.pop(CANCEL_KEY, None)
    if outcome.is_cancelled:
        status.warning(t("me.cancelled", done=outcome.num_done, total=outcome.num_total))
        return
    status.empty()
    st.session_state[PROFILE_KEY] = outcome.profile


def take_cancel_notice() -> bool:
    """True once after a cancel click that interrupted a run (the click's own rerun)."""
    return bool(st.session_state.pop(CANCEL_KEY, False))


@st.cache_resource(max_entries=8, show_spinner=False)
def _parse(raw: bytes) -> CostProfile | str:
    try:
        return profile_from_json(raw)
    except InputError as exc:
        return str(exc)


def uploaded_profile() -> CostProfile | None:
    """The uploaded profile, validated; shows why a file cannot be used."""
    upload = st.file_uploader(t("me.upload"), type=["json"], key="me_upload")
    if upload is None:
        st.info(t("me.upload_wait"))
        return None
    parsed = _parse(upload.getvalue())
    if isinstance(parsed, str):
        st.error(t("me.bad_upload", name=md_escape(upload.name), error=md_escape(parsed)))
        return None
    return parsed
