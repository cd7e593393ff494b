"""One test per engine rule, each on a tiny hand-built scenario whose schedule is worked out in the test.

Requests are (arrival_s, prompt_tokens, output_tokens) on llama-3-8b / H100 (tests.helpers.make_config); a step
is listed as (request, sample, tokens). Each test names the engine function whose rule it checks.
"""

from __future__ import annotations

import dataclasses
from collections import deque

import pytest

from chunkviz.config import SchedulerConfig
from chunkviz.cost.catalogue import get_gpu, get_model
from chunkviz.errors import InputError
from chunkviz.request import Request, Segment
from chunkviz.simulator.engine import resolve_knobs, simulate
from chunkviz.simulator.events import Preempted
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


# --- vLLM V1 without chunking vs V0 prefill-first ------------------------------------------------------------------
# A (100-token prompt, 10 outputs) decodes; B (3,000 tokens) arrives at 20 ms, during A's third decode step.
DECODE_THEN_LONG = make_requests([(0.0, 100, 10), (0.02, 3000, 2)])


def test_v1_nochunk_runs_the_whole_prompt_in_the_same_step_as_the_decodes():
    # vllm/v1/core/sched/scheduler.py Scheduler.schedule: running requests first (A's decode, 1 token), then the
    # waiting B whole (3,000 <= 8,192 - 1 tokens left): one long step, no decode skipped.
    trace = simulate(make_config("vllm-nochunk", None), DECODE_THEN_LONG)
    assert _steps(trace, 5) == [[(0, 0, 100)], [(0, 0, 1)], [(0, 0, 1)], [(0, 0, 1), (1, 0, 3000)],
                                [(0, 0, 1), (1, 0, 1)]]
    assert trace.num_stall_steps == 0 and trace.budget_tokens == 8192  # max_model_len without chunking


def test_v0_prefill_first_step_skips_the_decodes():
    # vllm/core/scheduler.py Scheduler._schedule_default: prefills first; a step with a prefill runs no decode, so
    # A gets nothing in B's step (one stall step).
    trace = simulate(make_config("monolithic", None), DECODE_THEN_LONG)
    assert _steps(trace, 5) == [[(0, 0, 100)], [(0, 0, 1)], [(0, 0, 1)], [(1, 0, 3000)], [(0, 0, 1), (1, 0, 1)]]
    assert trace.num_stall_steps == 1 and trace.steps[3].num_stalled_decodes == 1


def test_v1_nochunk_a_prompt_that_does_not_fit_the_tokens_left_waits_and_blocks_the_queue():
    # A and B decode (2 tokens per step); C needs 8,191 > 8,192 - 2 tokens left, so it waits ("If chunked_prefill is
    # disabled, we can stop the scheduling here"), and D (50 tokens, would fit) waits behind it. A and B finish
    # after step 4; step 5 is C alone; D follows.
    reqs = make_requests([(0.0, 100, 5), (0.0, 100, 5), (0.01, 8191, 1), (0.011, 50, 2)])
    trace = simulate(make_config("vllm-nochunk", None), reqs)
    assert _steps(trace, 8) == [[(0, 0, 100), (1, 0, 100)]] + [[(0, 0, 1), (1, 0, 1)]] * 4 + \
        [[(2, 0, 8191)], [(3, 0, 50)], [(3, 0, 1)]]
    assert trace.steps[2].start_s >= 0.011  # C and D had arrived while they waited


def test_threshold_never_splits_a_prompt_under_prefill_first():
    # Rule chosen here: long_prefill_token_threshold applies only where the policy chunks prompts (the resolved
    # knob is 0 for monolithic; the CLI says so in a note), so the V0 rule "a prefill step carries no decode" holds.
    trace = simulate(make_config("monolithic", None, threshold=256), DECODE_THEN_LONG)
    assert _steps(trace, 5)[3] == [(1, 0, 3000)]
    assert resolve_knobs(make_config("monolithic", None, threshold=256), 1000).long_prefill_token_threshold == 0
    assert resolve_knobs(make_config("chunked", 512, threshold=256), 1000).long_prefill_token_threshold == 256


