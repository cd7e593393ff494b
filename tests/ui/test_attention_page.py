"""AppTest: the attention-math page shows chunked = one pass, equal FLOPs, growing KV reads, and steps over chunks."""

from __future__ import annotations

from tests.ui.apptest_helpers import open_app, texts

PAGE = "pages/attention_page.py"


def _metrics(at) -> dict[str, object]:
    return {m.label: m for m in at.metric}


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


def test_changing_the_chunk_changes_the_numbers():
    at = open_app(PAGE)
    at.number_input(key="am_chunk").set_value(8).run()
    m = _metrics(at)
    assert m["Chunks"].value == "8"
    assert m["KV bytes read, chunked"].delta == "+350%"  # 8·(1+…+8) = 288 tokens vs 64
    assert m["Attention FLOPs (one head, one layer)"].delta == "same as one pass"
    at.number_input(key="am_n").set_value(128).run()
    assert _metrics(at)["Chunks"].value == "16"
    assert at.query_params["am_n"] in (["128"], "128")


def test_stepping_over_chunks():
    at = open_app(PAGE)
    assert "Step 0 shows the whole prefill" in texts(at)
    at.button(key="am_step_next").click().run()
    at.button(key="am_step_next").click().run()
    assert at.session_state["am_step"] == 2
    info = at.info[0].value
    # Chunk 2 covers queries 16–31 after 16 cached tokens: 16·16 + 16·17/2 = 392 pairs.
    assert "Chunk 2 of 4" in info and "392 pairs" in info
    at.button(key="am_step_prev").click().run()
    assert at.session_state["am_step"] == 1 and "Chunk 1 of 4" in at.info[0].value
    for _ in range(6):  # past the last chunk the cursor stays put
        at.button(key="am_step_next").click().run()
    assert at.session_state["am_step"] == 4 and not at.exception


def test_chunk_longer_than_prompt_is_a_message():
    at = open_app(PAGE, am_n="32", am_chunk="100")
    assert any("longer than the 32-token prompt" in w.value for w in at.warning)
    assert _metrics(at)["Chunks"].value == "1"
    assert _metrics(at)["KV bytes read, chunked"].delta == "+0%"


def test_out_of_range_url_values_are_reported():
    at = open_app(PAGE, am_n="0", am_chunk="abc", am_d="7", am_step="99")
    warnings = " ".join(w.value for w in at.warning)
    assert "am_n=" in warnings and "am_chunk=" in warnings and "am_d=" in warnings
    assert at.number_input(key="am_n").value == 64 and at.session_state["am_step"] == 4  # clamped to the last chunk


def test_chinese_render():
    at = open_app(PAGE, lang="zh", am_step="1")
    assert at.title[0].value == "为什么分块预填充是精确的"
    assert "第 1/4 个分块" in at.info[0].value
    assert "分块数" in [m.label for m in at.metric]
