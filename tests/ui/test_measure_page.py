"""AppTest: the Measure page runs the quick plan on CPU (or loads a profile), compares it with the roofline and
re-runs monolithic vs chunked on the measured costs; without torch it says how to enable the mode."""

from __future__ import annotations

import json
import sys

import pytest

from chunkviz.cost.profile import profile_to_json
from chunkviz.measure import MeasurePlan, measure
from tests.ui.apptest_helpers import open_app, texts

PAGE = "pages/measure_page.py"


@pytest.fixture(scope="module")
def profile_json() -> bytes:
    plan = MeasurePlan((16, 64, 256), (0, 512), (1, 8, 32), (256, 1024), num_warmup=0, num_repeats=2)
    profile = measure("llama-3-8b", device="cpu", num_layers=1, hidden_size=64, plan=plan, num_threads=1).profile
    assert profile is not None
    return profile_to_json(profile).encode()


def _upload(at, data: bytes, name: str = "profile.json"):
    at.file_uploader(key="me_upload").set_value((name, data, "application/json")).run()
    assert not at.exception, at.exception
    return at


def test_first_view_offers_the_run_and_no_results_yet():
    at = open_app(PAGE)
    assert at.title[0].value == "Measure real step times"
    assert at.button(key="me_run") and at.selectbox(key="me_plan").value == "quick"
    assert "No measurement yet" in texts(at)
    assert len(at.metric) == 0


def test_running_the_quick_plan_shows_measured_vs_roofline_and_the_simulation():
    at = open_app(PAGE)
    at.number_input(key="me_layers").set_value(1).run()
    at.button(key="me_run").click().run()
    assert not at.exception, at.exception
    table = at.dataframe[0].value
    assert len(table) == 12 and list(table["step"]).count("Prefill chunk") == 6
    ratios = table["measured ÷ roofline"]
    assert (ratios > 0).all()
    shown = texts(at)
    assert "1 layers, hidden 512" in shown and "× 32 (32 layers of llama-3-8b ÷ 1 measured)" in shown
    assert len(at.metric) == 8 and "Steps inside the measured range" in shown
    assert len(at.get("plotly_chart")) == 2  # measured vs roofline, then the public A100 fit (ui/measure/fit.py)
    at.select_slider(key="me_budget").set_value(2048).run()  # the profile stays in the session
    assert len(at.metric) == 8 and at.dataframe[0].value.shape == (12, 8)


def test_cancel_before_the_first_point_keeps_nothing():
    at = open_app(PAGE)
    at.session_state["_me_cancel_requested"] = True  # what the Cancel button's callback sets
    at.button(key="me_run").click().run()
    assert "cancelled after 0 of 12 points" in " ".join(w.value for w in at.warning)
    assert "No measurement yet" in texts(at) and len(at.metric) == 0


def test_uploaded_profile_is_compared_and_simulated(profile_json):
    at = _upload(open_app(PAGE, me_source="upload"), profile_json)
    assert len(at.dataframe[0].value) == 12
    assert "1 layers, hidden 64" in texts(at)
    assert len(at.metric) == 8


def test_bad_upload_names_the_key(profile_json):
    obj = json.loads(profile_json)
    obj["decode"][2]["median_s"] = "slow"
    at = _upload(open_app(PAGE, me_source="upload"), json.dumps(obj).encode(), "broken.json")
    errors = " ".join(e.value for e in at.error)
    assert "broken.json" in errors and "'decode[2].median_s'" in errors
    assert len(at.metric) == 0


def test_without_torch_the_page_explains_how_to_enable_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)
    at = open_app(PAGE)
    info = " ".join(i.value for i in at.info)
    assert "pip install -r requirements-measure.txt" in info
    assert not at.button  # nothing to run; the profile upload stays available
    assert at.selectbox(key="me_source").options == ["a measurement on this machine", "a profile file"]


def test_chinese_and_bad_link_values(profile_json):
    at = open_app(PAGE, lang="zh", me_plan="huge", me_layers="-3", me_device="tpu")
    assert at.title[0].value == "实测真实的步骤耗时"
    assert at.selectbox(key="me_plan_zh").value == "quick"  # Chinese selectboxes carry a _zh key
    warnings = " ".join(w.value for w in at.warning)
    assert "me_plan=" in warnings and "me_layers=" in warnings and "me_device=" in warnings
    at = _upload(open_app(PAGE, lang="zh", me_source="upload"), profile_json)
    assert "实测 ÷ Roofline" in at.dataframe[0].value.columns and len(at.metric) == 8
