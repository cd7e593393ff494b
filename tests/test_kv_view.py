"""kv_view: teaching scenarios, the block grid and tables of a snapshot, jump targets, paged vs contiguous series."""

from __future__ import annotations

from chunkviz.config import CacheConfig
from chunkviz.simulator.engine import simulate
from chunkviz.lessons.kv_view import (KV_SCENARIOS, LONG_PROMPT_DIVISOR, TEACHING_MAX_MODEL_LEN_TOKENS, event_steps,
                              grid_cells, kv_scenario, memory_series, next_step, rejections, table_rows,
                              teaching_requests)
from chunkviz.request import Request, Segment
from chunkviz.analysis.scenario import DEFAULT_SCENARIO, run_scenario
from chunkviz.simulator.trace import BlockView, Snapshot
from tests.helpers import make_config

# Block size 4, 10 blocks. R0 = "sys" (8 tokens) + "a" (2), 2 output tokens; R1 = "sys" + "b", arriving at 1 s,
# long after R0 is done (2 steps). R0 takes blocks 0, 1, 2 (10 tokens -> 3 blocks; 0 and 1 are full, so cached)
# and frees them tail first: the free queue becomes 3..9, 2, 1, 0. R1 hits blocks 0 and 1 (8 tokens, below its
# 10 - 1 = 9 lookup cap) and takes one new block from the head: 3. Free queue after that: 4..9, 2.
HAND_REQUESTS = (Request(0, 0.0, 10, 2, segments=(Segment("sys", 8), Segment("a", 2))),
                 Request(1, 1.0, 10, 2, segments=(Segment("sys", 8), Segment("b", 2))))


def _hand_trace():
    return simulate(make_config("chunked", 512, num_gpu_blocks=10, block_size=4, prefix_caching=True), HAND_REQUESTS)


def test_hand_trace_grid_tables_and_jumps():
    trace = _hand_trace()
    assert event_steps(trace, "PrefixHit") == (2,)
    assert event_steps(trace, "Freed") == (1, 3)
    assert next_step((1, 3), 0) == 1 and next_step((1, 3), 1) == 3 and next_step((1, 3), 3) is None
    snap = trace.steps[2].snapshot
    cells = grid_cells(snap, 10)
    assert len(cells) == 10 and [c.block_id for c in cells] == list(range(10))
    assert [c.state for c in cells] == ["used", "used", "empty", "used"] + ["empty"] * 6
    assert {c.request_id for c in cells if c.state == "used"} == {1}
    assert cells[0].key is not None and cells[1].key is not None and cells[3].key is None  # only full blocks
    # Blocks 4..9 are at the head of the free queue, block 2 (freed by R0, never full) comes after them.
    assert [cells[b].free_position for b in (4, 9, 2)] == [0, 5, 6]
    assert table_rows(snap)[0].block_ids == (0, 1, 3) and table_rows(snap)[0].shared_block_ids == ()
    assert (table_rows(snap)[0].computed_tokens, table_rows(snap)[0].total_tokens) == (10, 11)
    assert table_rows(trace.steps[1].snapshot) == ()


def test_hand_trace_paged_vs_contiguous_series():
    trace = _hand_trace()
    series = memory_series(trace, HAND_REQUESTS, 16)
    # 10 blocks x 4 tokens = 40. While one request runs: paged 3 blocks = 12 tokens, 10 computed, contiguous
    # reserves 16 (max_model_len) or 10 + 2 = 12 (prompt + output); nothing runs after its finishing step.
    assert series.capacity_tokens == 40
    assert series.paged_tokens == (12, 0, 12, 0) and series.used_tokens == (10, 0, 10, 0)
    assert series.reserved_max_len_tokens == (16, 0, 16, 0) and series.reserved_exact_tokens == (12, 0, 12, 0)
    assert series.num_running == (1, 0, 1, 0) and series.num_placed_max_len == (1, 0, 1, 0)
    # All at once: 2 sequences; paged needs 3 blocks each, contiguous 16 or 12 tokens each: both fit in 40.
    assert (series.num_seqs, series.num_fit_paged_prompts, series.num_fit_max_len, series.num_fit_exact) == (2, 2, 2, 2)
    assert rejections(trace) == ()


def test_shared_blocks_are_marked_in_grid_and_tables():
    # Two tables share block 0 (ref count 2); block 1 is free but still cached, block 2 is R1's own.
    snap = Snapshot(waiting=(), running=((0, 0), (1, 0)), progress=((0, 0, 5, 6), (1, 0, 6, 7)),
                    blocks=(BlockView(0, 2, "k0", 4, ((0, 0), (1, 0)), None), BlockView(1, 0, "k1", 4, (), 0),
                            BlockView(2, 1, None, 2, ((1, 0),), None), BlockView(3, 1, None, 1, ((0, 0),), None)),
                    block_tables=((0, 0, (0, 3)), (1, 0, (0, 2))), free_queue_head=(1, 4))
    cells = grid_cells(snap, 5)
    assert [c.state for c in cells] == ["used", "cached", "used", "used", "empty"]
    assert cells[0].request_id == 0 and cells[0].ref_count == 2  # the oldest owner gives the colour
    assert cells[4].free_position == 1  # never handed out: its place comes from the queue head
    rows = table_rows(snap)
    assert [(r.request_id, r.block_ids, r.shared_block_ids) for r in rows] == [(0, (0, 3), (0,)), (1, (0, 2), (0,))]


def test_teaching_requests_are_small_and_keep_their_structure():
    shared = teaching_requests("shared-system-prompt", 12, 16.0, 0)
    assert len(shared) == 12 and all(r.segments[0] == Segment("system", 96) for r in shared)
    samples = teaching_requests("parallel-sampling", 12, 16.0, 0)
    assert all(r.n_samples == 4 for r in samples)
    mixed = teaching_requests("long-among-chats", 12, 16.0, 0)
    # The preset's 6,000-8,000-token documents (every 8th request from 4 on) shrink 16x to 375-500 tokens.
    assert 6000 // LONG_PROMPT_DIVISOR <= mixed[4].prompt_tokens <= 8000 // LONG_PROMPT_DIVISOR
    for preset in KV_SCENARIOS:
        requests = teaching_requests(preset, 16, 16.0, 3)
        assert [r.request_id for r in requests] == list(range(len(requests)))
        assert max(r.prompt_tokens for r in requests) < TEACHING_MAX_MODEL_LEN_TOKENS


def test_kv_scenario_uses_the_teaching_cache_and_runs():
    cache = CacheConfig(block_size=8, num_gpu_blocks=64, enable_prefix_caching=True, eviction="fifo")
    scenario = kv_scenario(DEFAULT_SCENARIO, "shared-system-prompt", 12, cache)
    assert scenario.cache == cache and scenario.record_detail
    assert scenario.model.max_model_len_tokens == TEACHING_MAX_MODEL_LEN_TOKENS
    assert scenario.scheduler.max_num_seqs == 64  # capped at the number of blocks
    trace = run_scenario(scenario)
    assert trace.num_gpu_blocks == 64 and len(grid_cells(trace.steps[-1].snapshot, 64)) == 64
    assert event_steps(trace, "PrefixHit")  # the shared system prompt is reused


def test_a_cache_too_small_for_a_request_is_reported_with_the_engine_reason():
    cache = CacheConfig(block_size=4, num_gpu_blocks=48, enable_prefix_caching=True)
    trace = run_scenario(kv_scenario(DEFAULT_SCENARIO, "long-among-chats", 12, cache))
    rejected = dict(rejections(trace))
    assert 4 in rejected and "KV blocks even alone, but the cache holds 48" in rejected[4]
