"""`python -m chunkviz measure`: time prefill chunks and decode steps on this machine and write a cost profile.

Invariant: torch is imported only when the subcommand runs (inside chunkviz.measure); without it the command exits 2
with one line that says how to enable the mode. Progress goes to stderr, results to stdout.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

from chunkviz.cost.catalogue import MODELS
from chunkviz.measure import DEVICES, measure, save_profile
from chunkviz.cost.profiled import compare_to_roofline
from chunkviz.inputs import strict_dumps

BAR_WIDTH = 30


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("measure", help="measure real step times with PyTorch and write a cost profile")
    p.add_argument("--device", choices=DEVICES, default="auto", help="auto: CUDA when torch sees a GPU, else CPU")
    p.add_argument("--model", default="llama-3-8b", help=f"shapes of one of {', '.join(MODELS)}")
    p.add_argument("--layers", type=int, default=None, help="decoder layers to build (default: all on CUDA, 2 on CPU)")
    p.add_argument("--hidden-size", type=int, default=None,
                   help="scale every width down to this hidden size (default: the model's on CUDA, 512 on CPU)")
    p.add_argument("--threads", type=int, default=None, help="CPU threads for torch (default: torch's choice)")
    p.add_argument("--no-rope", action="store_true", help="leave rotary position embeddings out")
    p.add_argument("--quick", action="store_true", help="the small plan (seconds on a CPU) instead of the full one")
    p.add_argument("--out", type=Path, required=True, help="where to write the profile JSON")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def _progress(done: int, total: int) -> None:
    filled = BAR_WIDTH * done // total
    sys.stderr.write(f"\rmeasuring [{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {done}/{total}")
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def _rows(profile) -> list[dict[str, Any]]:
    return [asdict(row) for row in compare_to_roofline(profile)]


def run(args: argparse.Namespace) -> int:
    if args.layers is not None and args.layers < 1:
        raise ValueError(f"--layers must be at least 1, got {args.layers}")
    if args.threads is not None and not 1 <= args.threads <= 1024:
        raise ValueError(f"--threads must be between 1 and 1024, got {args.threads}")
    outcome = measure(args.model, device=args.device, num_layers=args.layers, hidden_size=args.hidden_size,
                      plan="quick" if args.quick else "full", use_rope=not args.no_rope, num_threads=args.threads,
                      progress=_progress)
    profile = outcome.profile
    assert profile is not None  # no cancel flag was given
    save_profile(profile, args.out)
    m = profile.model
    shapes = {key: getattr(m, key) for key in ("num_layers", "hidden_size", "num_heads", "num_kv_heads",
                                               "intermediate_size", "vocab_size")}
    if args.json:
        out = {"out": str(args.out), "device": profile.device, "device_name": profile.device_name,
               "dtype": profile.dtype, "model": m.model_id, "shapes": shapes,
               "versions": dict(profile.versions), "check_max_abs_diff": profile.check_max_abs_diff,
               "roofline_hardware": profile.hardware.source, "points": _rows(profile)}
        sys.stdout.write(strict_dumps(out, sort_keys=True) + "\n")
        return 0
    lines = [f"{profile.device_name} ({profile.dtype}), {m.model_id} shapes: "
             + ", ".join(f"{k}={v}" for k, v in shapes.items()),
             f"check: chunked prefill vs one pass, max abs diff {profile.check_max_abs_diff:.2g} "
             f"(tolerance {profile.check_tolerance:g}); roofline peaks: {profile.hardware.source}",
             f"{'kind':8} {'tok/bat':>7} {'context':>8} {'measured':>10} {'p10':>9} {'p90':>9} {'roofline':>10} "
             f"{'ratio':>6}  (ms)"]
    for r in _rows(profile):
        lines.append(f"{r['kind']:8} {r['num_tokens']:7d} {r['context_tokens']:8d} {r['measured_s'] * 1e3:10.2f} "
                     f"{r['p10_s'] * 1e3:9.2f} {r['p90_s'] * 1e3:9.2f} {r['roofline_s'] * 1e3:10.2f} "
                     f"{r['ratio']:6.2f}")
    lines.append(f"wrote {args.out}; use it with: python -m chunkviz simulate --profile {args.out}")
    sys.stdout.write("\n".join(lines) + "\n")
    return 0
