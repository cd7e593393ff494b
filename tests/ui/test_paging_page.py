"""AppTest: the page-replacement page steps a reference string, compares algorithms and survives bad input."""

from __future__ import annotations

from chunkviz.lessons.paging import REASON_TEMPLATES
from tests.ui.apptest_helpers import open_app, texts
from ui.i18n import all_keys

PAGE = "pages/paging_page.py"


def metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_default_is_belady_fifo_three_frames_with_nine_faults():
    at = open_app(PAGE)
    assert at.selectbox(key="pr_preset_box").value == "belady"
    assert at.selectbox(key="pr_alg").value == "fifo" and at.select_slider(key="pr_frames").value == 3
    assert at.text_input(key="pr_refs").value == "1,2,3,4,1,2,5,1,2,3,4,5"
    shown = metrics(at)
    assert shown["Faults over the whole string"] == "9" and shown["Faults so far"] == "0"
    assert "FIFO makes 9 faults with 3 frames but 10 with 4" in texts(at)


def test_stepping_moves_counter_reason_and_order_list():
    at = open_app(PAGE)
    at.button(key="pr_step_next").click().run()
    assert at.session_state["pr_step"] == 1 and metrics(at)["Faults so far"] == "1"
    assert "Reference #1 (page 1) — miss: load 1 into a free frame" in texts(at)
    at.button(key="pr_step_jump_hit").click().run()  # FIFO's first hit on this string is reference #8
    assert at.session_state["pr_step"] == 8
    assert (metrics(at)["Faults so far"], metrics(at)["Hits so far"], metrics(at)["Hit ratio so far"]) == \
        ("7", "1", "12%")
    assert any("hit: 1 already in memory" in s.value for s in at.success)
    # The FIFO queue after #8: 1 (loaded at #5), 2 (#6), 5 (#7).
    assert "page 1 · loaded at #5" in texts(at) and "page 5 · loaded at #7" in texts(at)
    at.button(key="pr_step_jump_fault").click().run()
    assert at.session_state["pr_step"] == 10
    assert "miss: evict 1, loaded first" in texts(at)


def test_four_frames_show_belady_anomaly_with_ten_faults():
    at = open_app(PAGE)
    at.select_slider(key="pr_frames").set_value(4).run()
    assert metrics(at)["Faults over the whole string"] == "10"
    assert at.query_params["pr_frames"] in (["4"], "4")


def test_bad_reference_string_names_the_position_and_keeps_the_last_good_one():
    at = open_app(PAGE)
    at.text_input(key="pr_refs").set_value("1,2,x").run()
    assert not at.exception
    errors = " ".join(e.value for e in at.error)
    assert "page #3" in errors and "'x'" in errors
    assert metrics(at)["Faults over the whole string"] == "9"  # still the Belady string
    at.button(key="pr_step_next").click().run()  # the page keeps working
    assert metrics(at)["Faults so far"] == "1" and not at.exception


def test_presets_seed_and_edits_keep_the_preset_box_honest():
    at = open_app(PAGE)
    at.selectbox(key="pr_preset_box").set_value("textbook").run()
    assert at.text_input(key="pr_refs").value.startswith("7,0,1,2,0,3")
    assert metrics(at)["Faults over the whole string"] == "15"  # FIFO, 3 frames (Silberschatz)
    at.number_input(key="pr_seed").set_value(7).run()
    assert at.selectbox(key="pr_preset_box").value == "random"
    assert len(at.text_input(key="pr_refs").value.split(",")) == 20
    at.text_input(key="pr_refs").set_value("1 2 1 3").run()
    assert at.selectbox(key="pr_preset_box").value == "custom"
    assert metrics(at)["Faults over the whole string"] == "3"
    at.radio(key="lang").set_value("zh").run()  # the Chinese box takes over the same choice
    assert at.selectbox(key="pr_preset_box_zh").value == "custom" and at.text_input(key="pr_refs").value == "1 2 1 3"


def test_conventions_change_the_result():
    at = open_app(PAGE, pr_preset="textbook", pr_alg="clock")
    assert metrics(at)["Faults over the whole string"] == "14"
    at.selectbox(key="pr_clock_bit").set_value("0").run()
    assert metrics(at)["Faults over the whole string"] == "11"
    at.selectbox(key="pr_alg").set_value("lfu").run()
    at.selectbox(key="pr_lfu_tie").set_value("lru").run()
    assert metrics(at)["Faults over the whole string"] == "11"


def test_chinese_render_translates_reasons():
    at = open_app(PAGE, lang="zh", pr_step="4")
    assert at.title[0].value == "页面置换：哪一盒料该送回储藏间？"
    assert "缺页：淘汰页面 1，它最早装入" in texts(at)
    assert all(f"pr.reason.{code}" in all_keys() for code in REASON_TEMPLATES)
    at.selectbox(key="pr_kv_workload_zh").set_value("multi-turn").run()  # url_state.widget_key
    assert "每一轮都会重复此前的整段对话" in texts(at) and not at.exception


def test_shared_link_restores_algorithm_frames_and_step():
    at = open_app(PAGE, pr_alg="lru", pr_frames="4", pr_step="5")
    assert at.selectbox(key="pr_alg").value == "lru" and at.select_slider(key="pr_frames").value == 4
    assert at.session_state["pr_step"] == 5
    # LRU, 4 frames, references 1,2,3,4,1: four loads then a hit; the whole string makes 8 faults.
    assert (metrics(at)["Faults so far"], metrics(at)["Hits so far"]) == ("4", "1")
    assert metrics(at)["Faults over the whole string"] == "8"


def test_bad_link_values_are_reported_and_a_bad_refs_link_falls_back():
    at = open_app(PAGE, pr_alg="mru", pr_frames="0", pr_refs="1,-2")
    warnings = " ".join(w.value for w in at.warning)
    assert "pr_alg=" in warnings and "pr_frames=" in warnings
    assert at.selectbox(key="pr_alg").value == "fifo" and at.select_slider(key="pr_frames").value == 3
    assert "page #2 is negative" in " ".join(e.value for e in at.error)
    assert metrics(at)["Faults over the whole string"] == "9"
