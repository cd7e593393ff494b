"""Scheduler rules on small hand-made cases."""

from __future__ import annotations

import pytest

from chunkviz.errors import InputError
from chunkviz.simulator.engine import simulate
from tests.helpers import make_config, make_requests


def _chunks_of(trace, request_id):
    return [(s.step, c) for s in trace.steps for c in s.chunks if c.request_id == request_id]


def test_chunked_splits_a_prompt_into_budget_sized_chunks():
    # One request, budget 512, prompt 1300 → chunks 512, 512, 276, then one decode per step.
    trace = simulate(make_config("chunked", 512), make_requests([(0.0, 1300, 4)]))
    prefill = [c.num_tokens for _, c in _chunks_of(trace, 0) if c.phase == "prefill"]
    assert prefill == [512, 512, 276]
    decodes = [c for _, c in _chunks_of(trace, 0) if c.phase == "decode"]
    assert len(decodes) == 3  # 4 outputs: the first comes from the last prefill chunk
    assert trace.requests[0].num_generated_tokens == 4


def test_chunked_decodes_first_and_budget_respected():
    # Three chats decoding when a 3000-token prompt arrives: every later step carries the 3 decodes plus a
    # 509-token chunk (512 − 3), so decodes never stall.
    reqs = make_requests([(0.0, 100, 60), (0.0, 100, 60), (0.0, 100, 60), (0.05, 3000, 5)])
    trace = simulate(make_config("chunked", 512), reqs)
    long_chunks = [c.num_tokens for _, c in _chunks_of(trace, 3) if c.phase == "prefill"]
    assert long_chunks[0] == 509 and sum(long_chunks) == 3000
    for step in trace.steps:
        assert sum(c.num_tokens for c in step.chunks) <= 512
        phases = [c.phase for c in step.chunks]
        assert phases == sorted(phases)  # "decode" < "prefill": all decodes come before any chunk
    assert trace.num_stall_steps == 0


def test_monolithic_prefill_step_runs_no_decodes_and_stalls_them():
    reqs = make_requests([(0.0, 100, 60), (0.0, 100, 60), (0.05, 3000, 5)])
    trace = simulate(make_config("monolithic", None), reqs)
    for step in trace.steps:
        phases = {c.phase for c in step.chunks}
        assert phases in ({"prefill"}, {"decode"})
    stall_steps = [s for s in trace.steps if s.num_stalled_decodes]
    assert len(stall_steps) == 1 and stall_steps[0].chunks[0].num_tokens == 3000
    assert trace.budget_tokens == 8192  # vLLM's rule without chunking: max(max_model_len, 2048)


def test_monolithic_budget_below_max_model_len_is_refused_as_vllm_does():
    # vLLM SchedulerConfig._verify_args: without chunked prefill, max_num_batched_tokens < max_model_len is refused.
    with pytest.raises(InputError, match=r"max_num_batched_tokens \(1024\) is smaller than max_model_len \(8192\)"):
        simulate(make_config("monolithic", 1024), make_requests([(0.0, 100, 5)]))


def test_a_policy_that_does_not_chunk_rejects_prompt_over_budget_with_reason():
    trace = simulate(make_config("static", 1024), make_requests([(0.0, 2000, 5), (0.0, 100, 5)]))
    assert "max_num_batched_tokens=1024" in trace.requests[0].rejected_reason
    assert trace.requests[1].finish_s is not None


def test_long_prefill_threshold_caps_chunks():
    trace = simulate(make_config("chunked", 2048, threshold=256), make_requests([(0.0, 1000, 2), (0.0, 1000, 2)]))
    sizes = [c.num_tokens for s in trace.steps for c in s.chunks if c.phase == "prefill"]
    assert max(sizes) == 256
    # Both prompts progress in the first step instead of one hogging the budget.
    assert {c.request_id for c in trace.steps[0].chunks} == {0, 1}


def test_max_num_seqs_is_honoured():
    reqs = make_requests([(0.0, 50, 30)] * 6)
    trace = simulate(make_config("chunked", 512, max_num_seqs=2), reqs)
    assert max(s.num_running for s in trace.steps) <= 2
    assert all(r.finish_s is not None for r in trace.requests)


def test_sglang_stalls_decodes_until_the_chunked_prompt_is_done_unless_mixed():
    reqs = make_requests([(0.0, 100, 60), (0.05, 3000, 5)])
    plain = simulate(make_config("sglang", 512), reqs)
    prefill_steps = [s for s in plain.steps if any(c.request_id == 1 and c.phase == "prefill" for c in s.chunks)]
    assert len(prefill_steps) == 6  # ceil(3000 / 512)
    assert all(s.num_stalled_decodes == 1 for s in prefill_steps)
    mixed = simulate(make_config("sglang", 512, mixed=True), reqs)
    assert mixed.num_stall_steps == 0


def test_static_batching_waits_for_the_batch_to_drain():
    reqs = make_requests([(0.0, 100, 50), (0.0, 100, 5), (0.01, 100, 5)])
    trace = simulate(make_config("static", 4096), reqs)
    first_sched = {r.request_id: r.first_scheduled_s for r in trace.requests}
    assert first_sched[2] >= trace.requests[0].finish_s  # the late one waits for the long one to finish


def test_preemption_recomputes_and_everything_finishes():
    # 40 blocks of 16 tokens = 640 tokens of KV: four requests of 100 + 200 tokens cannot all stay resident.
    reqs = make_requests([(0.0, 100, 200)] * 4)
    trace = simulate(make_config("chunked", 512, num_gpu_blocks=40), reqs)
    assert sum(r.num_preemptions for r in trace.requests) > 0
    assert all(r.finish_s is not None for r in trace.requests)
    assert trace.blocks_in_use_at_end == 0
    assert trace.peak_blocks_used <= 40
    preempted = [e for s in trace.steps for e in s.events if e.kind == "Preempted"]
    # vLLM v1: the victim is the most recently admitted running request.
    assert preempted[0].request_id == 3


def test_request_that_cannot_fit_alone_is_rejected_not_retried():
    trace = simulate(make_config("chunked", 512, num_gpu_blocks=10), make_requests([(0.0, 500, 10), (0.0, 50, 5)]))
    assert "KV blocks" in trace.requests[0].rejected_reason
    assert trace.requests[1].finish_s is not None


def test_reserve_allocation_takes_the_whole_prompt_at_admission():
    trace = simulate(make_config("chunked", 512, allocation="reserve", num_gpu_blocks=1000),
                     make_requests([(0.0, 1600, 2)]))
    assert trace.steps[0].num_used_blocks == 100  # 1600 / 16, although only 512 tokens were computed
    inc = simulate(make_config("chunked", 512, num_gpu_blocks=1000), make_requests([(0.0, 1600, 2)]))
    assert inc.steps[0].num_used_blocks == 32


def test_sglang_chunked_prompt_that_outgrows_memory_does_not_livelock():
    # Found by fuzzing: a 724-token prompt chunked at 200 tokens kept preempting itself while the decode it had
    # to wait for never ran. SGLang admits a prompt only when all of it fits, so this must finish.
    reqs = make_requests([(0.329, 727, 16), (0.347, 2090, 33), (0.364, 1826, 27), (0.461, 724, 21),
                          (0.719, 2105, 36), (1.816, 1736, 34)])
    trace = simulate(make_config("sglang", 4096, num_gpu_blocks=80, threshold=200, max_num_steps=5000), reqs)
    assert all((r.finish_s is None) != (r.rejected_reason is None) for r in trace.requests)
    assert trace.num_steps < 2000
