"""AppTest: the timeline page sends both engines to one browser component once; links, settings and the TTFT
lesson work without a browser (tests/e2e/test_timeline_browser.py drives the component itself)."""

from __future__ import annotations

import json

from tests.ui.apptest_helpers import open_app, texts


def _data(at) -> dict:
    (element,) = at.get("bidi_component")
    return json.loads(element.proto.json)


def test_default_view_sends_both_engines_with_the_stall_contrast():
    at = open_app()
    data = _data(at)
    mono, chunked = data["engines"]
    assert mono["tag"] == "A" and chunked["tag"] == "B"
    p99_mono, p99_chunked = (float(e["cards"][3]["value"].split()[0].replace(",", "")) for e in (mono, chunked))
    assert p99_mono > 4 * p99_chunked  # the point of the lesson, on first load
    assert "stall" in "".join(m["label"] for m in data["bookmarks"]).lower()
    assert len(mono["why"]) == len(mono["steps"]["s"]) and any("prefill-first" in w for w in mono["why"])
    assert data["t0_ms"] > 0  # opens on the first teaching moment, not on an empty chart


def test_ttft_cost_is_taught_with_p99_and_a_try_it_that_sets_the_threshold():
    at = open_app()
    lesson = texts(at)
    from chunkviz.analysis.metrics import summarize
    from chunkviz.analysis.scenario import DEFAULT_SCENARIO, run_scenario

    ttft = {p: summarize(run_scenario(DEFAULT_SCENARIO.with_policy(p, b))).ttft_s.p50
            for p, b in (("monolithic", None), ("chunked", 512))}
    assert "TTFT" in lesson and "p99" in lesson and f"{ttft['chunked'] / ttft['monolithic']:.1f}×" in lesson
    at.button(key="try_threshold").click().run()
    assert at.number_input(key="thr").value == 256
    assert at.query_params["thr"] in (["256"], "256")


def test_the_page_says_which_engine_ships_prefix_caching_and_what_it_did():
    """vLLM V1 ships it on, V0 off; the default workload's prompts share nothing (no hit), a shared system prompt
    gives the V1 engine hits (its measured share)."""
    at = open_app()
    assert "Prefix caching as each engine ships it: on in" in texts(at) and "changes nothing here" in texts(at)
    at.selectbox(key="pb").set_value("monolithic").run()  # both off: nothing to say
    assert "Prefix caching as each engine ships it" not in texts(at)
    shared = open_app(preset="shared-system-prompt", n="16")
    assert "of prompt tokens from the cache" in texts(shared) and not shared.exception


def test_reruns_without_a_scenario_change_send_identical_data():
    at = open_app()
    first = _data(at)["version"]
    at.run()
    assert _data(at)["version"] == first
    at.selectbox(key="pa").set_value("static").run()
    assert _data(at)["version"] != first and not at.exception


def test_old_step_links_and_new_time_links_set_the_start_cursor():
    assert abs(_data(open_app(t_ms="1234.5"))["t0_ms"] - 1234.5) < 1e-9
    old = _data(open_app(step="5"))
    assert 0 < old["t0_ms"] < 200  # the fifth step start of the merged grid, early in the run
    bad = open_app(t_ms="soon")
    assert "t_ms=" in " ".join(w.value for w in bad.warning)


def test_language_switch_and_shared_link():
    at = open_app(lang="zh", pa="sglang")
    assert at.title[0].value == "预填充优先与分块预填充对比"
    assert at.selectbox(key="pa_zh").value == "sglang"  # Chinese selectboxes carry a _zh key (url_state.widget_key)
    data = _data(at)
    assert data["text"]["play"] == "▶ 播放" and "毫秒" in data["engines"][0]["cards"][0]["value"]


def test_lecture_mode_folds_settings_and_enlarges_type():
    at = open_app(present="1")
    data = _data(at)
    assert data["present"] and data["tick_px"] >= 14
    assert at.toggle(key="present").value
    assert len(at.expander) >= 1


def test_bad_url_values_are_reported_not_applied():
    at = open_app(n="-5", budget="abc", pa="nope")
    warnings = " ".join(w.value for w in at.warning)
    assert "n=" in warnings and "budget=" in warnings and "pa=" in warnings
    assert at.selectbox(key="pa").value == "monolithic"
