"""Pure reducers over a Trace: latency distributions, throughput, utilisation, SLO attainment and goodput.

Invariant: percentiles are numpy's default ("linear", Hyndman–Fan type 7) over all finished requests (TTFT, E2E,
TPOT, queueing) or over every token gap (TBT); an empty sample gives None, never a made-up number.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Iterable

import numpy as np

from chunkviz.simulator.trace import Trace

PERCENTILE_METHOD = "linear"


@dataclass(frozen=True, slots=True)
class Dist:
    mean: float | None
    p50: float | None
    p90: float | None
    p99: float | None
    max: float | None
    count: int


def dist(values: Iterable[float] | np.ndarray) -> Dist:
    arr = values if isinstance(values, np.ndarray) else np.fromiter(values, dtype=np.float64)
    if arr.size == 0:
        return Dist(None, None, None, None, None, 0)
    p50, p90, p99 = np.percentile(arr, [50, 90, 99], method=PERCENTILE_METHOD)
    return Dist(float(arr.mean()), float(p50), float(p90), float(p99), float(arr.max()), int(arr.size))


@dataclass(frozen=True, slots=True)
class Metrics:
    policy: str
    num_requests: int
    num_finished: int
    num_rejected: int
    num_steps: int
    makespan_s: float
    ttft_s: Dist
    tbt_s: Dist
    tpot_s: Dist
    e2e_s: Dist
    queue_s: Dist
    throughput_output_tokens_per_s: float
    throughput_tokens_per_s: float
    throughput_requests_per_s: float
    mfu_mean: float
    mbu_mean: float
    num_preemptions: int
    num_stall_steps: int
    slo_ttft_s: float | None
    slo_tbt_s: float | None
    slo_attainment: float | None
    goodput_requests_per_s: float | None
    prefix_hit_tokens: int
    prefix_hit_rate: float
    # Lookups at re-admissions after a preemption, apart (vLLM PrefixCacheStats counts them as preempted_*).
    prefix_hit_tokens_readmitted: int = 0
    prefix_hit_rate_readmitted: float = 0.0
    # Tokens looked up at first admissions: 0 with prefix caching off, as vLLM records no statistics then
    # (sched_common.admit_one).
    prefix_query_tokens: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _weighted_mean(values: tuple[float, ...], weights: tuple[float, ...]) -> float:
    """Σ v·w / Σ w with the numerator exactly rounded (math.fsum): np.dot goes through BLAS, whose result depends
    on its thread count, so a sweep point on a Dask worker (one BLAS thread) would differ in the last bits."""
    total = sum(weights)
    if total <= 0:
        return 0.0
    products = np.multiply(np.asarray(values, dtype=np.float64), np.asarray(weights, dtype=np.float64))
    return math.fsum(products.tolist()) / total


def summarize(trace: Trace, slo_ttft_s: float | None = None, slo_tbt_s: float | None = None,
              priority: int | None = None) -> Metrics:
    """Metrics of a trace; with SLO targets, a request attains its SLO when its TTFT and every token gap meet them."""
    reqs = [r for r in trace.requests if priority is None or r.priority == priority]
    done = [r for r in reqs if r.finish_s is not None and r.first_token_s is not None]
    makespan = trace.makespan_s
    generated = sum(r.num_generated_tokens for r in reqs)
    prompt_done = sum(r.prompt_tokens for r in done)
    tpot = [(r.finish_s - r.first_token_s) / (r.output_tokens - 1) for r in done if r.output_tokens > 1]
    attained = None
    goodput = None
    if slo_ttft_s is not None or slo_tbt_s is not None:
        ok = [r for r in done
              if (slo_ttft_s is None or r.first_token_s - r.arrival_s <= slo_ttft_s)
              and (slo_tbt_s is None or (r.max_tbt_s or 0.0) <= slo_tbt_s)]
        attained = len(ok) / len(reqs) if reqs else None
        goodput = len(ok) / makespan if makespan > 0 else None
    hit_tokens = sum(r.prefix_hit_tokens for r in reqs)
    # vLLM's definition: hit tokens over queried tokens at first admissions; re-admissions are reported apart.
    query_tokens = sum(r.prefix_query_tokens for r in reqs)
    re_hit = sum(r.prefix_hit_tokens_readmitted for r in reqs)
    re_query = sum(r.prefix_query_tokens_readmitted for r in reqs)
    # A metrics-only trace's gaps are numpy-backed (millions of them); asarray does not copy those.
    gaps = np.asarray(trace.tbt_gaps_s, dtype=np.float64) if priority is None else _gaps_for(trace, priority)
    return Metrics(
        policy=trace.policy, num_requests=len(reqs), num_finished=len(done),
        num_rejected=sum(1 for r in reqs if r.rejected_reason is not None), num_steps=trace.num_steps,
        makespan_s=makespan,
        ttft_s=dist(r.first_token_s - r.arrival_s for r in done), tbt_s=dist(gaps), tpot_s=dist(tpot),
        e2e_s=dist(r.finish_s - r.arrival_s for r in done),
        queue_s=dist(r.first_scheduled_s - r.arrival_s for r in done if r.first_scheduled_s is not None),
        throughput_output_tokens_per_s=generated / makespan if makespan > 0 else 0.0,
        throughput_tokens_per_s=(generated + prompt_done) / makespan if makespan > 0 else 0.0,
        throughput_requests_per_s=len(done) / makespan if makespan > 0 else 0.0,
        mfu_mean=_weighted_mean(trace.step_mfu, trace.step_durations_s),
        mbu_mean=_weighted_mean(trace.step_mbu, trace.step_durations_s),
        num_preemptions=sum(r.num_preemptions for r in reqs), num_stall_steps=trace.num_stall_steps,
        slo_ttft_s=slo_ttft_s, slo_tbt_s=slo_tbt_s, slo_attainment=attained, goodput_requests_per_s=goodput,
        prefix_hit_tokens=hit_tokens, prefix_hit_rate=hit_tokens / query_tokens if query_tokens else 0.0,
        prefix_hit_tokens_readmitted=re_hit, prefix_hit_rate_readmitted=re_hit / re_query if re_query else 0.0,
        prefix_query_tokens=query_tokens,
    )


def _gaps_for(trace: Trace, priority: int) -> list[float]:
    """Token gaps of one priority class (needs per-token times, so detailed traces only)."""
    gaps: list[float] = []
    for r in trace.requests:
        if r.priority != priority or r.token_times_s is None:
            continue
        for times in r.token_times_s:
            gaps.extend(b - a for a, b in zip(times, times[1:]))
    return gaps
