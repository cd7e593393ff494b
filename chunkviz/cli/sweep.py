"""`python -m chunkviz sweep --budgets 64,128,... [--qps-scale 1,2,...] [simulate flags]`: a grid of simulations
run on every core (`--workers N`) or on a Dask cluster (`--scheduler-address tcp://HOST:PORT`).

Invariant: a row is exactly what `simulate --json` prints for that point (plus `qps_scale`; `workload` as there), rows follow the grid
(scales outer, budgets inner) whatever ran them, and the same grid gives the same rows on any executor.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

from chunkviz.analysis.parallel import map_ordered
from chunkviz.analysis.scenario import Scenario, run_scenario
from chunkviz.analysis.sweep import with_load
from chunkviz.cli import simulate as simulate_cli
from chunkviz.errors import InputError

MAX_POINTS = 4096
MAX_QPS_SCALE = 1000.0
# (scenario, SLO targets in ms as simulate takes them) — plain picklable data for the workers
Job = tuple[Scenario, float | None, float | None, float | None]  # scenario, TTFT, TBT and e2e SLOs (ms)


def simulate_parent() -> argparse.ArgumentParser:
    """A parser holding every `simulate` flag, to inherit from (new simulate flags reach sweep and capacity)."""
    scratch = argparse.ArgumentParser(add_help=False).add_subparsers()
    simulate_cli.register(scratch)
    parent = scratch.choices["simulate"]
    parent.set_defaults(func=None)
    return parent


def add_executor_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--workers", type=int, default=None, help="local worker processes (default: all cores)")
    p.add_argument("--scheduler-address", default=None,
                   help="run the points on an existing Dask cluster, e.g. tcp://10.0.0.5:8786 (needs distributed)")


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("sweep", parents=[simulate_parent()], conflict_handler="resolve",
                              help="simulate a grid of token budgets and load scales, in parallel")
    p.add_argument("--budgets", required=True, help="max_num_batched_tokens values, e.g. 64,128,256")
    p.add_argument("--qps-scale", default="1", help="load multipliers, e.g. 1,2,4 (arrivals squeezed or qps scaled)")
    add_executor_flags(p)
    p.set_defaults(func=run)


def parse_list(text: str, kind: type, name: str) -> list:
    try:
        values = [kind(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise InputError(f"--{name} must be a comma-separated list of numbers, got {text!r}") from None
    if not values:
        raise InputError(f"--{name} needs at least one value")
    return values


def grid(args: argparse.Namespace) -> list[tuple[float, int]]:
    budgets = parse_list(args.budgets, int, "budgets")
    scales = parse_list(args.qps_scale, float, "qps-scale")
    if any(b < 1 for b in budgets):
        raise InputError("every budget must be a whole number of tokens >= 1")
    if any(not (math.isfinite(x) and 0 < x <= MAX_QPS_SCALE) for x in scales):
        raise InputError(f"every --qps-scale must be a number in (0, {MAX_QPS_SCALE:g}]")
    if len(budgets) * len(scales) > MAX_POINTS:
        raise InputError(f"{len(budgets) * len(scales)} points is over the limit of {MAX_POINTS}")
    return [(scale, budget) for scale in scales for budget in budgets]


def run_job(job: Job) -> dict[str, Any]:
    """One point, exactly as `simulate --json` would print it (module-level: it is sent to worker processes)."""
    scenario, slo_ttft_ms, slo_tbt_ms, slo_e2e_ms = job
    slos = argparse.Namespace(slo_ttft_ms=slo_ttft_ms, slo_tbt_ms=slo_tbt_ms, slo_e2e_ms=slo_e2e_ms)
    if scenario.deployment is not None:  # the deployment's keys too, as simulate --json prints them
        return simulate_cli.deployment_keys(scenario, slos)[0]
    trace = run_scenario(scenario)
    out = simulate_cli.summary_dict(trace, slos)
    out["cost_profile"] = simulate_cli._profile_summary(scenario)
    return out


def jobs_for(args: argparse.Namespace, points: list[tuple[float, int]]) -> list[Job]:
    simulate_cli._check_slo("slo-ttft-ms", args.slo_ttft_ms)
    simulate_cli._check_slo("slo-tbt-ms", args.slo_tbt_ms)
    simulate_cli._check_slo("slo-e2e-ms", args.slo_e2e_ms)
    args.trace_out = None  # metrics-only runs: a sweep never writes per-step traces
    base = simulate_cli.scenario_from_args(args)
    jobs = []
    for scale, budget in points:
        scenario = with_load(base, scale)
        scenario = scenario.with_policy(scenario.scheduler.policy, budget)
        jobs.append((scenario, args.slo_ttft_ms, args.slo_tbt_ms, args.slo_e2e_ms))
    return jobs


def _progress(done: int, total: int) -> None:
    sys.stderr.write(f"\rchunkviz sweep: {done}/{total} points")
    if done == total:
        sys.stderr.write("\n")


def run(args: argparse.Namespace) -> int:
    points = grid(args)
    jobs = jobs_for(args, points)
    rows = map_ordered(run_job, jobs, args.workers, args.scheduler_address,
                       on_progress=None if args.json else _progress)
    for (scale, _), row in zip(points, rows):
        row["qps_scale"] = scale
        row["workload"] = simulate_cli.workload_name(args)  # as simulate --json names it
    if args.json:
        sys.stdout.write(json.dumps({"rows": rows}, sort_keys=True) + "\n")
        return 0
    sys.stdout.write(f"{'scale':>6} {'budget':>7} {'TTFT p50':>9} {'TBT p99':>9} {'tok/s':>9}  (ms)\n")
    for row in rows:
        sys.stdout.write(f"{row['qps_scale']:6g} {row['budget_tokens']:7d} {_ms(row['ttft_s']['p50'])} "
                         f"{_ms(row['tbt_s']['p99'])} {row['throughput_output_tokens_per_s']:9.1f}\n")
    return 0


def _ms(value: float | None) -> str:
    return f"{'-':>9}" if value is None else f"{value * 1e3:9.1f}"
