"""AppTest: the Measure page shows the cost model against the public A100 points, per model and TP, in both
languages, with the before → after error table and the leave-one-out figures."""

from __future__ import annotations

from chunkviz.cost.fitted import HELD_OUT
from tests.ui.apptest_helpers import open_app, texts

PAGE = "pages/measure_page.py"


def test_public_fit_section_draws_chart_and_error_table():
    at = open_app(PAGE)
    shown = texts(at)
    assert "How good is the cost model? Public A100 measurements" in shown
    assert at.selectbox(key="mf_model").value == "llama-3-8b" and at.selectbox(key="mf_tp").value == "1"
    assert len(at.get("plotly_chart")) == 1  # no own measurement yet: only the public fit is drawn
    table = next(m.value for m in at.markdown if "median \\|error\\|" in m.value)
    assert table.count("\n| ") == 4  # TP 1, 2, 4, 8
    assert "→ **" in table
    pooled = HELD_OUT["model_id=pooled"]
    assert f"{pooled[1]:.1%} median" in shown


def test_picking_a_model_and_tp_from_the_link():
    at = open_app(PAGE, mf_model="llama-2-70b", mf_tp="8")
    assert at.selectbox(key="mf_model").value == "llama-2-70b" and at.selectbox(key="mf_tp").value == "8"
    assert not at.exception
    at = open_app(PAGE, mf_model="phi-2", mf_tp="4")
    assert "measured at TP 1 only" in texts(at)
    assert not at.exception


def test_chinese_texts():
    at = open_app(PAGE, lang="zh")
    shown = texts(at)
    assert "成本模型有多准" in shown and "误差绝对值中位数" in shown
