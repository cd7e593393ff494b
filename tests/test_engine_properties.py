"""Hypothesis properties of the whole engine over random workloads."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chunkviz.simulator.policies.registry import POLICY_NAMES
from chunkviz.simulator.engine import simulate
from chunkviz.errors import SimulationLimitError
from chunkviz.workloads.presets import PRESETS, make_workload
from chunkviz.request import Request
from chunkviz.workloads.generators import WorkloadSpec
from tests.helpers import make_config, make_requests

request_lists = st.lists(
    st.tuples(st.floats(0, 2.0, allow_nan=False), st.integers(1, 3000), st.integers(1, 40)), min_size=1, max_size=12,
).map(lambda xs: make_requests(sorted(xs, key=lambda x: x[0])))

# vLLM refuses a budget below max_model_len without chunked prefill (SchedulerConfig._verify_args): its default.
NO_CHUNK_VLLM = ("monolithic", "vllm-nochunk")


def _budget(policy: str, budget: int) -> int | None:
    return None if policy in NO_CHUNK_VLLM else budget


settings.register_profile("ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci")


@given(reqs=request_lists, policy=st.sampled_from(POLICY_NAMES), budget=st.sampled_from([64, 512, 4096]),
       blocks=st.sampled_from([None, 60, 400]), threshold=st.sampled_from([0, 200]))
def test_engine_invariants(reqs, policy, budget, blocks, threshold):
    # A small step bound turns any livelock into a fast failure instead of an out-of-memory crash.
    trace = simulate(make_config(policy, _budget(policy, budget), num_gpu_blocks=blocks, threshold=threshold,
                                 max_num_steps=20_000),
                     reqs)
    for r in trace.requests:
        # Every request either finishes with all its tokens or is rejected with a reason.
        assert (r.finish_s is not None) != (r.rejected_reason is not None)
        if r.finish_s is not None:
            assert r.num_generated_tokens == r.output_tokens * r.n_samples
            assert r.arrival_s <= r.first_scheduled_s <= r.first_token_s <= r.finish_s
    clock = 0.0
    for step in trace.steps:
        assert step.start_s >= clock - 1e-12  # the clock only moves forward
        clock = step.start_s + step.duration_s
        assert 0 < sum(c.num_tokens for c in step.chunks) <= trace.budget_tokens
        assert step.num_used_blocks <= trace.num_gpu_blocks
        keys = [(c.request_id, c.sample_index) for c in step.chunks]
        assert len(keys) == len(set(keys))
        snap = step.snapshot
        assert not set(snap.waiting) & set(snap.running)  # never both waiting and running
    assert trace.blocks_in_use_at_end == 0


@given(reqs=request_lists, policy=st.sampled_from(["chunked", "sglang"]))
def test_prefill_chunks_add_up_to_the_prompt(reqs, policy):
    trace = simulate(make_config(policy, 256), reqs)
    for r in trace.requests:
        if r.finish_s is None or r.num_preemptions:
            continue
        chunks = [c.num_tokens for s in trace.steps for c in s.chunks if c.request_id == r.request_id
                  and c.phase == "prefill"]
        assert sum(chunks) == r.prompt_tokens


@given(reqs=request_lists, policy=st.sampled_from(POLICY_NAMES), blocks=st.sampled_from([None, 80]))
def test_metrics_only_mode_makes_the_same_decisions(reqs, policy, blocks):
    # The counting KV manager (metrics-only) and the paged BlockManager must schedule identically.
    detailed = simulate(make_config(policy, _budget(policy, 512), num_gpu_blocks=blocks, detail=True,
                                    max_num_steps=20_000), reqs)
    fast = simulate(make_config(policy, _budget(policy, 512), num_gpu_blocks=blocks, detail=False), reqs)
    assert fast.steps == ()
    assert fast.step_durations_s == detailed.step_durations_s
    # metrics-only steps are priced through StepCoster.terms, detailed ones through its StepCost: the same figures
    assert (fast.step_mfu, fast.step_mbu) == (detailed.step_mfu, detailed.step_mbu)
    assert fast.num_stall_steps == detailed.num_stall_steps
    assert [dataclasses.replace(r, token_times_s=None) for r in detailed.requests] == list(fast.requests)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_same_seed_same_trace(preset):
    spec = WorkloadSpec(num_requests=24, qps=8.0, prompt_tokens=200, output_tokens=20, seed=3)
    a = simulate(make_config("chunked", 512), make_workload(preset, spec))
    b = simulate(make_config("chunked", 512), make_workload(preset, spec))
    assert a == b and a.to_json() == b.to_json()
    other = make_workload(preset, dataclasses.replace(spec, seed=4))
    assert other != make_workload(preset, spec)


def test_trace_json_round_trips():
    spec = WorkloadSpec(num_requests=10, qps=8.0, prompt_tokens=100, output_tokens=10, seed=1)
    trace = simulate(make_config("chunked", 512, prefix_caching=True), make_workload("shared-system-prompt", spec))
    from chunkviz.simulator.trace import Trace

    assert Trace.from_json(trace.to_json()) == trace


def test_step_limit_stops_with_a_clear_error():
    with pytest.raises(SimulationLimitError, match="max_num_steps=5"):
        simulate(make_config("chunked", 512, max_num_steps=5), make_requests([(0.0, 100, 50)]))


def test_ids_must_be_unique():
    with pytest.raises(ValueError, match="unique"):
        simulate(make_config(), (Request(0, 0.0, 10, 2), Request(0, 0.1, 10, 2)))
