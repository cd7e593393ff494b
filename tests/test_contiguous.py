"""The contiguous (pre-paging) allocator baseline: first fit, fragmentation, and paged vs contiguous waste."""

from __future__ import annotations

import json

import pytest

from chunkviz.lessons.contiguous import compare_fit, first_fit, hole_sizes, replay_contiguous, reservation_tokens
from chunkviz.simulator.engine import simulate
from chunkviz.errors import InputError
from chunkviz.analysis.scenario import DEFAULT_SCENARIO, run_scenario
from tests.helpers import make_config, make_requests

# 64 blocks of 4 tokens = a 256-token space. A and C: 40 + 60 = 100 tokens each; B: 40 + 2 = 42; D: 40 + 10 = 50,
# arriving at 0.1 s, after B has finished (2 steps) and long before A and C do (60 steps).
HAND_REQUESTS = make_requests([(0.0, 40, 60), (0.0, 40, 2), (0.0, 40, 60), (0.1, 40, 10)])


def _hand_trace():
    return simulate(make_config("chunked", 512, num_gpu_blocks=64, block_size=4), HAND_REQUESTS)


def _first_step_running(trace, report, request_id):
    index = next(i for i, s in enumerate(trace.steps) if (request_id, 0) in s.snapshot.running)
    return trace.steps[index], report.steps[index]


def test_first_fit_and_holes_by_hand():
    # Space of 20 tokens with regions [0, 4) and [10, 14): holes [4, 10) = 6 and [14, 20) = 6.
    regions = [(0, 4), (10, 4)]
    assert hole_sizes(regions, 20) == [6, 6]
    assert first_fit(regions, 6, 20) == 4  # the lowest hole that is big enough
    assert first_fit(regions, 7, 20) is None  # 12 tokens free, but no hole of 7: external fragmentation
    assert first_fit([], 20, 20) == 0 and first_fit([], 21, 20) is None
    assert hole_sizes([(0, 20)], 20) == []


def test_reservation_modes():
    assert reservation_tokens(40, 60, "max_model_len", 8192) == 8192
    assert reservation_tokens(40, 60, "prompt_plus_output", 8192) == 100
    with pytest.raises(InputError, match="mode must be one of"):
        reservation_tokens(40, 60, "best_fit", 8192)
    with pytest.raises(InputError, match="max_model_len_tokens"):
        reservation_tokens(40, 60, "max_model_len", 0)