# --- Sarathi-Serve --------------------------------------------------------------------------------------------------
def test_sarathi_orders_decodes_then_partial_prefills_then_new_prompts():
    # Budget 512, threshold 256. Step 0 admits P1 (256 of 2,000), X (all 20; first token) and P2 (236 of 2,000).
    # Step 1: vLLM V1 serves the running list in admission order (P1, X, P2); Sarathi (SarathiScheduler._schedule)
    # puts X's decode first, then the partial prefills P1 and P2.
    reqs = make_requests([(0.0, 2000, 2), (0.0, 20, 5), (0.0, 2000, 2)])
    v1 = simulate(make_config("chunked", 512, threshold=256), reqs)
    sarathi = simulate(make_config("sarathi", 512, threshold=256), reqs)
    first = [(0, 0, 256), (1, 0, 20), (2, 0, 236)]
    assert _steps(v1, 2) == [first, [(0, 0, 256), (1, 0, 1), (2, 0, 255)]]
    assert _steps(sarathi, 2) == [first, [(1, 0, 1), (0, 0, 256), (2, 0, 255)]]


# --- SGLang ---------------------------------------------------------------------------------------------------------
THREE_LONG_ANSWERS = make_requests([(0.0, 100, 200)] * 3)  # each grows to 300 tokens = 19 blocks of 16


def test_sglang_prefill_adder_refuses_what_rem_total_tokens_cannot_hold():
    # 40 blocks = 640 tokens. PrefillAdder.add_one_req needs input + min(max_new, 4096) < rem_total_tokens:
    # A: 100 + 200 = 300 < 640 -> admitted (its 7 prompt blocks reserved; free 33 blocks = 528 tokens).
    # B: rem = 528 - A's 200 still-to-write tokens = 328 > 300 -> admitted (free 26 blocks = 416).
    # C: rem = 416 - 200 - 200 = 16 <= 300 -> refused until A and B finish; nobody is ever preempted.
    # vLLM V1 admits all three (it reserves nothing ahead) and must preempt when they grow past 40 blocks.
    trace = simulate(make_config("sglang", 512, num_gpu_blocks=40), THREE_LONG_ANSWERS)
    assert _steps(trace, 2) == [[(0, 0, 100), (1, 0, 100)], [(0, 0, 1), (1, 0, 1)]]
    a, b, c = trace.requests
    assert c.first_scheduled_s == a.finish_s == b.finish_s
    assert sum(r.num_preemptions for r in trace.requests) == 0
    v1 = simulate(make_config("chunked", 512, num_gpu_blocks=40), THREE_LONG_ANSWERS)
    assert _steps(v1, 1) == [[(0, 0, 100), (1, 0, 100), (2, 0, 100)]]
    assert sum(r.num_preemptions for r in v1.requests) > 0


def _decoding(rid: int, prompt: int, outputs_done: int, max_new: int = 50) -> SeqState:
    """A decode-ready sequence: everything but its newest token is in the cache."""
    seq = SeqState(request=Request(rid, 0.0, prompt, max_new), num_output_tokens=outputs_done)
    seq.num_computed_tokens = seq.num_tokens - 1
    return seq


def _sglang_ctx(running: list[SeqState], num_blocks: int) -> SchedContext:
    kv = CountingKvManager(num_blocks, 16)
    for seq in running:
        assert kv.allocate(seq.key, 0, seq.num_computed_tokens)
    return SchedContext(running=list(running), waiting=deque(), kv=kv, scheduler=SchedulerConfig("sglang", 512),
                        knobs=Knobs(512, 256, 0, True, True, 8192), emit=lambda event: None,
                        victim=sglang.fewest_outputs_victim)


def test_sglang_new_token_ratio_decays_per_decode_step_and_resets_when_idle():
    # Scheduler.update_running_batch: new_token_ratio = max(ratio - decay, min_ratio), decay = (0.7 - 0.098) / 600.
    ctx = _sglang_ctx([_decoding(0, 100, 3)], num_blocks=100)
    for _ in range(10):
        plan = sglang.schedule_sglang(ctx)
        assert [(s.key, n) for s, n in plan.items] == [((0, 0), 1)]
    assert ctx.policy_state["new_token_ratio"] == pytest.approx(0.7 - 10 * (0.7 - 0.7 * 0.14) / 600)
    ctx.running.clear()
    ctx.waiting.append(SeqState(request=Request(1, 0.0, 20, 5)))
    sglang.schedule_sglang(ctx)  # idle engine: self.new_token_ratio = self.init_new_token_ratio
    assert ctx.policy_state["new_token_ratio"] == pytest.approx(0.7)


