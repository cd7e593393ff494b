"""AppTest: the real-traces page loads the bundled Azure sample or an upload, selects, summarises and replays it."""

from __future__ import annotations

import json

from chunkviz.analysis.trace_summary import load_or_error, prefix_curve
from tests.ui.apptest_helpers import open_app, texts

PAGE = "pages/traces_page.py"
BAD_AZURE = b"TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.68,374,44\n2023-11-16 18:15:47.00,abc,5\n"


def _mooncake() -> bytes:
    lines = [{"timestamp": 1000 * i, "input_length": 1024, "output_length": 8, "hash_ids": [1, 2 + i % 2]}
             for i in range(6)]
    return "\n".join(json.dumps(line) for line in lines).encode()


def _ms(value: str) -> float:
    return float(value.split()[0])


def _table(at) -> dict[str, list[str]]:
    frame = at.table[0].value
    return {row: list(frame.loc[row]) for row in frame.index}


def _charts(at) -> int:
    return len(at.get("plotly_chart"))


def test_default_render_shows_summary_attribution_and_both_engines():
    at = open_app(PAGE)
    shown = texts(at)
    assert "CC BY 4.0" in shown and "Splitwise" in shown and "Íñigo Goiri" in shown
    assert "332 requests" in shown and "All 191 requests" in shown  # 0-60 s of the 90 s sample, none sampled away
    table = _table(at)
    assert table["requests"] == ["332", "191"]
    assert table["burstiness (CV of gaps)"][0] == "1.40"
    metrics = [m.value for m in at.metric]
    assert len(metrics) == 8  # four cards per engine
    assert _ms(metrics[6]) < _ms(metrics[2])  # chunked prefill cuts the p99 gap between tokens on real traffic
    assert at.metric[6].delta.startswith("-")
    assert _charts(at) == 3  # arrivals, lengths, latency; no prefix study for Azure (no block ids)
    assert "no prefix block ids" in " ".join(i.value for i in at.info)


def test_window_rate_and_sample_come_from_the_link():
    at = open_app(PAGE, rt_start="10", rt_end="70", rt_rate="2", rt_sample="50", rt_seed="3")
    assert (at.session_state["rt_start"], at.session_state["rt_rate"], at.session_state["rt_sample"]) == (10.0, 2.0, 50)
    assert "50 of the " in texts(at) and "at 2× their logged rate" in texts(at)
    table = _table(at)
    assert table["requests"][1] == "50"
    assert float(table["duration (s)"][1]) < 30.0  # a 60 s window replayed twice as fast
    at.number_input(key="rt_sample").set_value(20).run()
    assert _table(at)["requests"][1] == "20"
    assert at.query_params["rt_sample"] in ("20", ["20"])


def test_bad_link_values_warn_and_fall_back():
    at = open_app(PAGE, rt_rate="-2", rt_sample="1000", rt_start="50", rt_end="20")
    warnings = " ".join(w.value for w in at.warning)
    assert "rt_rate=" in warnings and "rt_sample=" in warnings  # refused by the URL check, defaults used
    assert "must be before its end" in warnings and "whole trace" in warnings
    assert at.session_state["rt_rate"] == 1.0 and at.session_state["rt_sample"] == 200
    assert "200 of the 332 requests" in texts(at)  # the app limit holds even on the fallback
    assert len(at.metric) == 8


def test_empty_window_is_reported():
    at = open_app(PAGE, rt_start="500", rt_end="600")
    warnings = " ".join(w.value for w in at.warning)
    assert "no request arrives in [500, 600) s" in warnings
    assert len(at.metric) == 8


def test_budget_change_reruns_only_the_chunked_engine():
    at = open_app(PAGE)
    before = [m.value for m in at.metric]
    at.select_slider(key="rt_budget").set_value(64).run()
    after = [m.value for m in at.metric]
    assert after[:4] == before[:4] and after[4:] != before[4:]
    assert "budget 64" in texts(at)


def test_bad_upload_is_an_error_and_nothing_is_loaded_from_it():
    at = open_app(PAGE, rt_source="upload")
    assert "Choose a file" in " ".join(i.value for i in at.info)
    at.file_uploader(key="rt_upload").set_value(("bad.csv", BAD_AZURE, "text/csv")).run()
    assert not at.exception
    error = " ".join(e.value for e in at.error)
    assert "bad.csv" in error and "row 2" in error and "ContextTokens" in error
    assert "bundled Azure sample instead" in " ".join(i.value for i in at.info)
    assert _table(at)["requests"][0] == "332"  # the sample, not a partial file
    assert len(at.metric) == 8


def test_bytes_to_load_gives_a_message_or_a_trace():
    outcome = load_or_error(BAD_AZURE, None, "bad.csv")
    assert outcome.load is None and "row 2" in outcome.error and "ContextTokens" in outcome.error
    good = load_or_error(_mooncake(), None, "tiny.jsonl")
    assert good.error is None and good.load.trace_format == "mooncake"
    curve = prefix_curve(good.load.requests)
    # Blocks: (1,2) (1,3) (1,2) (1,3) (1,2) (1,3): 12 blocks, 3 distinct; unlimited room hits all but 1, 2, 3 -> 9/12
    assert (curve.ceiling.hit_blocks, curve.ceiling.prompt_blocks, curve.num_distinct_blocks) == (9, 12, 3)


def test_uploaded_mooncake_file_shows_the_prefix_study_and_format_override():
    at = open_app(PAGE, rt_source="upload")
    at.file_uploader(key="rt_upload").set_value(("tiny.jsonl", _mooncake(), "application/jsonl")).run()
    assert not at.error and "6 requests, format mooncake" in texts(at)
    assert _charts(at) == 4
    assert "the hit rate is 75.0%" in texts(at)
    at.selectbox(key="rt_format").set_value("azure").run()  # a wrong override is an error, not a guess
    assert "missing required column" in " ".join(e.value for e in at.error)
    assert _charts(at) == 3


def test_chinese_render():
    at = open_app(PAGE, lang="zh", rt_start="9", rt_end="3")
    assert at.title[0].value == "回放真实流量"
    shown = texts(at)
    assert "CC BY 4.0" in shown and "Splitwise" in shown and "窗口起点" in " ".join(w.value for w in at.warning)
    assert "加载的流量" in at.table[0].value.columns
    assert len(at.metric) == 8
