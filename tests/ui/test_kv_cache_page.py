"""AppTest: the paged-KV page steps a teaching cache, and its knobs change what the grid and the metrics show."""

from __future__ import annotations

import json

from chunkviz.config import CacheConfig
from chunkviz.lessons.kv_view import event_steps, kv_scenario
from chunkviz.analysis.scenario import DEFAULT_SCENARIO, run_scenario
from tests.ui.apptest_helpers import open_app, texts

PAGE = "pages/kv_cache_page.py"


def metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def chart(at, key: str) -> dict:
    found = [c for c in at.get("plotly_chart") if c.proto.id.endswith(f"-{key}")]
    assert len(found) == 1, key
    return json.loads(found[0].proto.spec)


def grid_text(at) -> list[str]:
    return [cell for row in chart(at, "kv_grid")["data"][0]["text"] for cell in row]


def test_default_render_shows_grid_tables_and_run_metrics():
    at = open_app(PAGE)
    shown = metrics(at)
    assert float(shown["Prefix hit rate"].rstrip("%")) > 0  # shared system prompt, caching on by default
    assert shown["Peak blocks used"].endswith("/ 128")
    assert "TTFT, cache on" in shown and "TTFT, cache off" in shown
    assert len(grid_text(at)) == 128  # 8 rows of 16 blocks
    assert sum(cell.startswith("R0") for cell in grid_text(at)) > 0  # step 0: request 0's prompt blocks
    assert {"kv_free", "kv_memory"} <= {c.proto.id.rsplit("-", 1)[1] for c in at.get("plotly_chart")}
    assert list(at.dataframe[0].value["sequence"]) == ["R0"]
    assert "If all 16 sequences came at once" in texts(at)


def test_stepping_changes_grid_tables_and_explanation():
    at = open_app(PAGE)
    grid0, table0 = grid_text(at), at.dataframe[0].value.to_dict()
    at.button(key="kv_step_next").click().run()
    assert at.session_state["kv_step"] == 1
    at.slider(key="kv_step").set_value(60).run()
    assert grid_text(at) != grid0 and at.dataframe[0].value.to_dict() != table0
    assert any("×" in cell for cell in grid_text(at))  # the system prompt's blocks are shared by now
    assert "Step 60 took" in texts(at)
    assert at.query_params["kv_step"] in (["60"], "60")


def test_prefix_caching_toggle_changes_the_hit_rate():
    at = open_app(PAGE)
    assert metrics(at)["Prefix hit rate"] != "0%"
    at.toggle(key="kv_cache").set_value(False).run()
    assert metrics(at)["Prefix hit rate"] == "0%" and metrics(at)["Evicted blocks"] == "0"
    assert not any("●" in cell for cell in grid_text(at))  # no block carries a prefix key
    assert at.query_params["kv_cache"] in (["False"], "False")


def test_copy_on_write_jump_lands_on_the_first_copy_on_write_step():
    at = open_app(PAGE, kv_scn="parallel-sampling")
    at.button(key="kv_step_jump_CoW").click().run()
    # The page uses the sidebar's defaults, which are DEFAULT_SCENARIO's model, GPU, scheduler, rate and seed.
    cache = CacheConfig(block_size=16, num_gpu_blocks=128, enable_prefix_caching=True)
    first = event_steps(run_scenario(kv_scenario(DEFAULT_SCENARIO, "parallel-sampling", 16, cache)), "CopyOnWrite")[0]
    assert at.session_state["kv_step"] == first > 0
    assert "wrote into shared block" in texts(at) and "so it was copied to block" in texts(at)


def test_bad_url_value_gives_a_warning_not_an_exception():
    at = open_app(PAGE, kv_blocks="-3", kv_cache="maybe")
    warnings = " ".join(w.value for w in at.warning)
    assert "kv_blocks=" in warnings and "between 48 and 512" in warnings and "kv_cache=" in warnings
    assert "must be one of True, False" in warnings
    assert at.number_input(key="kv_blocks").value == 128 and at.toggle(key="kv_cache").value is True


def test_cache_too_small_for_one_request_shows_the_engine_rejection():
    at = open_app(PAGE, kv_scn="long-among-chats", kv_bs="4", kv_blocks="48")
    warnings = " ".join(w.value for w in at.warning)
    assert "can never run with this cache" in warnings
    assert "request 4: needs" in warnings and "KV blocks even alone, but the cache holds 48" in warnings
    assert len(grid_text(at)) == 48  # the others still run


def test_chinese_render_and_scenario_switch():
    at = open_app(PAGE, lang="zh", kv_evict="lfu")
    assert at.title[0].value == "分页 KV 缓存：一台分格的冰箱"
    assert at.selectbox(key="kv_scn_zh").value == "shared-system-prompt"  # url_state.choice: "_zh" in Chinese
    assert at.selectbox(key="kv_evict_zh").value == "lfu"
    assert "前缀命中率" in metrics(at)
    at.selectbox(key="kv_scn_zh").set_value("multi-turn").run()
    assert not at.exception and at.query_params["kv_scn"] in (["multi-turn"], "multi-turn")
    assert "第 0 步耗时" in texts(at)
