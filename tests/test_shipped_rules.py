"""The engine rules as the engines ship them today (issue 23, items 5 and 6), one hand-built scenario per rule.

Each test fails without its rule: vLLM V1's scheduler_reserve_full_isl, Sarathi-Serve's own defaults, vLLM's
no-chunk budget rule, TensorRT-LLM's 32-token blocks, SGLang's retraction stop and its batch_is_full latch.
Requests are (arrival_s, prompt_tokens, output_tokens) on llama-3-8b / H100 (tests.helpers.make_config).
"""

from __future__ import annotations

import dataclasses
from collections import deque

import pytest

from chunkviz.config import SchedulerConfig
from chunkviz.request import Request
from chunkviz.simulator.engine import resolve_knobs, simulate
from chunkviz.simulator.knobs import Knobs
from chunkviz.simulator.kv.counting import CountingKvManager
from chunkviz.simulator.policies import sglang
from chunkviz.simulator.sched_common import SchedContext
from chunkviz.simulator.sequence import SeqState
from tests.helpers import make_config, make_requests


def _steps(trace, n=None):
    return [[(c.request_id, c.sample_index, c.num_tokens) for c in s.chunks] for s in trace.steps[:n]]


def _with(config, **scheduler):
    return dataclasses.replace(config, scheduler=dataclasses.replace(config.scheduler, **scheduler))


def _engine_block_size(config):
    return dataclasses.replace(config, cache=dataclasses.replace(config.cache, block_size=None))


# --- vLLM V1: scheduler_reserve_full_isl ------------------------------------------------------------------------------
# 40 blocks of 16 = 640 tokens, budget 512. A (300-token prompt, 100 outputs) takes 19 blocks in step 1; B's prompt
# of 600 tokens needs 38 blocks, but only 21 are free.
FULL_ISL = make_requests([(0.0, 300, 100), (0.0, 600, 5)])


def test_vllm_full_isl_admits_a_waiting_request_only_if_its_whole_prompt_fits():
    # allocate_slots(full_sequence_must_fit=True): B waits until A finishes, and nobody is ever preempted.
    trace = simulate(make_config("chunked", 512, num_gpu_blocks=40), FULL_ISL)
    assert _steps(trace, 1) == [[(0, 0, 300)]]
    a, b = trace.requests
    assert b.first_scheduled_s == a.finish_s
    assert sum(r.num_preemptions for r in trace.requests) == 0


def test_vllm_full_isl_refusal_is_the_reason_given_for_the_wait():
    # The why-sentence names the rule: B's first chunk would fit the free blocks, its whole prompt does not.
    from chunkviz.analysis.why import WHY_TEXTS
    trace = simulate(make_config("chunked", 512, num_gpu_blocks=40), FULL_ISL)
    assert trace.steps[0].decision.wait_reason == "whole_prompt"
    assert "why.wait_whole_prompt" in WHY_TEXTS
    off = simulate(_with(make_config("chunked", 512, num_gpu_blocks=40), scheduler_reserve_full_isl=False), FULL_ISL)
    assert all(s.decision.wait_reason != "whole_prompt" for s in off.steps)


def test_vllm_before_full_isl_a_first_chunk_that_fits_is_admitted_and_preempted_later():
    # --no-scheduler-reserve-full-isl (vLLM before PR #37307): B's first chunk (212 tokens, 14 blocks) fits the 21
    # free blocks, so B starts in step 1; its later chunks run the cache out and B (the newest) is preempted.
    config = _with(make_config("chunked", 512, num_gpu_blocks=40), scheduler_reserve_full_isl=False)
    trace = simulate(config, FULL_ISL)
    assert _steps(trace, 1) == [[(0, 0, 300), (1, 0, 212)]]
    assert trace.requests[1].num_preemptions > 0


