"""Capacity under an SLO: the highest request rate whose simulation meets every latency target.

Invariant: every probe is a pure function of (scenario, rate): the workload's requests are regenerated at that rate
with the scenario's fixed seed (a loaded trace is squeezed or stretched in time instead), so the search is
deterministic and its probes can run anywhere, in any order.

The search (bounded): round 0 probes a geometric grid from qps_min to qps_max; the capacity is the highest probed
rate below the first failing one (so a rate that passes only by luck above a failure is not reported); each later
round probes evenly spaced rates strictly between that rate and the first failure above it, until the gap is
within `tolerance` of the rate or `max_rounds` is spent. Probes of a round run in parallel.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Callable, Sequence

from chunkviz.analysis.metrics import summarize
from chunkviz.analysis.scenario import Scenario, run_scenario
from chunkviz.analysis.sweep import with_load
from chunkviz.errors import InputError
from chunkviz.workloads.generators import MAX_WORKLOAD_QPS

MAX_SLO_S = 3600.0
# A loaded trace is squeezed in time (any rate up to MAX_QPS); a generated workload is regenerated at the probed
# rate, so its search stops at the generator's own limit (workloads/generators.py WorkloadSpec).
MAX_QPS = 100_000.0
# Capacity means a sustainable rate: Sarathi-Serve's capacity search also bounds the median scheduling delay
# (arrival to first schedule) at 2 s (sarathi/benchmark/capacity_search/main.py get_args:
# --scheduling-delay-slo-value 2.0, --scheduling-delay-slo-quantile 0.50), since an overloaded engine's queue grows
# while its running requests' TBT stays low. The `capacity` command applies it unless --slo-queue-p50-ms is given.
SARATHI_QUEUE_P50_S = 2.0


@dataclass(frozen=True, slots=True)
class Slo:
    """Latency targets in seconds; None = not part of the criterion. A missing figure never meets a target."""

    tbt_p99_s: float
    ttft_p50_s: float | None = None
    queue_p50_s: float | None = None

    def __post_init__(self) -> None:
        for name in ("tbt_p99_s", "ttft_p50_s", "queue_p50_s"):
            value = getattr(self, name)
            if value is None and name != "tbt_p99_s":
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
                    math.isfinite(value) and 0 < value <= MAX_SLO_S):
                flag = "--slo-" + name[:-2].replace("_", "-") + "-ms"
                raise InputError(f"{flag} must be a number of milliseconds in (0, {MAX_SLO_S * 1e3:.0f}], "
                                 f"got {value if value is None else value * 1e3!r}")

    def criterion(self) -> str:
        parts = [f"{name[:-2]} <= {getattr(self, name) * 1e3:g} ms"
                 for name in ("tbt_p99_s", "ttft_p50_s", "queue_p50_s") if getattr(self, name) is not None]
        return " and ".join(parts)


@dataclass(frozen=True, slots=True)
class Probe:
    qps: float
    meets_slo: bool
    tbt_p99_s: float | None
    ttft_p50_s: float | None
    queue_p50_s: float | None


@dataclass(frozen=True, slots=True)
class CapacityResult:
    capacity_qps: float | None  # None: even qps_min misses the SLO
    criterion: str
    probes: tuple[Probe, ...]  # by rate
    bound_reached: bool  # every probe up to qps_max met the SLO: the capacity is at least qps_max


def native_qps(scenario: Scenario) -> float:
    """The scenario's arrival rate: the workload's qps, or a loaded trace's requests over its span."""
    if scenario.explicit_requests is None:
        return scenario.workload.qps
    arrivals = [r.arrival_s for r in scenario.explicit_requests]
    span_s = max(arrivals) - min(arrivals) if arrivals else 0.0
    if span_s <= 0:
        raise InputError("a capacity search over a trace needs requests that arrive at different times")
    return (len(arrivals) - 1) / span_s