def test_sglang_retract_decode_takes_fewest_outputs_ties_longest_input_and_reestimates_the_ratio():
    # S1: 108 + 5 outputs, S2: 303 + 2, S3: 207 + 2. Each has 16k tokens cached, so each next token needs a new
    # block (3), but only 2 of 41 blocks are free -> ScheduleBatch.retract_decode. Sorted by (outputs, -input):
    # S2 and S3 tie on 2 outputs; S2's input is longer -> S2 goes. Its 19 blocks free 2 + 19 = 21 blocks = 336
    # tokens >= 20 x 2 remaining, so one retraction is enough. Ratio = (5 + 2 + 20 x 2) / (50 + 50) = 0.47.
    s1, s2, s3 = _decoding(0, 108, 5), _decoding(1, 303, 2), _decoding(2, 207, 2)
    ctx = _sglang_ctx([s1, s2, s3], num_blocks=7 + 19 + 13 + 2)
    plan = sglang.schedule_sglang(ctx)
    assert plan.preempted == [s2] and list(ctx.waiting) == [s2]
    assert [(s.key, n) for s, n in plan.items] == [((0, 0), 1), ((2, 0), 1)]
    assert ctx.policy_state["new_token_ratio"] == pytest.approx(0.47)


# --- TensorRT-LLM ---------------------------------------------------------------------------------------------------
def test_trtllm_guaranteed_no_evict_reserves_every_request_to_completion():
    # GuaranteedNoEvictScheduler: A needs 19 blocks to completion (7 now) -> admitted; B: free 33 - A's 12 still to
    # come = 21 >= 19 -> admitted; C: free 26 - 12 - 12 = 2 < 19 -> waits for A and B. Nothing is ever paused.
    trace = simulate(make_config("trtllm", None, num_gpu_blocks=40), THREE_LONG_ANSWERS)
    assert _steps(trace, 1) == [[(0, 0, 100), (1, 0, 100)]]
    a, b, c = trace.requests
    assert c.first_scheduled_s == a.finish_s and sum(r.num_preemptions for r in trace.requests) == 0


def test_trtllm_max_utilization_admits_greedily_and_pauses_the_newest():
    # MaxUtilizationScheduler: all three prompts fit now (21 blocks) -> admitted together; when their growth runs
    # the 40 blocks out, the last started (C) is paused and recomputed later.
    config = _with(make_config("trtllm", None, num_gpu_blocks=40), trtllm_capacity_policy="max-utilization")
    trace = simulate(config, THREE_LONG_ANSWERS)
    assert _steps(trace, 1) == [[(0, 0, 100), (1, 0, 100), (2, 0, 100)]]
    preempted = [e.request_id for s in trace.steps for e in s.events if isinstance(e, Preempted)]
    assert preempted[0] == 2 and all(r.finish_s is not None for r in trace.requests)


def test_trtllm_without_chunked_context_runs_a_prompt_whole_and_with_it_in_block_sized_chunks():
    reqs = make_requests([(0.0, 1000, 2)])
    whole = simulate(make_config("trtllm", 512), reqs)
    assert whole.requests[0].rejected_reason and "does not chunk" in whole.requests[0].rejected_reason
    chunked = simulate(_with(make_config("trtllm", 500), trtllm_chunked_context=True), reqs)
    # Chunks are whole KV blocks (chunk unit = tokens_per_block = 16): 496, 496, then the last 8.
    assert [n for step in _steps(chunked) for _, _, n in step][:3] == [496, 496, 8]