def test_vllm_full_isl_counts_a_preempted_requests_outputs_as_part_of_its_sequence():
    # A re-admitted request's num_tokens is prompt + outputs so far: 20 + 14 blocks would fit, 20 + 15 would not.
    from chunkviz.simulator.policies.vllm import fits_full_sequence
    kv = CountingKvManager(35, 16)
    assert kv.allocate((9, 0), 0, 20 * 16)  # someone else holds 20 blocks: 15 free
    fresh = SeqState(request=Request(0, 0.0, 224, 50))
    ctx = SchedContext(running=[], waiting=deque([fresh]), kv=kv, scheduler=SchedulerConfig("chunked", 512),
                       knobs=Knobs(512, 256, 0, True, False, 8192), emit=lambda event: None)
    assert fits_full_sequence(ctx, fresh, 0)  # 224 tokens = 14 blocks <= 15
    readmitted = SeqState(request=Request(0, 0.0, 224, 50), num_output_tokens=30)  # preempted after 30 outputs
    assert readmitted.num_tokens == 254 and not fits_full_sequence(ctx, readmitted, 0)  # 16 blocks > 15


def test_turning_full_isl_off_on_another_engine_is_ignored_with_a_note():
    config = _with(make_config("sglang", 512), scheduler_reserve_full_isl=False)
    notes = simulate(config, make_requests([(0.0, 10, 2)])).knob_notes
    assert any("scheduler_reserve_full_isl=False is ignored" in note for note in notes)
    assert not simulate(_with(make_config("chunked", 512), scheduler_reserve_full_isl=False),
                        make_requests([(0.0, 10, 2)])).knob_notes


# --- Sarathi-Serve and vLLM defaults ----------------------------------------------------------------------------------
def test_sarathi_uses_its_own_defaults_chunk_size_512_and_128_sequences():
    # SarathiSchedulerConfig.chunk_size 512 (get_max_num_batched_tokens), BaseSchedulerConfig.max_num_seqs 128;
    # vLLM's table would give 8,192 / 1,024 on an H100, and the 1,000-token prompt would run whole.
    config = make_config("sarathi", None)
    assert (resolve_knobs(config, 10_000).max_num_batched_tokens, resolve_knobs(config, 10_000).max_num_seqs) \
        == (512, 128)
    trace = simulate(config, make_requests([(0.0, 1000, 2)]))
    assert _steps(trace, 2) == [[(0, 0, 512)], [(0, 0, 488)]]
    nochunk = simulate(make_config("vllm-nochunk", None), make_requests([(0.0, 1000, 2)]))
    assert _steps(nochunk, 1) == [[(0, 0, 1000)]]


def test_vllm_nochunk_default_budget_is_max_of_max_model_len_and_the_table():
    # EngineArgs._set_default_args without chunked prefill: max(max_model_len, 8192 on an H100), not max_model_len.
    config = make_config("vllm-nochunk", None)
    short = dataclasses.replace(config, model=dataclasses.replace(config.model, max_model_len_tokens=4096))
    assert resolve_knobs(short, 10_000).max_num_batched_tokens == 8192
    assert resolve_knobs(short, 10_000).max_num_seqs == 1024


# --- TensorRT-LLM: tokens_per_block 32 --------------------------------------------------------------------------------
def test_trtllm_default_block_is_32_tokens_and_its_chunks_are_whole_32_token_blocks():
    # KvCacheConfig.tokens_per_block = 32. Chunked context cuts a chunk to whole blocks: budget 50 -> 32, 32, then
    # the last 36 whole (16-token blocks would give 48, 48, 4). vLLM's policies keep 16; an explicit size is kept.
    config = _with(_engine_block_size(make_config("trtllm", 50)), trtllm_chunked_context=True)
    trace = simulate(config, make_requests([(0.0, 100, 2)]))
    assert trace.block_size == 32
    assert _steps(trace, 3) == [[(0, 0, 32)], [(0, 0, 32)], [(0, 0, 36)]]
    assert simulate(_engine_block_size(make_config("chunked", 512)), make_requests([(0.0, 10, 2)])).block_size == 16
    assert simulate(make_config("trtllm", 512, block_size=16), make_requests([(0.0, 10, 2)])).block_size == 16


