"""The page-replacement stage's data: each rule's victim and reason facts on the textbook strings (worked by hand
from the rules; counts as in tests/test_paging.py), the Belady bookmark, and the columns the browser steps through."""

from __future__ import annotations

import json

from chunkviz.lessons.paging import ALGORITHMS, PRESETS, simulate_paging
from chunkviz.lessons.paging_stage import anomaly, stage_data, step_facts

BELADY = PRESETS["belady"]  # 1,2,3,4,1,2,5,1,2,3,4,5


def _evictions(track: dict) -> list[tuple[int, int, dict]]:
    """(reference number, victim, facts) for every eviction of a track."""
    return [(i + 1, v, f) for i, (v, f) in enumerate(zip(track["victim"], track["facts"])) if v is not None]


def _tracks(frames: int) -> dict[str, dict]:
    return {t["alg"]: t for t in stage_data(BELADY, frames, "fifo")["tracks"]}


def test_fifo_victims_name_when_they_were_loaded_with_three_and_four_frames():
    three, four = _tracks(3)["fifo"], _tracks(4)["fifo"]
    assert [(n, v, f["at"]) for n, v, f in _evictions(three)] == [
        (4, 1, 1), (5, 2, 2), (6, 3, 3), (7, 4, 4), (10, 1, 5), (11, 2, 6)]
    assert [(n, v, f["at"]) for n, v, f in _evictions(four)] == [
        (7, 1, 1), (8, 2, 2), (9, 3, 3), (10, 4, 4), (11, 5, 7), (12, 1, 8)]
    assert (three["total_faults"], four["total_faults"]) == (9, 10)  # Belady's anomaly
    assert three["faults"][-1] == 9 and four["faults"][-1] == 10 and three["faults"][:4] == [1, 2, 3, 4]


def test_lru_victims_name_their_last_use_and_how_long_ago():
    lru = _tracks(3)["lru"]
    assert [(n, v, f["at"], f["ago"]) for n, v, f in _evictions(lru)] == [
        (4, 1, 1, 3), (5, 2, 2, 3), (6, 3, 3, 3), (7, 4, 4, 3), (10, 5, 7, 3), (11, 1, 8, 3), (12, 2, 9, 3)]
    assert lru["total_faults"] == 10 and _tracks(4)["lru"]["total_faults"] == 8


def test_opt_victims_name_their_next_use_or_never():
    opt = _tracks(3)["opt"]
    got = [(n, v, opt["code"][n - 1], f.get("at")) for n, v, f in _evictions(opt)]
    assert got == [(4, 3, "evict_opt", 10), (7, 4, "evict_opt", 11), (10, 1, "evict_opt_never", None),
                   (11, 2, "evict_opt_never", None)]
    assert opt["total_faults"] == 7 and _tracks(4)["opt"]["total_faults"] == 6


def test_clock_counts_second_chances_and_lfu_counts_uses():
    clock, lfu = _tracks(3)["clock"], _tracks(3)["lfu"]
    # R=1 on load: at reference 4 every page has R=1, so the hand clears all three and takes page 1.
    assert _evictions(clock)[0] == (4, 1, {"page": 4, "frame": 1, "victim": 1, "n": 3})
    assert _evictions(clock)[1][2]["n"] == 0  # the sweep left R=0 behind: the next victim is taken at once
    assert all(f["n"] == 1 for _, _, f in _evictions(lfu)[:4])  # each loaded once, none used again yet


def test_hits_and_free_loads_name_the_frame():
    fifo = _tracks(3)["fifo"]
    assert fifo["code"][:3] == ["load_free"] * 3 and [f["frame"] for f in fifo["facts"][:3]] == [1, 2, 3]
    assert fifo["code"][7] == "hit" and fifo["facts"][7] == {"page": 1, "frame": 2}  # page 1 reloaded into frame 2


def test_facts_match_the_core_steps_for_every_rule_on_the_textbook_string():
    refs = PRESETS["textbook"]
    data = stage_data(refs, 3, "lru")
    assert [t["alg"] for t in data["tracks"]] == list(ALGORITHMS)
    for t in data["tracks"]:
        result = simulate_paging(t["alg"], refs, 3)
        assert t["total_faults"] == result.faults and len(t["frames"]) == len(refs)
        assert t["facts"] == [step_facts(s) for s in result.steps]
        assert all(f["victim"] == v for v, f in zip(t["victim"], t["facts"]) if v is not None)
    assert {t["alg"]: t["total_faults"] for t in data["tracks"]} == {
        "fifo": 15, "lru": 12, "opt": 9, "clock": 14, "lfu": 13}


def test_belady_bookmark_pairs_three_and_four_frames_at_the_first_divergence():
    found = anomaly(BELADY, 3, True, "fifo")
    assert found is not None
    assert (found["alg"], found["small_frames"], found["big_frames"]) == ("fifo", 3, 4)
    assert (found["small_faults"], found["big_faults"]) == (9, 10)
    # Reference 8 (page 1): three frames hit, four frames fault: the first place the bigger memory does worse.
    assert (found["cursor"], found["page"]) == (8, 1)
    small, big = found["tracks"]
    assert small["hit"][7] and not big["hit"][7]
    assert anomaly(PRESETS["textbook"], 3, True, "fifo") is None  # no anomaly there: the page offers the preset


def test_bookmarks_and_payload_are_plain_json():
    data = stage_data(BELADY, 3, "lru")
    marks = {m["kind"]: m["cursor"] for m in data["bookmarks"]}
    assert marks == {"first_evict": 4, "first_hit": 8, "differ": 4}  # LRU's first hit is page 1 at reference 8
    assert json.loads(json.dumps(data)) == data
