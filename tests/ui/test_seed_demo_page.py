"""AppTest: the article's demo page reproduces the toy's six figures, re-measures them, and explains the flaws."""

from __future__ import annotations

from chunkviz.lessons.seed_demo import FLAWS
from tests.ui.apptest_helpers import open_app, texts
from ui.i18n import all_keys, tr

PAGE = "pages/seed_demo_page.py"


def _rows(table) -> list[list[str]]:
    return table.value.astype(str).values.tolist()


def test_default_reproduces_the_six_printed_figures():
    at = open_app(PAGE)
    printed, corrected = at.table[0], at.table[1]
    assert _rows(printed) == [["whole-prompt prefill", "1381", "582.3", "1115.0"],
                              ["chunked prefill (8)", "2447", "1160.7", "2226.0"]]
    # Same runs from arrival, nearest-rank P95 (rank 29 of 30 instead of the toy's 28th value).
    assert _rows(corrected) == [["whole-prompt prefill", "552.1", "1118.0"],
                                ["chunked prefill (8)", "1130.4", "2293.0"]]
    # The realistic engine: chunking cuts the tail token gap, which the toy never measures.
    mono_p99, chunked_p99 = (float(m.value.split()[0]) for m in at.metric if m.label == "TBT p99")
    assert chunked_p99 < mono_p99 / 2
    shown = texts(at)
    assert all(FLAWS[code] in shown for code in FLAWS)
    assert "16 prompt tokens per step" in shown  # 8 work units / 0.5 units per token


def test_changing_inputs_changes_the_runs():
    at = open_app(PAGE)
    before = _rows(at.table[0])
    at.number_input(key="sd_chunk").set_value(4).run()
    rows = _rows(at.table[0])
    assert rows[0] == before[0] and rows[1] != before[1] and rows[1][0] == "chunked prefill (4)"
    at.number_input(key="sd_n").set_value(12).run()
    assert "12 requests drawn from the article's distribution" in texts(at)
    assert at.query_params["sd_n"] in (["12"], "12")


def test_bad_url_values_are_messages():
    at = open_app(PAGE, sd_chunk="17", sd_n="0", sd_seed="x")
    warnings = " ".join(w.value for w in at.warning)
    assert "sd_chunk=" in warnings and "sd_n=" in warnings and "sd_seed=" in warnings
    assert _rows(at.table[0])[0][1] == "1381"  # the defaults still run


def test_chinese_render_and_every_flaw_translated():
    keys = set(all_keys())
    for code in FLAWS:
        assert {f"sd.flaw.{code}", f"sd.flaw_title.{code}"} <= keys
        assert tr(f"sd.flaw.{code}", "zh") != FLAWS[code]
    at = open_app(PAGE, lang="zh")
    assert at.title[0].value == "重跑原文的演示"
    shown = texts(at)
    assert all(tr(f"sd.flaw.{code}", "zh") in shown for code in FLAWS)
    assert _rows(at.table[0])[1][1:] == ["2447", "1160.7", "2226.0"]
