"""AppTest: the attention-math page shows chunked = one pass, equal FLOPs, growing KV reads, and sends its stage
(chunk by chunk) to the browser once per setting (tests/e2e/test_stages_browser.py steps the stage itself)."""

from __future__ import annotations

import json

from tests.ui.apptest_helpers import open_app

PAGE = "pages/attention_page.py"


def _metrics(at) -> dict[str, object]:
    return {m.label: m for m in at.metric}


def stage(at) -> dict:
    (element,) = at.get("bidi_component")
    return json.loads(element.proto.json)


def test_default_shows_exactness_equal_flops_and_more_bytes():
    at = open_app(PAGE)
    m = _metrics(at)
    assert float(m["max |Δ| chunked vs one pass"].value) < 1e-12
    flops = m["Attention FLOPs (one head, one layer)"]
    # 64 tokens, d = 64: 4 · 64 · 64·65/2 = 532,480 FLOPs, chunked or not.
    assert flops.value == "532.48 k" and flops.delta == "same as one pass"
    # Chunks of 16 re-read 16+32+48+64 = 160 tokens instead of 64: +150%.
    assert m["KV bytes read, chunked"].delta == "+150%"
    assert m["Chunks"].value == "4"
    table = at.dataframe[0].value
    assert list(table["steps"]) == [1, 4, 16, 32, 64]
    assert table["attention FLOPs (TFLOP)"].nunique() == 1  # the same at every chunk size
    assert table["time (ms)"].is_monotonic_increasing and table["KV read (GB)"].is_monotonic_increasing


def test_stage_ends_at_the_cards_numbers():
    data = stage(open_app(PAGE))
    assert data["num_chunks"] == 4 and data["url_param"] == "am_step" and data["start"] == 0
    assert data["chunks"]["cum_flops"][-1] == 532_480 == data["one_pass_flops"]
    assert data["chunks"]["cum_bytes"][-1] == data["total_bytes"] == 40 * 1024  # 160 tokens × K,V × 64 × 2 B
    assert data["max_abs_diff"] < 1e-12 and data["chunks"]["pairs"][1] == 392  # 16·16 + 16·17/2


def test_changing_the_chunk_changes_the_numbers():
    at = open_app(PAGE)
    version = stage(at)["version"]
    at.number_input(key="am_chunk").set_value(8).run()
    m = _metrics(at)
    assert m["Chunks"].value == "8" and stage(at)["num_chunks"] == 8 and stage(at)["version"] != version
    assert m["KV bytes read, chunked"].delta == "+350%"  # 8·(1+…+8) = 288 tokens vs 64
    assert m["Attention FLOPs (one head, one layer)"].delta == "same as one pass"
    at.number_input(key="am_n").set_value(128).run()
    assert _metrics(at)["Chunks"].value == "16"
    assert at.query_params["am_n"] in (["128"], "128")


def test_an_old_step_link_opens_that_chunk_and_the_end_is_the_check():
    assert stage(open_app(PAGE, am_step="2"))["start"] == 2
    assert stage(open_app(PAGE, am_step="99"))["start"] == 5  # clamped: 4 chunks, then "= one causal pass"


def test_chunk_longer_than_prompt_is_a_message():
    at = open_app(PAGE, am_n="32", am_chunk="100")
    assert any("longer than the 32-token prompt" in w.value for w in at.warning)
    assert _metrics(at)["Chunks"].value == "1"
    assert _metrics(at)["KV bytes read, chunked"].delta == "+0%"


def test_out_of_range_url_values_are_reported():
    at = open_app(PAGE, am_n="0", am_chunk="abc", am_d="7", am_step="x")
    warnings = " ".join(w.value for w in at.warning)
    assert "am_n=" in warnings and "am_chunk=" in warnings and "am_d=" in warnings and "am_step=" in warnings
    assert at.number_input(key="am_n").value == 64 and stage(at)["start"] == 0


def test_chinese_render():
    at = open_app(PAGE, lang="zh", am_step="1")
    assert at.title[0].value == "为什么分块预填充是精确的"
    assert stage(at)["text"]["readout"] == "第 {k}/{num} 个分块"
    assert "分块数" in [m.label for m in at.metric]