def test_trtllm_takes_the_whole_prompts_blocks_at_its_first_context_chunk():
    # kvCacheManager.cpp KVCacheManager::getNeededBlocksOneStep: a request in its first context chunk needs the
    # blocks of its whole prompt (mPromptLen), and addSequence allocates them for the whole inputLength; later chunks
    # need none. A 200-token prompt in 64-token chunks holds its 13 blocks from the first chunk on (not 4, 8, 12, 13).
    config = _with(make_config("trtllm", 64), trtllm_chunked_context=True)
    trace = simulate(config, make_requests([(0.0, 200, 2)]))
    assert _steps(trace, 4) == [[(0, 0, 64)], [(0, 0, 64)], [(0, 0, 64)], [(0, 0, 8)]]
    assert [s.num_used_blocks for s in trace.steps[:4]] == [13, 13, 13, 13]
    # MaxUtilizationScheduler admits on getNeededBlocksOneStep: B (176 tokens, 11 blocks) would fit a first chunk of
    # 48 tokens (3 blocks) next to A (64 + 30 tokens, 5 then 6 blocks) in 12 blocks, but not its whole prompt, so it
    # waits for A to finish instead of starting and being paused.
    config = _with(make_config("trtllm", 64, num_gpu_blocks=12), trtllm_chunked_context=True,
                   trtllm_capacity_policy="max-utilization")
    trace = simulate(config, make_requests([(0.0, 64, 30), (0.0, 176, 2)]))
    assert _steps(trace, 2) == [[(0, 0, 64)], [(0, 0, 1)]]
    a, b = trace.requests
    assert b.first_scheduled_s >= a.finish_s and a.num_preemptions == b.num_preemptions == 0


def test_trtllm_delays_a_request_that_can_reuse_blocks_another_context_of_the_step_produces():
    # capacityScheduler.cpp beneficialToSkip: B's first block missing from the reuse tree (the shared prefix's first)
    # is the one A, scheduled before it in this step, will produce, so B is passed over (`continue`: C behind it still
    # starts); A's blocks are stored when its context is done (KVCacheManager::storeContextBlocks), so B starts next
    # step and reuses the 64-token prefix. Keyed at scheduling (vLLM's rule) B would start at once with the hit.
    a = Request(0, 0.0, 74, 3, segments=(Segment("S", 64), Segment("uA", 10)))
    b = Request(1, 0.0, 74, 3, segments=(Segment("S", 64), Segment("uB", 10)))
    c = Request(2, 0.0, 74, 3, segments=(Segment("T", 64), Segment("uC", 10)))
    trace = simulate(make_config("trtllm", 512, prefix_caching=True), (a, b, c))
    assert _steps(trace, 2) == [[(0, 0, 74), (2, 0, 74)], [(0, 0, 1), (2, 0, 1), (1, 0, 10)]]
    assert [r.prefix_hit_tokens for r in trace.requests] == [0, 64, 0]
    # A chunked context still running (prefillWithChunkedContextsAlreadyExecuting) holds its first new block too, and
    # its blocks are not reusable before its last chunk: B, arriving during A's first chunk, waits for it to end,
    # then reuses the whole 192-token prefix A stored.
    a = Request(0, 0.0, 200, 3, segments=(Segment("S", 192), Segment("uA", 8)))
    b = Request(1, 0.001, 200, 3, segments=(Segment("S", 192), Segment("uB", 8)))
    config = _with(make_config("trtllm", 64, prefix_caching=True), trtllm_chunked_context=True)
    trace = simulate(config, (a, b))
    assert _steps(trace, 5) == [[(0, 0, 64)], [(0, 0, 64)], [(0, 0, 64)], [(0, 0, 8)], [(0, 0, 1), (1, 0, 8)]]
    assert [r.prefix_hit_tokens for r in trace.requests] == [0, 192]


# --- prefix caching and parallel sampling ----------------------------------------------------------------------------
def test_same_batch_requests_share_blocks_registered_at_schedule_time():
    # KVCacheManager.allocate_slots -> cache_blocks at scheduling: A's 4 full shared blocks get their keys in step
    # 0, so B, admitted later in the same step, hits 64 tokens and computes only its 10-token tail.
    a = Request(0, 0.0, 74, 2, segments=(Segment("S", 64), Segment("uA", 10)))
    b = Request(1, 0.0, 74, 2, segments=(Segment("S", 64), Segment("uB", 10)))
    trace = simulate(make_config("chunked", 512, prefix_caching=True), (a, b))
    assert _steps(trace, 1) == [[(0, 0, 74), (1, 0, 10)]]
    assert [r.prefix_hit_tokens for r in trace.requests] == [0, 64]


def test_v1_parallel_sampling_children_share_full_prompt_blocks_through_the_prefix_cache():
    # vLLM V1 ParentRequest: n = 3 child requests. Child 0 computes the 40-token prompt and registers its 2 full
    # blocks at scheduling; children 1 and 2 hit them (capped at 39 tokens -> 2 blocks) and compute the last 8.
    trace = simulate(make_config("chunked", 512, prefix_caching=True), (Request(0, 0.0, 40, 4, n_samples=3),))
    assert _steps(trace, 2) == [[(0, 0, 40), (0, 1, 8), (0, 2, 8)], [(0, 0, 1), (0, 1, 1), (0, 2, 1)]]
    assert trace.requests[0].prefix_hit_tokens == 64 and trace.requests[0].num_generated_tokens == 12