def at_rate(scenario: Scenario, qps: float) -> Scenario:
    """The scenario at `qps` requests per second, metrics only."""
    base = replace(scenario, record_detail=False)
    if base.explicit_requests is not None:
        return with_load(base, qps / native_qps(base))
    return replace(base, workload=replace(base.workload, qps=qps))


def run_probe(job: tuple[Scenario, float, Slo]) -> Probe:
    """One simulation at one rate (module-level: it is sent to worker processes)."""
    scenario, qps, slo = job
    m = summarize(run_scenario(at_rate(scenario, qps)))
    tbt, ttft, queue = m.tbt_s.p99, m.ttft_s.p50, m.queue_s.p50
    # A rate at which some request is refused carries no load for it: it cannot meet the SLO.
    meets = (m.num_rejected == 0 and tbt is not None and tbt <= slo.tbt_p99_s
             and (slo.ttft_p50_s is None or (ttft is not None and ttft <= slo.ttft_p50_s))
             and (slo.queue_p50_s is None or (queue is not None and queue <= slo.queue_p50_s)))
    return Probe(qps, meets, tbt, ttft, queue)


def max_search_qps(scenario: Scenario) -> float:
    """The highest rate a search may probe: MAX_QPS for a loaded trace, the generator's limit otherwise."""
    return MAX_QPS if scenario.explicit_requests is not None else MAX_WORKLOAD_QPS


def _check_range(qps_min: float, qps_max: float, tolerance: float, probes_per_round: int, max_rounds: int,
                 max_qps: float = MAX_QPS) -> None:
    if not (math.isfinite(qps_min) and math.isfinite(qps_max) and 0 < qps_min < qps_max <= max_qps):
        what = "a loaded trace" if max_qps == MAX_QPS else "a generated workload (a loaded trace goes to 100000)"
        raise InputError(f"need 0 < --qps-min < --qps-max <= {max_qps:g} for {what}, "
                         f"got --qps-min {qps_min:g} and --qps-max {qps_max:g}")
    if not (math.isfinite(tolerance) and 0 < tolerance < 1):
        raise InputError(f"--tolerance must be in (0, 1), got {tolerance:g}")
    if not (2 <= probes_per_round <= 256 and 1 <= max_rounds <= 50):
        raise InputError("--probes-per-round must be in [2, 256] and --max-rounds in [1, 50]")


def _bracket(probes: dict[float, Probe]) -> tuple[float | None, float | None]:
    """(highest rate below the first failure, that first failure), over the rates probed so far."""
    best, first_fail = None, None
    for qps in sorted(probes):
        if not probes[qps].meets_slo:
            first_fail = qps
            break
        best = qps
    return best, first_fail


def find_capacity(scenario: Scenario, slo: Slo, map_fn: Callable[[Callable, Sequence], list],
                  qps_min: float = 0.25, qps_max: float = 256.0, tolerance: float = 0.01,
                  probes_per_round: int = 4, max_rounds: int = 8) -> CapacityResult:
    """Search the rate (see the module docstring); map_fn(run_probe, jobs) runs a round's probes, in order."""
    _check_range(qps_min, qps_max, tolerance, probes_per_round, max_rounds, max_search_qps(scenario))
    ratio = (qps_max / qps_min) ** (1 / (probes_per_round - 1))
    rates = [qps_min * ratio**i for i in range(probes_per_round - 1)] + [qps_max]
    probes: dict[float, Probe] = {}
    for _ in range(max_rounds):  # bounded
        for probe in map_fn(run_probe, [(scenario, q, slo) for q in rates]):
            probes[probe.qps] = probe
        best, fail = _bracket(probes)
        if best is None or fail is None or (fail - best) <= tolerance * best:
            break
        step = (fail - best) / (probes_per_round + 1)
        rates = [best + step * (i + 1) for i in range(probes_per_round)]
    best, fail = _bracket(probes)
    return CapacityResult(best, slo.criterion(), tuple(probes[q] for q in sorted(probes)), fail is None)
