"""`python -m chunkviz prefix-cache`: a trace's prefix-cache hit rate under FIFO, LRU or LFU, timing ignored.

Invariant: the trace is loaded and every capacity simulated before anything is printed, so a bad file or flag
gives one error line (exit 2) and no partial output.
"""

from __future__ import annotations

import argparse
from typing import Any

from chunkviz.analysis.prefix_study import (
    PREFIX_CACHE_POLICIES,
    PrefixStudyResult,
    block_ids_from_requests,
    run_prefix_study,
    unlimited_ceiling,
)
from chunkviz.workloads.loaders import TRACE_FORMATS, load_trace
from chunkviz.inputs import strict_dumps


def _capacity_list(text: str) -> tuple[int, ...]:
    """'1000,4000' -> (1000, 4000); argparse turns the ArgumentTypeError into a one-line usage error."""
    parts = [part.strip() for part in text.split(",")]
    if not all(part.isascii() and part.isdigit() and int(part) >= 1 for part in parts):
        raise argparse.ArgumentTypeError(f"expected whole numbers >= 1 separated by commas, got {text!r}")
    return tuple(int(part) for part in parts)


def register(subparsers: Any) -> None:
    """Add the `prefix-cache` subcommand to the main parser's subparsers."""
    parser = subparsers.add_parser(
        "prefix-cache", help="prefix-cache hit rate of a request trace (FIFO, LRU, LFU), timing ignored",
        description="Replay each request's prompt blocks through a cache of C blocks; a request's hits stop at its "
                    "first miss. Prints the hit rate and the unlimited-capacity ceiling.")
    parser.add_argument("--trace", required=True, metavar="FILE", help="Azure CSV, Mooncake JSONL or plain CSV")
    parser.add_argument("--trace-format", choices=TRACE_FORMATS, default=None, help="default: detect from the file")
    parser.add_argument("--capacity-blocks", required=True, type=_capacity_list, metavar="C[,C...]",
                        help="cache size in blocks; a comma list prints a curve")
    parser.add_argument("--policy", choices=tuple(PREFIX_CACHE_POLICIES), default="lru",
                        help="eviction policy (default lru; lfu breaks ties by least recent touch)")
    parser.add_argument("--block-tokens", type=int, default=512,
                        help="tokens per block when cutting prompts into blocks (default 512, Mooncake's size); the "
                             "prompts may make at most 1,000,000 block ids")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Load, simulate every capacity, then print; returns exit status 0 (errors raise InputError)."""
    load = load_trace(args.trace, args.trace_format)
    block_lists = block_ids_from_requests(load.requests, args.block_tokens, setting="--block-tokens")
    results = [run_prefix_study(block_lists, args.policy, c) for c in args.capacity_blocks]
    ceiling = unlimited_ceiling(block_lists)
    if args.json:
        print(strict_dumps(_payload(results, ceiling, load.trace_format, load.notes)))
        return 0
    for line in load.notes:
        print(f"note: {line}")
    print(f"{ceiling.num_requests} requests, {ceiling.prompt_blocks} prompt blocks of {args.block_tokens} tokens")
    for result in results:
        print(f"{result.policy} at {result.capacity_blocks} blocks: hit rate {result.hit_rate:.4f} "
              f"({result.hit_blocks} of {result.prompt_blocks} blocks)")
    print(f"unlimited capacity: hit rate {ceiling.hit_rate:.4f} ({ceiling.hit_blocks} blocks)")
    return 0


def _payload(results: list[PrefixStudyResult], ceiling: PrefixStudyResult, trace_format: str,
             notes: tuple[str, ...]) -> dict[str, object]:
    """One result flat; several as a `curve` list beside the fields they share."""
    shared = {"unlimited_hit_rate": ceiling.hit_rate, "unlimited_hit_blocks": ceiling.hit_blocks,
              "trace_format": trace_format, "notes": list(notes)}
    if len(results) == 1:
        return {**results[0].to_dict(), **shared}
    head = {"policy": results[0].policy, "prompt_blocks": ceiling.prompt_blocks, "num_requests": ceiling.num_requests}
    return {**head, **shared, "curve": [result.to_dict() for result in results]}