@pytest.mark.parametrize("mode", ["v1-children", "v0-fork-cow"])
def test_every_sample_counts_against_max_num_seqs_at_admission(mode):
    # Two requests at t=0, n=3 and n=1, max_num_seqs 3: the first request's three samples fill the limit, so the
    # second waits (before this rule, 4 sequences ran).
    reqs = (Request(0, 0.0, 100, 5, n_samples=3), Request(1, 0.0, 100, 5))
    trace = simulate(make_config("chunked", 512, max_num_seqs=3, parallel_sampling=mode), reqs)
    assert max(s.num_running for s in trace.steps) == 3
    assert trace.requests[1].first_scheduled_s > 0 and all(r.finish_s is not None for r in trace.requests)


# --- defaults and refusals -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("policy, gpu, model, budget, expected", [
    ("chunked", "h100-sxm", "llama-3-8b", None, (8192, 1024)),  # get_batch_defaults: >= 70 GiB, not A100
    ("chunked", "a100-80gb", "llama-3-8b", None, (2048, 256)),  # A100 excluded (vLLM PR #17885)
    ("chunked", "h100-sxm", "llama-3-8b", 512, (512, 512)),  # max_num_seqs = min(1024, max_num_batched_tokens)
    ("vllm-nochunk", "h100-sxm", "mistral-7b", None, (32768, 1024)),  # no chunking: max_model_len
    ("monolithic", "l40s", "llama-3-8b", None, (8192, 256)),  # V0: max(max_model_len, 2048), 256
    ("sglang", "l40s", "llama-3-8b", None, (4096, None)),  # chunked_prefill_size: 40-60 GiB -> 4096
    ("sglang", "h200", "llama-3-8b", None, (8192, None)),  # 90-160 GiB -> 8192
    ("trtllm", "h100-sxm", "llama-3-8b", None, (8192, 2048)),  # BuildConfig max_num_tokens, max_batch_size
])
def test_per_engine_per_gpu_defaults(policy, gpu, model, budget, expected):
    config = dataclasses.replace(make_config(policy, budget), model=get_model(model), gpu=get_gpu(gpu))
    knobs = resolve_knobs(config, 10_000)
    assert knobs.max_num_batched_tokens == expected[0]
    if expected[1] is not None:
        assert knobs.max_num_seqs == expected[1]
    else:  # SGLang: min(max_total_num_tokens // 2, request pool); 160,000 tokens of cache -> 4,096 requests
        assert knobs.max_num_seqs == min(10_000 * 16 // 2, 4096)


@pytest.mark.parametrize("policy, budget, seqs, message", [
    ("vllm-nochunk", 4096, None, r"max_num_batched_tokens \(4096\) is smaller than max_model_len \(8192\)"),
    ("chunked", 256, 512, r"max_num_batched_tokens \(256\) must be greater than or equal to max_num_seqs \(512\)"),
])
def test_configurations_vllm_refuses_are_refused_with_its_reason(policy, budget, seqs, message):
    with pytest.raises(InputError, match=message):
        simulate(make_config(policy, budget, max_num_seqs=seqs), make_requests([(0.0, 10, 2)]))


def test_trtllm_has_no_prefill_threshold_so_a_cap_below_a_block_cannot_starve_a_prompt():
    # TRT-LLM's chunks are whole KV blocks (tokens_per_block) and it has no long_prefill_token_threshold: a vLLM cap
    # of 24 tokens with 32-token blocks once rounded every chunk down to 0 and the run never ended (found by the
    # generated-workload census). The knob resolves to 0 for trtllm, with a note.
    config = _with(make_config("trtllm", 64, threshold=24, block_size=32), trtllm_chunked_context=True)
    assert resolve_knobs(config, 1000).long_prefill_token_threshold == 0
    trace = simulate(config, make_requests([(0.0, 200, 3)]))
    assert [n for step in _steps(trace) for (_, _, n) in step][:4] == [64, 64, 64, 8]  # 200 = 3 x 64 + 8
    assert trace.requests[0].finish_s is not None
