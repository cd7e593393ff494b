"""`python -m chunkviz capacity [simulate flags] --slo-tbt-p99-ms X [--slo-ttft-p50-ms Y] [--slo-queue-p50-ms Z]`:
the highest request rate that meets every given SLO (analysis/capacity.py says how it searches).

Invariant: with --json it prints one object with exactly the keys capacity_qps, criterion, bound_hit and probes (each
probe {qps, meets_slo, tbt_p99_s, ttft_p50_s, queue_p50_s}); bound_hit true means every probe up to --qps-max met
the SLO, so capacity_qps is a lower bound, not the capacity; the criterion always bounds the median queueing delay
(Sarathi-Serve's 2 s unless --slo-queue-p50-ms is given: a rate whose queue grows is not sustainable); the rate flag of
simulate (--qps) is refused, the search sets it; probes of a round run in parallel (--workers, --scheduler-address) with identical results.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import sys
from dataclasses import asdict
from typing import Any

from chunkviz.analysis.capacity import MAX_SLO_S, SARATHI_QUEUE_P50_S, CapacityResult, Slo, find_capacity
from chunkviz.analysis.parallel import check_workers, map_ordered
from chunkviz.cli import simulate as simulate_cli
from chunkviz.cli.sweep import add_executor_flags, simulate_parent
from chunkviz.errors import InputError

# 1 ns: far below any step time the cost model gives (microseconds at least), and far above the underflow of 5e-324.
MIN_SLO_MS = 1e-6


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("capacity", parents=[simulate_parent()], conflict_handler="resolve",
                              help="highest request rate that meets latency SLOs")
    p.add_argument("--slo-tbt-p99-ms", type=float, required=True, help="P99 time between tokens, ms")
    p.add_argument("--slo-ttft-p50-ms", type=float, default=None, help="median time to first token, ms")
    p.add_argument("--slo-queue-p50-ms", type=float, default=None, help="median queueing delay, ms (default: Sarathi-Serve's 2000, so that the rate is sustainable)")
    p.add_argument("--qps-min", type=float, default=0.25, help="lowest rate probed (requests/s)")
    p.add_argument("--qps-max", type=float, default=256.0, help="highest rate probed (the search bound)")
    p.add_argument("--tolerance", type=float, default=0.01, help="stop when the bracket is this fraction of the rate")
    p.add_argument("--max-rounds", type=int, default=8)
    p.add_argument("--probes-per-round", type=int, default=None, help="default: max(4, workers)")
    add_executor_flags(p)
    p.set_defaults(func=run)


def _ms_to_s(name: str, value: float | None) -> float | None:
    if value is None:
        return None
    # The range is checked here, in the flag's own unit, so the message shows the value as typed: 5e-324 ms is 0 s
    # once divided by 1000, and analysis/capacity.py Slo would otherwise report "got 0.0".
    if not (math.isfinite(value) and MIN_SLO_MS <= value <= MAX_SLO_S * 1e3):
        raise InputError(f"--{name} must be a number of milliseconds from {MIN_SLO_MS:g} to {MAX_SLO_S * 1e3:.0f}, "
                         f"got {value!r}")
    return value / 1e3


def _queue_s(value_ms: float | None) -> float:
    """--slo-queue-p50-ms, or Sarathi-Serve's 2 s (analysis/capacity.py SARATHI_QUEUE_P50_S) when not given."""
    queue_s = _ms_to_s("slo-queue-p50-ms", value_ms)
    return SARATHI_QUEUE_P50_S if queue_s is None else queue_s


def to_json(result: CapacityResult) -> dict[str, Any]:
    return {"capacity_qps": result.capacity_qps, "criterion": result.criterion, "bound_hit": result.bound_reached,
            "probes": [asdict(p) for p in result.probes]}


def run(args: argparse.Namespace) -> int:
    slo = Slo(_ms_to_s("slo-tbt-p99-ms", args.slo_tbt_p99_ms), _ms_to_s("slo-ttft-p50-ms", args.slo_ttft_p50_ms),
              _queue_s(args.slo_queue_p50_ms))
    args.trace_out = None  # metrics only
    if args.qps is not None:  # the search sets the rate; a --qps it dropped would be silently wrong output
        raise InputError(f"--qps {args.qps:g}: capacity searches the rate itself (--qps-min, --qps-max); drop --qps")
    scenario = simulate_cli.scenario_from_args(args)
    workers = check_workers(args.workers)
    map_fn = functools.partial(_map, workers=workers, address=args.scheduler_address)
    result = find_capacity(scenario, slo, map_fn, args.qps_min, args.qps_max, args.tolerance,
                           args.probes_per_round or max(4, workers), args.max_rounds)
    if result.bound_reached:
        sys.stderr.write(f"chunkviz capacity: note: every probe up to --qps-max={args.qps_max:g} met the SLO; "
                         "the capacity is at least that\n")
    if args.json:
        sys.stdout.write(json.dumps(to_json(result), sort_keys=True) + "\n")
        return 0
    shown = "none (even --qps-min misses the SLO)" if result.capacity_qps is None else f"{result.capacity_qps:.3f}"
    if result.bound_reached:
        shown = f">= {shown} (the search bound)"
    sys.stdout.write(f"capacity {shown} requests/s for {result.criterion}\n")
    for p in result.probes:
        tbt = "-" if p.tbt_p99_s is None else f"{p.tbt_p99_s * 1e3:.1f}"
        sys.stdout.write(f"  {p.qps:9.3f} qps  {'meets' if p.meets_slo else 'misses'}  TBT p99 {tbt} ms\n")
    return 0


def _map(fn: Any, jobs: list, workers: int, address: str | None) -> list:
    return map_ordered(fn, jobs, workers, address)
