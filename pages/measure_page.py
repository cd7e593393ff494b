"""Measure: real prefill-chunk and decode-step times on this machine, against the roofline, then simulated; and the
cost model against the public A100 measurements it is fitted to (ui/measure/fit.py)."""

import streamlit as st

from chunkviz.config import CostProfile
from chunkviz.cost.profile import profile_to_json
from chunkviz.measure import DEVICES, ENABLE_HINT, PLAN_NAMES, torch_available
from chunkviz.cost.profiled import compare_to_roofline
from ui.measure import charts
from ui.i18n import labeler, t
from ui.measure.fit import show_public_fit
from ui.measure.run import PROFILE_KEY, run_measurement, take_cancel_notice, uploaded_profile
from ui.measure.sim import show_simulation
from ui.page_common import base_scenario
from ui.plain import md_escape
from ui.url_state import choice, number
from ui.plotly_config import chart_config, lecture_fonts

st.title(t("me.title"))
st.markdown(t("me.lesson"))
base = base_scenario()
source = choice(st, t("me.source"), ("run", "upload"), "me_source", "run", labeler("me.src."))
profile = None
if source == "upload":
    profile = uploaded_profile()
elif not torch_available():
    st.info(t("me.no_torch", hint=ENABLE_HINT))
else:
    c = st.columns(3)
    device = choice(c[0], t("me.device"), DEVICES, "me_device", "auto", labeler("me.dev."))
    plan = choice(c[1], t("me.plan"), PLAN_NAMES, "me_plan", "quick", labeler("me.plan."))
    layers = number(c[2], t("me.layers"), 0, base.model.num_layers, 0, 1, "me_layers", help=t("me.layers_help"))
    st.caption(t("me.shapes_note"))
    if st.button(t("me.run"), key="me_run", type="primary"):
        run_measurement(base.model, device, plan, int(layers) or None)
    elif take_cancel_notice():
        st.warning(t("me.cancelled_short"))
    profile = st.session_state.get(PROFILE_KEY)


def show_measurements(profile: CostProfile) -> None:
    st.subheader(t("me.measured"))
    m, versions, hw = profile.model, dict(profile.versions), profile.hardware
    st.caption(t("me.about", device=md_escape(profile.device_name), dtype=md_escape(profile.dtype),
                 model=md_escape(m.model_id), layers=m.num_layers,
                 hidden=m.hidden_size, heads=m.num_heads, kv=m.num_kv_heads, inter=m.intermediate_size,
                 vocab=m.vocab_size, torch=versions.get("torch", "?"), diff=profile.check_max_abs_diff,
                 tol=profile.check_tolerance, repeats=profile.num_repeats, warmup=profile.num_warmup,
                 method=profile.timing_method))
    st.caption(t("me.hw", source=md_escape(hw.source), tflops=hw.peak_flops_per_s / 1e12,
                 gbs=hw.hbm_bytes_per_s / 1e9))
    rows = compare_to_roofline(profile)
    labels = {key: t(f"me.lbl.{key}") for key in charts.LABEL_KEYS}
    st.plotly_chart(lecture_fonts(charts.comparison_figure(rows, labels)), width="stretch",
                    key="me_chart", config=chart_config())
    st.dataframe(charts.comparison_frame(rows, labels), hide_index=True, key="me_table",
                 height=35 * (len(rows) + 1) + 3)  # every point visible, no inner scrolling
    st.caption(t("me.ratio_note"))
    st.download_button(t("me.download"), data=profile_to_json(profile), file_name="chunkviz-profile.json",
                       mime="application/json", key="me_download", on_click="ignore")


# No st.stop() below: app.py reports ignored link values after the page has run.
if profile is not None:
    show_measurements(profile)
    show_simulation(base, profile)
elif source == "run":
    st.info(t("me.no_profile"))
show_public_fit()
