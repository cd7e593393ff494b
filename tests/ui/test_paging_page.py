"""AppTest: the page-replacement page sends its stage (every rule over the reference string) to the browser once,
keeps its settings in the URL, and survives bad input (tests/e2e/test_stages_browser.py steps the stage itself)."""

from __future__ import annotations

import json

from chunkviz.lessons.paging import REASON_TEMPLATES
from tests.ui.apptest_helpers import open_app, texts
from ui.i18n import all_keys

PAGE = "pages/paging_page.py"


def stage(at) -> dict:
    (element,) = at.get("bidi_component")
    return json.loads(element.proto.json)


def totals(at) -> dict[str, int]:
    return {t["alg"]: t["total_faults"] for t in stage(at)["tracks"]}


def test_default_is_belady_fifo_three_frames_with_nine_faults():
    at = open_app(PAGE)
    assert at.selectbox(key="pr_preset_box").value == "belady"
    assert at.selectbox(key="pr_alg").value == "fifo" and at.select_slider(key="pr_frames").value == 3
    assert at.text_input(key="pr_refs").value == "1,2,3,4,1,2,5,1,2,3,4,5"
    data = stage(at)
    assert data["refs"] == [1, 2, 3, 4, 1, 2, 5, 1, 2, 3, 4, 5] and data["selected"] == "fifo"
    assert totals(at) == {"fifo": 9, "lru": 10, "opt": 7, "clock": 9, "lfu": 10}
    assert data["start"] == 0 and data["url_param"] == "pr_step"
    assert "FIFO makes 9 faults with 3 frames but 10 with 4" in texts(at)


def test_stage_carries_the_belady_bookmark_and_translated_reasons():
    data = stage(open_app(PAGE))
    anomaly = data["anomaly"]
    assert (anomaly["small_frames"], anomaly["big_frames"], anomaly["cursor"]) == (3, 4, 8)
    assert data["text"]["r_evict_fifo"] == "FIFO: page {victim} was loaded first, at reference {at}."
    zh = stage(open_app(PAGE, lang="zh"))
    assert zh["text"]["r_evict_lru"].startswith("LRU：页面 {victim}") and zh["version"] != data["version"]


def test_an_old_step_link_opens_the_stage_at_that_reference():
    at = open_app(PAGE, pr_alg="lru", pr_frames="4", pr_step="5")
    assert at.selectbox(key="pr_alg").value == "lru" and at.select_slider(key="pr_frames").value == 4
    data = stage(at)
    assert data["start"] == 5 and data["selected"] == "lru"
    lru = next(t for t in data["tracks"] if t["alg"] == "lru")
    # LRU, 4 frames, references 1,2,3,4,1: four loads then a hit; the whole string makes 8 faults.
    assert lru["faults"][4] == 4 and lru["hit"][4] and lru["total_faults"] == 8
    assert stage(open_app(PAGE, pr_step="99"))["start"] == 12  # clamped to the last reference


def test_four_frames_show_belady_anomaly_with_ten_faults():
    at = open_app(PAGE)
    version = stage(at)["version"]
    at.select_slider(key="pr_frames").set_value(4).run()
    assert totals(at)["fifo"] == 10 and stage(at)["version"] != version
    assert at.query_params["pr_frames"] in (["4"], "4")


def test_the_same_setting_sends_the_same_data():
    at = open_app(PAGE)
    before = stage(at)["version"]
    at.run()
    assert stage(at)["version"] == before  # the browser keeps its cursor across reruns


def test_bad_reference_string_names_the_position_and_keeps_the_last_good_one():
    at = open_app(PAGE)
    at.text_input(key="pr_refs").set_value("1,2,x").run()
    assert not at.exception
    errors = " ".join(e.value for e in at.error)
    assert "page #3" in errors and "'x'" in errors
    assert totals(at)["fifo"] == 9  # still the Belady string


def test_presets_seed_and_edits_keep_the_preset_box_honest():
    at = open_app(PAGE)
    at.selectbox(key="pr_preset_box").set_value("textbook").run()
    assert at.text_input(key="pr_refs").value.startswith("7,0,1,2,0,3")
    assert totals(at)["fifo"] == 15  # FIFO, 3 frames (Silberschatz)
    assert stage(at)["anomaly"] is None  # the stage offers to load Belady's string instead
    at.number_input(key="pr_seed").set_value(7).run()
    assert at.selectbox(key="pr_preset_box").value == "random"
    assert len(at.text_input(key="pr_refs").value.split(",")) == 20
    at.text_input(key="pr_refs").set_value("1 2 1 3").run()
    assert at.selectbox(key="pr_preset_box").value == "custom"
    assert totals(at)["fifo"] == 3
    at.radio(key="lang").set_value("zh").run()  # the Chinese box takes over the same choice
    assert at.selectbox(key="pr_preset_box_zh").value == "custom" and at.text_input(key="pr_refs").value == "1 2 1 3"


def test_load_belady_callback_sets_the_preset_string(monkeypatch):
    from ui.paging import parts

    state = {"pr_preset": "textbook", "pr_seed": 0, "pr_refs": "7,0,1"}
    monkeypatch.setattr(parts, "ss", state)  # the callback's session state (it runs before the script)
    parts.load_belady()
    assert state == {"pr_preset": "belady", "pr_seed": 0, "pr_refs": "1,2,3,4,1,2,5,1,2,3,4,5"}


def test_conventions_change_the_result():
    at = open_app(PAGE, pr_preset="textbook", pr_alg="clock")
    assert totals(at)["clock"] == 14
    at.selectbox(key="pr_clock_bit").set_value("0").run()
    assert totals(at)["clock"] == 11
    at.selectbox(key="pr_alg").set_value("lfu").run()
    at.selectbox(key="pr_lfu_tie").set_value("lru").run()
    assert totals(at)["lfu"] == 11 and stage(at)["selected"] == "lfu"


def test_chinese_render():
    at = open_app(PAGE, lang="zh", pr_step="4")
    assert at.title[0].value == "页面置换：哪一盒料该送回储藏间？"
    assert all(f"ps.r_{code}" in all_keys() for code in REASON_TEMPLATES)  # every rule's reason, translated
    at.selectbox(key="pr_kv_workload_zh").set_value("multi-turn").run()  # url_state.widget_key
    assert "每一轮都会重复此前的整段对话" in texts(at) and not at.exception


def test_bad_link_values_are_reported_and_a_bad_refs_link_falls_back():
    at = open_app(PAGE, pr_alg="mru", pr_frames="0", pr_refs="1,-2", pr_step="x")
    warnings = " ".join(w.value for w in at.warning)
    assert "pr_alg=" in warnings and "pr_frames=" in warnings and "pr_step=" in warnings
    assert at.selectbox(key="pr_alg").value == "fifo" and at.select_slider(key="pr_frames").value == 3
    assert "page #2 is negative" in " ".join(e.value for e in at.error)
    assert totals(at)["fifo"] == 9 and stage(at)["start"] == 0
