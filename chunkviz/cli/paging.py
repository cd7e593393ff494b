"""`python -m chunkviz paging`: run one page-replacement algorithm on a reference string, as a table or JSON.

Invariant: bad input raises InputError (a ValueError) before any output, so the main CLI prints one line, exit 2.
"""

from __future__ import annotations

import argparse
from typing import Any

from chunkviz.lessons.paging import (
    ALGORITHMS,
    LFU_TIE_BREAKS,
    ORDER_VALUE_NAMES,
    PRESETS,
    PagingResult,
    check_frames,
    faults_curve,
    find_belady_anomaly,
    parse_refs,
    simulate_paging,
)
from chunkviz.inputs import strict_dumps


def register(subparsers: Any) -> None:
    """Add the `paging` subcommand to the main parser's subparsers."""
    parser = subparsers.add_parser("paging", help="page replacement (FIFO, LRU, OPT, Clock, LFU) on a reference string",
                                   description="Simulate classic page replacement step by step.")
    parser.add_argument("--algorithm", choices=tuple(ALGORITHMS), default="lru", help="replacement algorithm (default lru)")
    parser.add_argument("--frames", type=int, default=3, help="number of page frames, 1..64 (default 3)")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--refs", help='reference string, e.g. "1,2,3,4" or "1 2 3 4"')
    source.add_argument("--preset", choices=tuple(PRESETS), help="a built-in reference string")
    parser.add_argument("--clock-ref-bit-on-load", type=int, choices=(1, 0), default=1,
                        help="Clock: R bit of a freshly loaded page (default 1)")
    parser.add_argument("--lfu-tie-break", choices=LFU_TIE_BREAKS, default="fifo",
                        help="LFU: evict the page loaded first (fifo) or used least recently (lru) on a tie")
    parser.add_argument("--curve", type=int, metavar="MAX_FRAMES", help="also report faults for 1..MAX_FRAMES frames")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Simulate, then print JSON or a table; returns the exit status 0 (errors raise InputError)."""
    refs = PRESETS[args.preset] if args.preset else parse_refs(args.refs)
    conventions = {"clock_ref_bit_on_load": args.clock_ref_bit_on_load == 1, "lfu_tie_break": args.lfu_tie_break}
    result = simulate_paging(args.algorithm, refs, args.frames, **conventions)  # type: ignore[arg-type]
    # Computed before printing anything, so a bad --curve fails cleanly with no half-written output.
    curve = None
    if args.curve is not None:
        check_frames(args.curve, "--curve")
        curve = faults_curve(args.algorithm, refs, args.curve, **conventions)  # type: ignore[arg-type]
    if args.json:
        payload = result.to_dict()
        if curve is not None:
            payload["curve"] = [{"frames": frames, "faults": faults} for frames, faults in curve]
            anomaly = find_belady_anomaly(curve)
            payload["belady_anomaly"] = list(anomaly) if anomaly else None
        print(strict_dumps(payload))
        return 0
    print("\n".join(_table_lines(result)))
    if curve is not None:
        print("\n".join(_curve_lines(curve)))
    return 0


def _cell(page: int | None) -> str:
    return "." if page is None else str(page)


def _table_lines(result: PagingResult) -> list[str]:
    conv = result.convention
    lines = [f"algorithm {result.algorithm}, {result.num_frames} frames, {len(result.refs)} refs "
             f"(clock R on load={int(conv.clock_ref_bit_on_load)}, lfu tie-break={conv.lfu_tie_break})",
             f"{'#':>4} {'page':>6}  {'':4} {'frames (slots)':<24} {'order: ' + ORDER_VALUE_NAMES[result.algorithm]:<30} reason"]
    for step in result.steps:
        frames = " ".join(f"{_cell(p):>3}" for p in step.frames)
        order = " ".join(f"{p}({_cell(v)})" for p, v in zip(step.order, step.order_values))
        mark = "hit " if step.is_hit else "MISS"
        lines.append(f"{step.index + 1:>4} {step.page:>6}  {mark} {frames:<24} {order:<30} {step.reason}")
    lines.append(f"faults {result.faults}, hits {result.hits}, hit ratio {result.hit_ratio:.3f}")
    return lines


def _curve_lines(curve: tuple[tuple[int, int], ...]) -> list[str]:
    lines = ["frames  faults"] + [f"{frames:>6}  {faults:>6}" for frames, faults in curve]
    anomaly = find_belady_anomaly(curve)
    if anomaly:
        lines.append(f"Belady's anomaly: {anomaly[1]} frames fault more than {anomaly[0]}")
    return lines