def test_prompt_plus_output_replay_by_hand():
    trace = _hand_trace()
    assert all(r.num_preemptions == 0 and r.finish_s is not None for r in trace.requests)
    report = replay_contiguous(trace, "prompt_plus_output", 128)
    assert report.capacity_tokens == 256
    # Step 0: A, B, C prefill 40 tokens each. First fit: A [0, 100), B [100, 142), C [142, 242).
    # Reserved 242, used 3 · 40 = 120, internal 122, free 256 − 242 = 14 (one hole), external 0.
    # Paged: 3 · 40 / 4 = 30 blocks, exactly full, so no waste.
    s0 = report.steps[0]
    assert (s0.num_running, s0.num_placed, s0.reserved_tokens, s0.used_tokens, s0.internal_frag_tokens) == \
        (3, 3, 242, 120, 122)
    assert (s0.free_tokens, s0.largest_hole_tokens, s0.external_frag_tokens) == (14, 14, 0)
    assert (s0.paged_used_blocks, s0.paged_waste_tokens) == (30, 0)
    # Step 1: B samples its 2nd token and leaves, A and C hold 41 tokens each. Holes: B's [100, 142) = 42 and the
    # tail 14: free 56, largest 42, external 14. Paged: ceil(41 / 4) = 11 blocks each → 88 − 82 = 6 wasted.
    s1 = report.steps[1]
    assert (s1.num_placed, s1.reserved_tokens, s1.used_tokens, s1.internal_frag_tokens) == (2, 200, 82, 118)
    assert (s1.free_tokens, s1.largest_hole_tokens, s1.external_frag_tokens) == (56, 42, 14)
    assert (s1.paged_used_blocks, s1.paged_waste_tokens) == (22, 6)
    # D needs 50: 56 tokens are free but the largest hole is 42, so it is blocked by holes while paging runs it.
    record, sd = _first_step_running(trace, report, 3)
    done = {(rid, s): c for rid, s, c, _ in record.snapshot.progress}[(0, 0)]  # A's (and C's) tokens so far
    assert (sd.num_running, sd.num_placed, sd.is_head_blocked_by_holes) == (3, 2, True)
    assert (sd.reserved_tokens, sd.free_tokens, sd.largest_hole_tokens, sd.external_frag_tokens) == (200, 56, 42, 14)
    assert sd.used_tokens == 2 * done and sd.internal_frag_tokens == 200 - 2 * done
    assert sd.paged_waste_tokens == (2 * -(-done // 4) + 40 // 4) * 4 - (2 * done + 40)
    assert report.max_num_running == 3 and report.max_num_unplaced == 1
    assert report.steps[-1].reserved_tokens == 0  # everything released at the end


def test_max_model_len_replay_by_hand():
    # Reserving 128 tokens each, the 256-token space holds two sequences: C waits at step 0 (no free space at
    # all, so not a hole problem), takes B's region once B leaves, and D never runs beside A and C.
    trace = _hand_trace()
    report = replay_contiguous(trace, "max_model_len", 128)
    s0 = report.steps[0]
    assert (s0.num_placed, s0.reserved_tokens, s0.used_tokens, s0.free_tokens) == (2, 256, 80, 0)
    assert not s0.is_head_blocked_by_holes
    assert report.steps[1].num_placed == 2 and report.steps[1].used_tokens == 82  # A and C, 41 tokens each
    assert (report.max_num_running, report.max_num_placed, report.max_num_unplaced) == (3, 2, 1)


def test_compare_fit_by_hand():
    # 64 blocks of 4 = 256 tokens. Paged at admission: 40 / 4 = 10 blocks each → all 4 (40 blocks).
    # Paged at peak: 25 + ceil(42 / 4) = 11 + 25 + ceil(50 / 4) = 13 → 61 after three, 74 > 64 with D → 3.
    # Contiguous, prompt + output: 100 + 42 + 100 = 242, + 50 = 292 > 256 → 3. max_model_len 128: 128 · 2 → 2.
    fit = compare_fit(HAND_REQUESTS, 64, 4, 128, "prompt_plus_output")
    assert (fit.num_seqs, fit.num_fit_paged_at_admission, fit.num_fit_paged_at_peak, fit.num_fit_contiguous) == \
        (4, 4, 3, 3)
    assert compare_fit(HAND_REQUESTS, 64, 4, 128, "max_model_len").num_fit_contiguous == 2
    assert json.loads(json.dumps(fit.to_dict()))["num_fit_contiguous"] == 3


def test_replay_needs_a_detailed_trace():
    trace = simulate(make_config(detail=False), HAND_REQUESTS)
    with pytest.raises(InputError, match="record_detail=True"):
        replay_contiguous(trace, "max_model_len", 8192)


def test_paged_wastes_less_than_contiguous_on_the_default_scenario():
    trace = run_scenario(DEFAULT_SCENARIO)
    max_len = DEFAULT_SCENARIO.model.max_model_len_tokens
    bs = trace.block_size
    lines = [f"\ndefault scenario ({DEFAULT_SCENARIO.workload_preset}, {len(trace.requests)} requests, "
             f"{trace.num_gpu_blocks} blocks × {bs} = {trace.num_gpu_blocks * bs} tokens, {len(trace.steps)} steps):"]
    for mode in ("max_model_len", "prompt_plus_output"):
        report = replay_contiguous(trace, mode, max_len)
        for s in report.steps:
            assert s.reserved_tokens + s.free_tokens == report.capacity_tokens
            assert s.reserved_tokens == s.used_tokens + s.internal_frag_tokens and s.internal_frag_tokens >= 0
            assert s.external_frag_tokens == s.free_tokens - s.largest_hole_tokens >= 0
            assert s.paged_waste_tokens <= s.num_running * (bs - 1)  # paging wastes only part of a last block
        assert report.mean_paged_waste_tokens < report.mean_internal_frag_tokens
        fit = compare_fit(DEFAULT_SCENARIO.requests(), trace.num_gpu_blocks, bs, max_len, mode)
        lines.append(
            f"  {mode}: mean per step: contiguous internal fragmentation {report.mean_internal_frag_tokens:,.0f} "
            f"tokens, external {report.mean_external_frag_tokens:,.0f}, paged waste "
            f"{report.mean_paged_waste_tokens:,.0f}; peak concurrency paged {report.max_num_running} vs contiguous "
            f"{report.max_num_placed}; fit at once of {fit.num_seqs}: paged {fit.num_fit_paged_at_admission} at "
            f"admission / {fit.num_fit_paged_at_peak} at peak, contiguous {fit.num_fit_contiguous}")
        json.dumps(report.to_dict())
    print("\n".join(lines))
