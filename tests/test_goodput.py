"""Goodput under its two definitions: vLLM's benchmark (mean TPOT, TTFT, e2e per request) and strict (every gap)."""

from __future__ import annotations

import pytest

from chunkviz.analysis.goodput import Slo, goodput, meets_strict, meets_vllm_benchmark
from chunkviz.simulator.trace import RequestResult, Trace


def _request(rid: int, first_token_s: float, finish_s: float, output_tokens: int, max_tbt_s: float) -> RequestResult:
    return RequestResult(request_id=rid, arrival_s=0.0, prompt_tokens=100, output_tokens=output_tokens, priority=0,
                         n_samples=1, first_scheduled_s=0.0, first_token_s=first_token_s, finish_s=finish_s,
                         num_generated_tokens=output_tokens, num_preemptions=0, prefix_hit_tokens=0,
                         prefix_query_tokens=100, max_tbt_s=max_tbt_s, rejected_reason=None, token_times_s=None)


def _trace(requests: tuple[RequestResult, ...], makespan_s: float) -> Trace:
    return Trace(policy="chunked", budget_tokens=512, num_gpu_blocks=100, block_size=16, steps=(), requests=requests,
                 num_steps=1, makespan_s=makespan_s, busy_s=makespan_s, tbt_gaps_s=(), step_durations_s=(),
                 step_mfu=(), step_mbu=(), peak_blocks_used=0, blocks_in_use_at_end=0, num_evicted_blocks=0,
                 num_stall_steps=0)


# 11 tokens: TTFT 0.1 s, then 10 gaps over 0.5 s -> mean TPOT 50 ms. Smooth: every gap 50 ms. Stalled: nine gaps of
# 30 ms and one of 230 ms (same mean). Slow: mean TPOT 80 ms.
SMOOTH = _request(0, 0.1, 0.6, 11, 0.05)
STALLED = _request(1, 0.1, 0.6, 11, 0.23)
SLOW = _request(2, 0.1, 0.9, 11, 0.08)


def test_a_stall_passes_the_benchmark_definition_and_fails_the_strict_one():
    slo = Slo(ttft_s=0.2, tbt_s=0.06)
    assert meets_vllm_benchmark(STALLED, slo) and not meets_strict(STALLED, slo)
    assert meets_vllm_benchmark(SMOOTH, slo) and meets_strict(SMOOTH, slo)
    assert not meets_vllm_benchmark(SLOW, slo) and not meets_strict(SLOW, slo)


def test_goodput_counts_good_requests_per_second_of_makespan():
    out = goodput(_trace((SMOOTH, STALLED, SLOW), makespan_s=2.0), Slo(ttft_s=0.2, tbt_s=0.06))
    assert out["goodput_vllm_benchmark_requests_per_s"] == pytest.approx(2 / 2.0)
    assert out["goodput_strict_requests_per_s"] == pytest.approx(1 / 2.0)
    assert out["slo_attainment_vllm_benchmark"] == pytest.approx(2 / 3)
    assert out["slo_attainment_strict"] == pytest.approx(1 / 3)


def test_e2e_slo_and_no_slo():
    trace = _trace((SMOOTH, SLOW), makespan_s=1.0)
    assert goodput(trace, Slo(e2e_s=0.7))["goodput_strict_requests_per_s"] == pytest.approx(1.0)
    assert set(goodput(trace, Slo()).values()) == {None}