# --- SGLang: retraction stops once the next decode fits; the batch_is_full latch ------------------------------------
def _decoding(rid: int, prompt: int, outputs_done: int, max_new: int = 50) -> SeqState:
    seq = SeqState(request=Request(rid, 0.0, prompt, max_new), num_output_tokens=outputs_done)
    seq.num_computed_tokens = seq.num_tokens - 1
    return seq


def test_sglang_retraction_stops_as_soon_as_the_remaining_decodes_fit():
    # Four decodes, each next token opening a new block (4 blocks needed), 1 free. retract_decode takes the one with
    # fewest outputs (S3, 2 blocks) first; then check_decode_mem holds (3 needed, 3 free) and it stops. The older
    # rule (20 free tokens per remaining request = 60 > 48) would also have retracted S0.
    s0, s1, s2, s3 = _decoding(0, 95, 2), _decoding(1, 63, 2), _decoding(2, 31, 2), _decoding(3, 32, 1)
    kv = CountingKvManager(6 + 4 + 2 + 2 + 1, 16)
    for seq in (s0, s1, s2, s3):
        assert kv.allocate(seq.key, 0, seq.num_computed_tokens)
    ctx = SchedContext(running=[s0, s1, s2, s3], waiting=deque(), kv=kv, scheduler=SchedulerConfig("sglang", 512),
                       knobs=Knobs(512, 256, 0, True, True, 8192), emit=lambda event: None,
                       victim=sglang.fewest_outputs_victim)
    plan = sglang.schedule_sglang(ctx)
    assert plan.preempted == [s3]
    assert [(s.key, n) for s, n in plan.items] == [((0, 0), 1), ((1, 0), 1), ((2, 0), 1)]
    assert ctx.policy_state["new_token_ratio"] == pytest.approx((6 + 20 * 3) / 150)


def test_sglang_a_refusal_latches_batch_is_full_until_a_running_request_finishes():
    # 40 blocks = 640 tokens. A: 100 + 200 < 640 -> admitted (7 blocks; 33 free = 528 tokens). B: 320 + 20 = 340 >=
    # 528 - A's 200 -> NO_TOKEN: batch_is_full. One decode step later rem_total_tokens = 528 - 200 x 0.7 = 388 would
    # hold B, but get_new_batch_prefill returns None while the latch holds: B starts only when A finishes.
    trace = simulate(make_config("sglang", 512, num_gpu_blocks=40), make_requests([(0.0, 100, 200), (0.0, 320, 20)]))
    assert _steps(trace, 2) == [[(0, 0, 100)], [(0, 0, 1)]]
    a, b = trace.requests
    assert b.first_scheduled_s == a.finish_s


def test_sglang_the_latch_lifts_after_the_decode_step_that_sees_a_request_finish():
    # As above, with C (10 + 3 outputs) admitted beside A before B is refused. C finishes after its third token;
    # the next update_running_batch sees the batch shrink and clears batch_is_full, and B starts in the step after
    # that, long before A finishes.
    reqs = make_requests([(0.0, 100, 200), (0.0, 10, 3), (0.0, 320, 20)])
    trace = simulate(make_config("sglang", 512, num_gpu_blocks=40), reqs)
    a, c, b = trace.requests
    c_done = next(i for i, s in enumerate(trace.steps) if s.start_s + s.duration_s == c.finish_s)
    b_start = next(i for i, s in enumerate(trace.steps) if any(ch.request_id == 2 for ch in s.chunks))
    assert b_start == c_done + 2 and b.first_scheduled_s < a.finish_s


def test_a_budget_below_trtllms_default_block_is_refused_with_the_block_size_named():
    from chunkviz.errors import InputError
    with pytest.raises(InputError, match=r"max_num_batched_tokens \(16\) must cover at least one KV block "
                                         r"\(block_size=32\)"):
        simulate(_engine_block_size(make_config("trtllm", 16)), make_requests([(0.0, 10, 2)]))
