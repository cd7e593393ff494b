"""Fit the dense kernel model to the shipped public A100 points and report how well it predicts them.

Usage:  .venv/bin/python scripts/fit_cost_model.py            # fit, print the report (about a minute)
        .venv/bin/python scripts/fit_cost_model.py --write    # also rewrite chunkviz/cost/fitted.py
        .venv/bin/python scripts/fit_cost_model.py --quick    # skip the leave-one-out refits (not with --write)

Errors are predicted / measured − 1 of the dense time of one layer, over every gated-model point at >= 16 tokens
(phi-2, the one ungated model, is reported on its own). "v1" is the previous model (one roofline per layer with a
tokens-only MFU curve); leave-one-model-out fits on the other models and predicts the held-out one, and
leave-one-TP-out likewise per tensor-parallel degree. numpy only, deterministic.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from chunkviz.cost.fit import (ErrorSummary, PointArrays, constants_table, dense_errors, fit_constants,  # noqa: E402
                               point_arrays, summarize_errors, v1_dense_errors)
from chunkviz.cost.kernels import DenseConstants  # noqa: E402
from chunkviz.cost.public_points import load_public_points  # noqa: E402

FITTED_PATH = ROOT / "chunkviz" / "cost" / "fitted.py"
MIN_TOKENS = 16


def _fmt(s: ErrorSummary) -> str:
    return (f"n={s.num_points:5d}  median {s.median_abs:6.1%}  p90 {s.p90_abs:6.1%}  worst {s.worst_abs:6.1%}  "
            f"signed median {s.median_signed:+6.1%}")


def _scored(a: PointArrays) -> np.ndarray:
    return a.gated & (a.tokens >= MIN_TOKENS)


def report_fit(a: PointArrays, c: DenseConstants) -> list[str]:
    lines, scored = [], _scored(a)
    before, after = v1_dense_errors(a), dense_errors(c, a)
    for tp in sorted(set(a.tensor_parallel.tolist())):
        m = scored & (a.tensor_parallel == tp)
        lines += [f"TP {tp}  before  {_fmt(summarize_errors(before[m]))}",
                  f"TP {tp}  after   {_fmt(summarize_errors(after[m]))}"]
    lines += [f"all   before  {_fmt(summarize_errors(before[scored]))}",
              f"all   after   {_fmt(summarize_errors(after[scored]))}"]
    for model_id in sorted(set(a.model_id.tolist())):
        m = (a.model_id == model_id) & (a.tokens >= MIN_TOKENS)
        lines.append(f"model {model_id:14} after {_fmt(summarize_errors(after[m]))}")
    return lines


def leave_one_out(a: PointArrays, key: str) -> dict[str, ErrorSummary]:
    """Refit without each value of `key` ("model_id" or "tensor_parallel") and score the held-out points."""
    out, column = {}, getattr(a, key)
    held_errors = []
    for value in sorted(set(column.tolist())):
        if key == "model_id" and not a.gated[column == value].any():
            continue  # phi-2 alone cannot be the held-out gated model
        c = fit_constants(a.subset(column != value))
        m = (column == value) & _scored(a)
        errors = dense_errors(c, a)[m]
        held_errors.append(errors)
        out[f"{key}={value}"] = summarize_errors(errors)
    out[f"{key}=pooled"] = summarize_errors(np.concatenate(held_errors))
    return out


def fitted_source(c: DenseConstants, residual_lines: list[str], held_out: dict[str, ErrorSummary]) -> str:
    body = "\n".join(f"    {name}={value!r}," for name, value in constants_table(c))
    held = "\n".join(f"    {k!r}: ({v.num_points}, {v.median_abs:.4f}, {v.p90_abs:.4f}, {v.worst_abs:.4f}, "
                     f"{v.median_signed:.4f})," for k, v in held_out.items())
    residuals = "\n".join(f"    {line}" for line in residual_lines)
    return f'''"""Fitted constants of the dense kernel model (cost/kernels.py), written by scripts/fit_cost_model.py.

Invariant: regenerated only by that script from chunkviz/data/a100-dense-ops.csv; edit the script, not the numbers.

Fitted on every public A100 point (vidur operator profiles, 8 models, TP 1/2/4/8, 1-16,384 tokens). Residuals of
the dense time of one layer, predicted / measured - 1, gated models at >= {MIN_TOKENS} tokens ("before" is the
previous tokens-only roofline):
{residuals}
"""

from chunkviz.cost.kernels import DenseConstants

A100_DENSE = DenseConstants(
{body}
)

# Leave-one-out: held-out model or TP -> (points, median |error|, p90, worst, signed median) of its dense time.
HELD_OUT: dict[str, tuple[int, float, float, float, float]] = {{
{held}
}}
'''


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="rewrite chunkviz/cost/fitted.py")
    parser.add_argument("--quick", action="store_true", help="skip the leave-one-out refits")
    args = parser.parse_args(argv)
    a = point_arrays(load_public_points())
    c = fit_constants(a)
    print("fitted constants:")
    for name, value in constants_table(c):
        print(f"  {name:18} {value:.6g}")
    lines = report_fit(a, c)
    print("\n".join(lines))
    held_out: dict[str, ErrorSummary] = {}
    if not args.quick or args.write:
        held_out = leave_one_out(a, "model_id") | leave_one_out(a, "tensor_parallel")
        held_lines = [f"LOO {key:28} {_fmt(summary)}" for key, summary in held_out.items()]
        print("\n".join(held_lines))
        lines += held_lines
    if args.write:
        FITTED_PATH.write_text(fitted_source(c, lines, held_out))
        print(f"wrote {FITTED_PATH.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
