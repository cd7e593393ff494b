"""`python -m chunkviz cost`: the time of one engine step, term by term.

Invariant: the printed terms add up to total_s.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict
from typing import Any

from chunkviz.cost.catalogue import GPUS, MODELS, get_gpu, get_model
from chunkviz.config import CostConfig, tensor_parallel_problem
from chunkviz.cost.roofline import shape_of, step_cost
from chunkviz.errors import InputError
from chunkviz.inputs import strict_dumps

MAX_TOKENS = 1_000_000
MAX_BATCH = 100_000


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("cost", help="roofline cost of one engine step")
    p.add_argument("--model", default="llama-3-8b", help=f"one of {', '.join(MODELS)}")
    p.add_argument("--gpu", default="h100-sxm", help=f"one of {', '.join(GPUS)}")
    p.add_argument("--prefill-tokens", type=int, default=0, help="tokens of one prefill chunk")
    p.add_argument("--context-tokens", type=int, default=0, help="tokens already cached before that chunk")
    p.add_argument("--decode-batch", type=int, default=0, help="decoding sequences in the step")
    p.add_argument("--decode-context", type=int, default=0, help="context of each decoding sequence")
    p.add_argument("--tensor-parallel", type=int, default=1)
    p.add_argument("--step-overhead-ms", type=float, default=2.0)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run)


def _check(name: str, value: int, maximum: int) -> None:
    if value < 0 or value > maximum:
        raise InputError(f"--{name} must be between 0 and {maximum}, got {value}")


def run(args: argparse.Namespace) -> int:
    _check("prefill-tokens", args.prefill_tokens, MAX_TOKENS)
    _check("context-tokens", args.context_tokens, MAX_TOKENS)
    _check("decode-batch", args.decode_batch, MAX_BATCH)
    _check("decode-context", args.decode_context, MAX_TOKENS)
    if args.prefill_tokens == 0 and args.decode_batch == 0:
        raise InputError("nothing to cost: give --prefill-tokens N and/or --decode-batch B")
    if args.context_tokens and not args.prefill_tokens:
        raise InputError("--context-tokens needs --prefill-tokens (it is the cache before that chunk)")
    if args.tensor_parallel < 1 or args.tensor_parallel > 64:
        raise InputError(f"--tensor-parallel must be between 1 and 64, got {args.tensor_parallel}")
    problem = tensor_parallel_problem(get_model(args.model), args.tensor_parallel)
    if problem:
        raise InputError(f"--{problem.replace('tensor_parallel=', 'tensor-parallel ', 1)}")
    chunks = ((args.prefill_tokens, args.context_tokens),) if args.prefill_tokens else ()
    shape = shape_of(chunks, (args.decode_context,) * args.decode_batch)
    cost = step_cost(shape, get_model(args.model), get_gpu(args.gpu), CostConfig(args.step_overhead_ms / 1e3),
                     args.tensor_parallel)
    out = asdict(cost)
    out.update(num_tokens=shape.num_tokens, attention_pairs=shape.attention_pairs, model=args.model, gpu=args.gpu)
    if args.json:
        sys.stdout.write(strict_dumps(out, sort_keys=True) + "\n")
    else:
        for key in ("dense_s", "attention_s", "lm_head_s", "communication_s", "overhead_s", "total_s"):
            sys.stdout.write(f"{key:16} {out[key] * 1e3:10.3f} ms\n")
        sys.stdout.write(f"{'flops':16} {cost.flops:10.4g}\n{'bytes':16} {cost.bytes:10.4g}\n"
                         f"{'mfu':16} {cost.mfu:10.3f}\n{'mbu':16} {cost.mbu:10.3f}\n")
    return 0
