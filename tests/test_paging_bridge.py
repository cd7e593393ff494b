"""Page-replacement page helpers: presets, running counts, jumps, the slot grid, comparisons and the KV bridge."""

from __future__ import annotations

import pytest

from chunkviz.lessons.paging import PRESETS, simulate_paging
from chunkviz.lessons.paging_bridge import (
    RANDOM_LENGTH,
    RANDOM_NUM_PAGES,
    compare_algorithms,
    counts_at,
    curve_max_frames,
    kv_hit_rate_curves,
    next_position,
    preset_refs,
    refs_text,
    slot_grid,
    visible_window,
)

BELADY = PRESETS["belady"]  # 1,2,3,4,1,2,5,1,2,3,4,5
FIFO3 = simulate_paging("fifo", BELADY, 3).steps  # hits at references #8, #9, #12 (1-based)


def test_presets_and_text_round_trip() -> None:
    assert preset_refs("belady", 0) == BELADY and preset_refs("textbook", 5) == PRESETS["textbook"]
    assert preset_refs("custom", 0) is None
    random_a = preset_refs("random", 3)
    assert random_a == preset_refs("random", 3) != preset_refs("random", 4)
    assert random_a is not None and len(random_a) == RANDOM_LENGTH and max(random_a) < RANDOM_NUM_PAGES
    assert refs_text((7, 0, 1)) == "7,0,1"


def test_running_counts_follow_the_cursor() -> None:
    start = counts_at(FIFO3, 0)
    assert (start.num_refs, start.faults, start.hits, start.hit_ratio) == (0, 0, 0, None)
    # After 8 references: faults on #1..#7, the hit on #8 -> 7 faults, 1 hit.
    after8 = counts_at(FIFO3, 8)
    assert (after8.faults, after8.hits, after8.hit_ratio) == (7, 1, 1 / 8)
    end = counts_at(FIFO3, 12)
    assert (end.faults, end.hits, end.hit_ratio) == (9, 3, 0.25)


def test_jumps_land_on_the_next_hit_or_fault() -> None:
    # Hits at #8, #9, #12; faults at #1..#7, #10, #11. A cursor c shows references 1..c.
    assert [next_position(FIFO3, c, True) for c in (0, 8, 9, 11, 12)] == [8, 9, 12, 12, None]
    assert [next_position(FIFO3, c, False) for c in (0, 3, 7, 10, 11)] == [1, 4, 10, 11, None]


def test_visible_window_keeps_the_cursor_in_view() -> None:
    assert visible_window(20, 5) == (0, 20)
    assert visible_window(100, 5) == (0, 40)
    assert visible_window(100, 60) == (30, 70)  # cursor 60 sits 10 columns from the right edge
    assert visible_window(100, 100) == (60, 100)


def test_slot_grid_cells_by_hand() -> None:
    grid = slot_grid(FIFO3, 3, 8, 0, 12)
    column = [[row[j] for row in grid.kinds] for j in range(12)]
    labels = [[row[j] for row in grid.labels] for j in range(12)]
    # #1 loads page 1 into frame 1; the other frames are still empty; nothing evicted.
    assert column[0] == ["loaded", None, None, "miss", None]
    # #4 (page 4) replaces 1, loaded first: frames 4,2,3.
    assert column[3] == ["loaded", "resident", "resident", "miss", "victim"]
    assert labels[3] == ["4", "2", "3", "", "1"]
    # #8 (page 1) hits: frames 5,1,2 with 1 in frame 2.
    assert column[7] == ["resident", "hit_page", "resident", "hit", None]
    # The cursor is 8: references #9.. are not drawn yet.
    assert all(kind is None for kind in column[8]) and labels[11] == [""] * 5


def test_compare_algorithms_on_the_belady_string() -> None:
    curves = compare_algorithms(BELADY, 3, True, "fifo")
    assert dict(curves.alg_to_faults) == {"fifo": 9, "lru": 10, "opt": 7, "clock": 9, "lfu": 10}
    assert curve_max_frames(BELADY, 3) == 6  # 5 distinct pages + 1
    assert dict(curves.alg_to_curve)["fifo"][:5] == ((1, 12), (2, 12), (3, 9), (4, 10), (5, 5))
    anomalies = dict(curves.alg_to_anomaly)
    assert anomalies["fifo"] == (3, 4) and anomalies["clock"] == (3, 4)
    assert "lru" not in anomalies and "opt" not in anomalies
    # With R=0 on load Clock is no longer FIFO: 10 faults with 3 frames, 8 with 4.
    assert dict(dict(compare_algorithms(BELADY, 3, False, "fifo").alg_to_curve)["clock"])[4] == 8


@pytest.mark.parametrize("workload", ["multi-turn", "shared-system-prompt"])
def test_kv_curves_meet_the_ceiling_when_everything_fits(workload: str) -> None:
    kv = kv_hit_rate_curves(workload, 64, num_requests=32)
    assert kv.capacities_blocks == tuple(sorted(kv.capacities_blocks)) and kv.capacities_blocks[-1] == \
        kv.num_distinct_blocks
    for policy, rates in kv.policy_to_hit_rates:
        assert len(rates) == len(kv.capacities_blocks)
        assert all(0.0 <= r <= kv.ceiling_hit_rate + 1e-12 for r in rates)
        assert rates[-1] == pytest.approx(kv.ceiling_hit_rate)  # room for every block: nothing is evicted


def test_shared_system_prompt_favours_lru_over_fifo_in_a_small_cache() -> None:
    # The shared prompt is touched by every request: LRU keeps it, FIFO ages it out between requests.
    kv = kv_hit_rate_curves("shared-system-prompt", 64, num_requests=32)
    rates = dict(kv.policy_to_hit_rates)
    assert rates["lru"][0] > rates["fifo"][0]
