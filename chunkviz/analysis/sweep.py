"""Sweeps of the token budget (max_num_batched_tokens) and the load over one scenario, with a monolithic baseline.

Invariant: every point is one metrics-only simulation of the same requests in which only the budget or the arrival
rate differs, so points differ by the knob alone; the result is a pure, deterministic function of its arguments.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Callable, Iterable, Sequence

from chunkviz.config import DEFAULT_POLICY
from chunkviz.errors import InputError
from chunkviz.analysis.metrics import dist, summarize
from chunkviz.request import PRIORITY_BATCH, PRIORITY_INTERACTIVE
from chunkviz.analysis.scenario import Scenario, run_scenario
from chunkviz.simulator.policies.registry import BASELINE_POLICY
from chunkviz.simulator.trace import Trace

DEFAULT_BUDGETS_TOKENS: tuple[int, ...] = tuple(2**k for k in range(6, 15))  # 64 … 16384
MAX_SWEEP_POINTS = 32  # simulations per sweep, baselines included
MAX_SWEEP_REQUESTS = 400  # the app's limit per simulation
MAX_LOAD_MULTIPLIER = 16.0
Slo = tuple[float | None, float | None]  # (TTFT target, TBT target) in seconds


@dataclass(frozen=True, slots=True)
class SweepPoint:
    """One simulation: a budget (None = the monolithic baseline) at one load, reduced to the figures a sweep plots."""

    budget_tokens: int | None
    load_multiplier: float
    qps: float | None  # nominal arrival rate after scaling; None for a loaded trace
    policy: str
    ttft_p50_s: float | None
    ttft_p99_s: float | None
    tbt_p50_s: float | None
    tbt_p99_s: float | None
    throughput_output_tokens_per_s: float
    goodput_requests_per_s: float | None  # requests meeting both SLO targets, per second of makespan
    slo_attainment: float | None  # share of requests meeting both SLO targets
    slo_ttft_s: float | None  # the targets goodput and attainment were counted for
    slo_tbt_s: float | None
    num_preemptions: int
    num_rejected: int
    num_steps: int
    num_finished: int


@dataclass(frozen=True, slots=True)
class ClassPoint:
    """One priority class (0 interactive, 1 batch) inside one simulation of the sweep."""

    priority: int
    budget_tokens: int | None
    load_multiplier: float
    num_requests: int
    ttft_p50_s: float | None
    ttft_p99_s: float | None
    worst_tbt_p99_s: float | None  # p99 over the class's requests of each one's longest gap between tokens
    slo_attainment: float | None
    throughput_tokens_per_s: float  # the class's prompt + output tokens over its span (first arrival → last finish)


@dataclass(frozen=True, slots=True)
class SweepResult:
    points: tuple[SweepPoint, ...]  # per load: the budgets in ascending order, then the monolithic baseline
    class_points: tuple[ClassPoint, ...]
    budgets_tokens: tuple[int, ...]
    load_multipliers: tuple[float, ...]
    slo_ttft_s: float | None
    slo_tbt_s: float | None

    def chunked(self, load_multiplier: float) -> tuple[SweepPoint, ...]:
        return tuple(p for p in self.points if p.load_multiplier == load_multiplier and p.budget_tokens is not None)

    def baseline(self, load_multiplier: float) -> SweepPoint | None:
        return next((p for p in self.points if p.load_multiplier == load_multiplier and p.budget_tokens is None), None)


def _checked_axes(budgets: Iterable[int], loads: Iterable[float]) -> tuple[tuple[int, ...], tuple[float, ...]]:
    budgets_t, loads_t = tuple(sorted(set(budgets))), tuple(sorted(set(loads)))
    if not budgets_t or not loads_t:
        raise InputError("a sweep needs at least one budget and one load")
    if any(isinstance(b, bool) or not isinstance(b, int) or b < 1 for b in budgets_t):
        raise InputError("every budget must be a whole number of tokens >= 1")
    if any(not (isinstance(x, (int, float)) and math.isfinite(x) and 0 < x <= MAX_LOAD_MULTIPLIER) for x in loads_t):
        raise InputError(f"every load multiplier must be a number in (0, {MAX_LOAD_MULTIPLIER:g}]")
    num_points = (len(budgets_t) + 1) * len(loads_t)
    if num_points > MAX_SWEEP_POINTS:
        raise InputError(f"{num_points} simulations is over the sweep limit of {MAX_SWEEP_POINTS}; "
                         "use fewer budgets or loads")
    return budgets_t, loads_t


def with_load(scenario: Scenario, load_multiplier: float) -> Scenario:
    """The scenario with arrivals `load_multiplier` times as fast (the same requests, squeezed in time)."""
    if load_multiplier == 1.0:
        return scenario
    if scenario.explicit_requests is not None:
        squeezed = tuple(replace(r, arrival_s=r.arrival_s / load_multiplier) for r in scenario.explicit_requests)
        return replace(scenario, explicit_requests=squeezed)
    return replace(scenario, workload=replace(scenario.workload, qps=scenario.workload.qps * load_multiplier))


def has_batch_class(scenario: Scenario) -> bool:
    return any(r.priority == PRIORITY_BATCH for r in scenario.requests())


def with_batch_class(scenario: Scenario, batch_fraction: float = 0.3) -> Scenario:
    """The scenario itself if it already has batch requests, else with `batch_fraction` of them marked batch.

    Priority does not change scheduling, and the generator draws the class labels whatever the fraction, so
    arrivals and lengths stay the same. Presets that ignore the fraction still come back without a batch class.
    """
    if has_batch_class(scenario) or scenario.explicit_requests is not None:
        return scenario
    return replace(scenario, workload=replace(scenario.workload, batch_fraction=batch_fraction))



def _point(trace: Trace, budget: int | None, load: float, qps: float | None, slo: Slo) -> SweepPoint:
    m = summarize(trace, *slo)
    return SweepPoint(budget, load, qps, trace.policy, m.ttft_s.p50, m.ttft_s.p99, m.tbt_s.p50, m.tbt_s.p99,
                      m.throughput_output_tokens_per_s, m.goodput_requests_per_s, m.slo_attainment, *slo,
                      m.num_preemptions, m.num_rejected, m.num_steps, m.num_finished)


def _class_point(trace: Trace, priority: int, budget: int | None, load: float, slo: Slo) -> ClassPoint | None:
    reqs = [r for r in trace.requests if r.priority == priority]
    if not reqs:
        return None
    m = summarize(trace, *slo, priority=priority)
    done = [r for r in reqs if r.finish_s is not None]
    span_s = max(r.finish_s or 0.0 for r in done) - min(r.arrival_s for r in reqs) if done else 0.0
    tokens = sum(r.prompt_tokens + r.num_generated_tokens for r in done)
    worst = dist(r.max_tbt_s for r in done if r.max_tbt_s is not None)
    return ClassPoint(priority, budget, load, len(reqs), m.ttft_s.p50, m.ttft_s.p99, worst.p99, m.slo_attainment,
                      tokens / span_s if span_s > 0 else 0.0)


def run_sweep(scenario: Scenario, budgets_tokens: Sequence[int] = DEFAULT_BUDGETS_TOKENS,
              load_multipliers: Sequence[float] = (1.0,), slo_ttft_s: float | None = None,
              slo_tbt_s: float | None = None, policy: str = DEFAULT_POLICY,
              on_progress: Callable[[int, int], None] | None = None,
              run: Callable[[Scenario], Trace] = run_scenario,
              run_many: Callable[[list[Scenario], Callable[[int, int], None] | None], list[Trace]] | None = None,
              ) -> SweepResult:
    """Simulate every (budget, load) with `policy` plus a monolithic baseline per load; `run` may be a cached runner,
    `run_many` runs all points at once (in parallel, reporting progress itself) and returns their traces in order."""
    budgets, loads = _checked_axes(budgets_tokens, load_multipliers)
    if len(scenario.requests()) > MAX_SWEEP_REQUESTS:
        raise InputError(f"a sweep takes at most {MAX_SWEEP_REQUESTS} requests per simulation")
    base = replace(scenario, record_detail=False)
    slo = (slo_ttft_s, slo_tbt_s)
    jobs = [(load, b) for load in loads for b in (*budgets, None)]
    points: list[SweepPoint] = []
    class_points: list[ClassPoint] = []
    scenarios = [with_load(base, load).with_policy(policy if budget is not None else BASELINE_POLICY, budget)
                 for load, budget in jobs]
    traces = run_many(scenarios, on_progress) if run_many is not None else None
    for done, ((load, budget), scenario) in enumerate(zip(jobs, scenarios), start=1):
        loaded = with_load(base, load)
        trace = traces[done - 1] if traces is not None else run(scenario)
        qps = None if loaded.explicit_requests is not None else loaded.workload.qps
        points.append(_point(trace, budget, load, qps, slo))
        class_points.extend(cp for cp in (_class_point(trace, priority, budget, load, slo)
                                          for priority in (PRIORITY_INTERACTIVE, PRIORITY_BATCH)) if cp is not None)
        if on_progress is not None and traces is None:
            on_progress(done, len(jobs))
    return SweepResult(tuple(points), tuple(class_points), budgets, loads, slo_ttft_s, slo_tbt_s)


def pareto_frontier(points: Iterable[SweepPoint], latency_key: str = "tbt_p99_s",
                    throughput_key: str = "throughput_output_tokens_per_s") -> tuple[SweepPoint, ...]:
    """Points no other point beats on both axes (lower latency, higher throughput), by latency ascending."""
    pts = [p for p in points if getattr(p, latency_key) is not None]

    def dominates(a: SweepPoint, b: SweepPoint) -> bool:
        la, lb = getattr(a, latency_key), getattr(b, latency_key)
        ta, tb = getattr(a, throughput_key), getattr(b, throughput_key)
        return la <= lb and ta >= tb and (la < lb or ta > tb)

    front = [p for p in pts if not any(dominates(q, p) for q in pts)]
    return tuple(sorted(front, key=lambda p: (getattr(p, latency_key), -getattr(p, throughput_key))))


def best_for_slo(points: Iterable[SweepPoint], slo_ttft_s: float | None,
                 slo_tbt_s: float | None) -> SweepPoint | None:
    """The point with the highest goodput (ties: higher throughput, then smaller budget); None if nobody meets it."""
    pts = list(points)
    if any((p.slo_ttft_s, p.slo_tbt_s) != (slo_ttft_s, slo_tbt_s) for p in pts):
        raise ValueError("these points were counted for other SLO targets; run the sweep with these targets")
    meeting = [p for p in pts if p.goodput_requests_per_s]
    return max(meeting, key=lambda p: (p.goodput_requests_per_s or 0.0, p.throughput_output_tokens_per_s,
                                       -(p.budget_tokens or math.inf)), default=None)


def best_budget_for_class(class_points: Iterable[ClassPoint], priority: int) -> ClassPoint | None:
    """The budget that serves one class best by its own goal; the monolithic baseline is not a budget here.

    Interactive: the most requests within the SLO, then the smoothest stream (lowest worst-gap p99), then the
    smaller budget. Batch: the highest class throughput, then the smaller budget. None if nothing qualifies.
    """
    pts = [c for c in class_points if c.priority == priority and c.budget_tokens is not None]
    if priority == PRIORITY_BATCH:
        pts = [c for c in pts if c.throughput_tokens_per_s > 0]
        return max(pts, key=lambda c: (c.throughput_tokens_per_s, -(c.budget_tokens or 0)), default=None)
    pts = [c for c in pts if c.slo_attainment]
    return max(pts, key=lambda c: (c.slo_attainment or 0.0, -(c.worst_tbt_p99_s or 0.0), -(c.budget_tokens or 0)),
               default=None)
