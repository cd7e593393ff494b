"""AppTest: the paged-KV page sends a teaching cache's run to the KV stage once (tests/e2e/test_kv_stage_browser.py
steps it in a browser), and its knobs change what the stage and the metrics show."""

from __future__ import annotations

import json

from chunkviz.config import CacheConfig
from chunkviz.lessons.kv_view import event_steps, kv_scenario
from chunkviz.analysis.scenario import DEFAULT_SCENARIO, run_scenario
from tests.ui.apptest_helpers import open_app, texts

PAGE = "pages/kv_cache_page.py"


def metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def stage(at) -> dict:
    """The data the KV stage (components v2, key kv_stage) received."""
    (element,) = at.get("bidi_component")
    return json.loads(element.proto.json)


def chart_keys(at) -> set[str]:
    return {c.proto.id.rsplit("-", 1)[1] for c in at.get("plotly_chart")}


def test_default_render_sends_the_run_to_the_stage_once():
    at = open_app(PAGE)
    shown = metrics(at)
    assert float(shown["Prefix hit rate"].rstrip("%")) > 0  # shared system prompt, caching on by default
    assert shown["Peak blocks used"].endswith("/ 128")
    assert "TTFT, cache on" in shown and "TTFT, cache off" in shown
    data = stage(at)
    assert data["num_blocks"] == 128 and data["step0"] == 0 and len(data["blocks"]) == len(data["step"]) > 100
    first = data["captions"][0][0]
    assert (first["k"], first["r"]) == ("alloc", 0)  # step 0: request 0's prompt blocks
    assert data["jumps"]["hit"] and "prefix hit" in data["text"]["c_hit"]
    assert chart_keys(at) == {"kv_memory"}  # no per-step Plotly grid any more
    assert "If all 16 sequences came at once" in texts(at)


def test_reruns_keep_the_data_and_a_setting_change_replaces_it():
    at = open_app(PAGE)
    first = stage(at)["version"]
    at.run()
    assert stage(at)["version"] == first
    at.number_input(key="kv_blocks").set_value(64).run()
    assert stage(at)["version"] != first and stage(at)["num_blocks"] == 64 and not at.exception


def test_an_old_step_link_opens_the_stage_on_that_step():
    assert stage(open_app(PAGE, kv_step="60"))["step0"] == 60
    assert stage(open_app(PAGE, kv_step="99999"))["step0"] == len(stage(open_app(PAGE))["step"]) - 1  # clamped
    bad = open_app(PAGE, kv_step="soon")
    assert "kv_step=" in " ".join(w.value for w in bad.warning) and stage(bad)["step0"] == 0


def test_prefix_caching_toggle_changes_the_hit_rate():
    at = open_app(PAGE)
    assert metrics(at)["Prefix hit rate"] != "0%"
    at.toggle(key="kv_cache").set_value(False).run()
    assert metrics(at)["Prefix hit rate"] == "0%" and metrics(at)["Evicted blocks"] == "0"
    data = stage(at)
    assert not any(delta[i + 4] for delta in data["blocks"] for i in range(0, len(delta), 6))  # no block cached
    assert data["jumps"]["hit"] == [] and data["jumps"]["evict"] == []
    assert at.query_params["kv_cache"] in (["False"], "False")


def test_copy_on_write_bookmark_targets_the_first_copy_on_write_step():
    at = open_app(PAGE, kv_scn="parallel-sampling")
    # The page uses the sidebar's defaults, which are DEFAULT_SCENARIO's model, GPU, scheduler, rate and seed.
    cache = CacheConfig(block_size=16, num_gpu_blocks=128, enable_prefix_caching=True)
    first = event_steps(run_scenario(kv_scenario(DEFAULT_SCENARIO, "parallel-sampling", 16, cache)), "CopyOnWrite")[0]
    data = stage(at)
    assert data["jumps"]["cow"][0] == first > 0
    cow = next(c for c in data["captions"][first] if c["k"] == "cow")
    assert cow["from"] != cow["b"][0] and "copy-on-write into block {to}" in data["text"]["c_cow"]


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
    assert stage(at)["num_blocks"] == 48 and stage(at)["step"]  # the others still run


def test_chinese_render_and_scenario_switch():
    at = open_app(PAGE, lang="zh", kv_evict="lfu")
    assert at.title[0].value == "分页 KV 缓存：一台分格的冰箱"
    assert at.selectbox(key="kv_scn_zh").value == "shared-system-prompt"  # url_state.choice: "_zh" in Chinese
    assert at.selectbox(key="kv_evict_zh").value == "lfu"
    assert "前缀命中率" in metrics(at)
    at.selectbox(key="kv_scn_zh").set_value("multi-turn").run()
    assert not at.exception and at.query_params["kv_scn"] in (["multi-turn"], "multi-turn")
    data = stage(at)
    assert "前缀命中" in data["text"]["c_hit"] and data["lang"] == "zh" and "LFU" in data["text"]["rule"]
