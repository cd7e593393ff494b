"""AppTest: the timeline page compares two engines and steps through them."""

from __future__ import annotations

from tests.ui.apptest_helpers import open_app, texts


def test_default_view_shows_the_stall_contrast():
    at = open_app()
    values = [m.value for m in at.metric]
    assert len(values) == 8  # four cards per engine
    p99_mono, p99_chunked = (float(values[i].split()[0]) for i in (2, 6))
    assert p99_mono > 4 * p99_chunked  # the point of the lesson, visible on first load
    assert "stall" in texts(at).lower()


def test_stepping_moves_the_cursor_and_the_explanation():
    at = open_app()
    before = [e.value for e in at.markdown]
    at.button(key="step_next").click().run()
    at.button(key="step_next").click().run()
    assert at.session_state["step"] == 2
    at.button(key="step_prev").click().run()
    assert at.session_state["step"] == 1
    at.slider(key="step").set_value(100).run()
    assert [e.value for e in at.markdown] != before
    assert at.query_params["step"] == ["100"] or at.query_params["step"] == "100"


def test_jump_to_next_stall_lands_on_a_stalled_step():
    at = open_app()
    jump = [b for b in at.button if b.key and b.key.startswith("step_jump_")][0]
    jump.click().run()
    assert at.session_state["step"] > 0
    assert any("Stall" in e.value for e in at.markdown)


def test_language_switch_and_shared_link():
    at = open_app(lang="zh", pa="sglang", step="5")
    assert at.title[0].value == "整体预填充 vs 分块预填充"
    assert at.selectbox(key="pa_zh").value == "sglang"  # Chinese selectboxes carry a _zh key (url_state.widget_key)
    assert at.session_state["step"] == 5


def test_bad_url_values_are_reported_not_applied():
    at = open_app(n="-5", budget="abc", pa="nope")
    warnings = " ".join(w.value for w in at.warning)
    assert "n=" in warnings and "budget=" in warnings and "pa=" in warnings
    assert at.selectbox(key="pa").value == "monolithic"


def test_policy_change_reruns_the_simulation():
    at = open_app()
    first = [m.value for m in at.metric][:4]
    at.selectbox(key="pa").set_value("static").run()
    assert [m.value for m in at.metric][:4] != first
    assert not at.exception
