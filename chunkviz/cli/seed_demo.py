"""`python -m chunkviz seed-demo`: rerun the seed article's toy demo and print its figures beside corrected ones.

Invariant: `--json` prints exactly one JSON object (SeedDemoReport.to_dict()); bad values fail in
`run_seed_demo`'s validation with a one-line message, before any simulation runs.
"""

from __future__ import annotations

import argparse

from chunkviz.lessons.seed_demo import (
    DEFAULT_CHUNK_TOKENS,
    DEFAULT_NUM_REQUESTS,
    DEFAULT_SEED,
    FLAWS,
    MAX_CHUNK_TOKENS,
    MAX_NUM_REQUESTS,
    SeedDemoReport,
    SeedRunResult,
    run_seed_demo,
)
from chunkviz.inputs import strict_dumps


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "seed-demo", help="rerun the seed article's toy demo (monolithic vs chunked prefill)",
        description="Re-implementation of the seed article's toy scheduler: its own figures, then TTFT measured "
                    "from arrival with a nearest-rank P95.")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    parser.add_argument("--num-requests", type=int, default=DEFAULT_NUM_REQUESTS,
                        help=f"number of toy requests, 1..{MAX_NUM_REQUESTS} (default {DEFAULT_NUM_REQUESTS})")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"workload seed (default {DEFAULT_SEED})")
    parser.add_argument("--chunk", type=int, default=DEFAULT_CHUNK_TOKENS,
                        help=f"chunk length in tokens, 1..{MAX_CHUNK_TOKENS}; the toy only finishes with chunk "
                             f"<= 16 (default {DEFAULT_CHUNK_TOKENS})")
    parser.set_defaults(func=run)


# Column titles; "P95" stays quoted because the toy's figure is not a true 95th percentile (flaw p95_index_off_by_one).
_HEADER = "{:<18}{:>12}{:>11}{:>12}{:>14}{:>12}".format(
    "mode", "total steps", "mean TTFT", '"P95" TTFT', "mean (arr.)", "P95 (arr.)")


def _row(label: str, result: SeedRunResult) -> str:
    return (f"{label:<18}{result.total_steps:>12}{result.mean_ttft_toy:>11.1f}{result.p95_ttft_toy:>12.1f}"
            f"{result.mean_ttft_from_arrival:>14.1f}{result.p95_ttft_proper:>12.1f}")


def format_table(report: SeedDemoReport) -> str:
    """The report as the article prints it, plus the corrected columns and the flaw list (plain text)."""
    lines = [
        f"seed demo: {report.num_requests} requests, seed {report.seed}, budget {report.budget} work units/step, "
        f"prefill weight {report.prefill_weight:g} units/token; all times in steps",
        _HEADER,
        _row(report.monolithic.mode, report.monolithic),  # the toy's own modes (SeedMode), not simulator policies
        _row(f"{report.chunked.mode} ({report.chunk_tokens})", report.chunked),
        f"(arr.) = measured from arrival; P95 (arr.) is {report.percentile_method}",
        "flaws of the toy:",
    ]
    lines.extend(f"  {code}: {FLAWS[code]}" for code in report.flaw_codes)
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    report = run_seed_demo(num_requests=args.num_requests, seed=args.seed, chunk_tokens=args.chunk)
    print(strict_dumps(report.to_dict()) if args.json else format_table(report))
    return 0
