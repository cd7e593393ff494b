"""Goodput under its two definitions, named so they cannot be confused.

Invariant: both count finished requests that meet every SLO given, divided by the run's makespan; they differ only
in how the token pace is judged. vLLM's benchmark (benchmarks/benchmark_serving.py calculate_metrics, --goodput
ttft:… tpot:… e2el:…) judges each request's MEAN time per output token, (e2e - TTFT) / (output tokens - 1);
the strict definition (DistServe-style per-token SLO) judges EVERY gap between two tokens of the request. A
request with one long stall can pass the first and fail the second. No SLO given: None for both.
"""

from __future__ import annotations

from dataclasses import dataclass

from chunkviz.simulator.trace import RequestResult, Trace


@dataclass(frozen=True, slots=True)
class Slo:
    ttft_s: float | None = None
    tbt_s: float | None = None  # the token-pace target: mean TPOT (benchmark) or every gap (strict)
    e2e_s: float | None = None

    @property
    def any(self) -> bool:
        return self.ttft_s is not None or self.tbt_s is not None or self.e2e_s is not None


def _tpot_s(r: RequestResult) -> float:
    """benchmark_serving: tpot = (latency - ttft) / (output_len - 1), 0 for one-token outputs."""
    return (r.finish_s - r.first_token_s) / (r.output_tokens - 1) if r.output_tokens > 1 else 0.0


def _meets_common(r: RequestResult, slo: Slo) -> bool:
    return ((slo.ttft_s is None or r.first_token_s - r.arrival_s <= slo.ttft_s)
            and (slo.e2e_s is None or r.finish_s - r.arrival_s <= slo.e2e_s))


def meets_vllm_benchmark(r: RequestResult, slo: Slo) -> bool:
    return _meets_common(r, slo) and (slo.tbt_s is None or _tpot_s(r) <= slo.tbt_s)


def meets_strict(r: RequestResult, slo: Slo) -> bool:
    return _meets_common(r, slo) and (slo.tbt_s is None or (r.max_tbt_s or 0.0) <= slo.tbt_s)


def goodput(trace: Trace, slo: Slo) -> dict[str, float | None]:
    """Both goodputs (requests/s) and both attainments (share of all requests)."""
    keys = ("goodput_vllm_benchmark_requests_per_s", "goodput_strict_requests_per_s",
            "slo_attainment_vllm_benchmark", "slo_attainment_strict")
    if not slo.any:
        return dict.fromkeys(keys)
    done = [r for r in trace.requests if r.finish_s is not None and r.first_token_s is not None]
    bench = sum(1 for r in done if meets_vllm_benchmark(r, slo))
    strict = sum(1 for r in done if meets_strict(r, slo))
    span, total = trace.makespan_s, len(trace.requests)
    return dict(zip(keys, (bench / span if span > 0 else None, strict / span if span > 0 else None,
                           bench / total if total else None, strict / total if total else None)))
