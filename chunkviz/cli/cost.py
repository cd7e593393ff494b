"""`python -m chunkviz cost`: the time of one engine step, term by term, and its host time by part.

Invariant: the printed terms add up to total_s (dense_per_layer_s is dense_s / layers, shown, not added);
exposed_host_s == overhead_s, and it is host_sched_s + host_prep_s + launch_s without overlap scheduling.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

from chunkviz.cli.simulate import _add_step_pricing_flags, _read_spec  # as `simulate` reads them
from chunkviz.cost.catalogue import GPUS, MODELS, get_gpu, get_model, gpu_from_json, model_from_hf_config
from chunkviz.config import CostConfig, SchedulerConfig, SimConfig, tensor_parallel_problem
from chunkviz.cost.roofline import StepCoster, shape_of
from chunkviz.cost.step_pricing import EAGER, StepPricing
from chunkviz.errors import InputError
from chunkviz.inputs import strict_dumps
from chunkviz.simulator.engine import kv_pool_of
from chunkviz.simulator.kv.setup import num_gpu_blocks
from chunkviz.simulator.policies.registry import POLICY_NAMES
from chunkviz.simulator.policies.resolve import resolve_knobs, with_engine_block_size

MAX_TOKENS = 1_000_000
MAX_BATCH = 100_000


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("cost", help="roofline cost of one engine step")
    p.add_argument("--model", default="llama-3-8b", help=f"one of {', '.join(MODELS)}")
    p.add_argument("--model-spec", type=Path, help="a Hugging Face config.json instead of --model")
    p.add_argument("--gpu", default="h100-sxm", help=f"one of {', '.join(GPUS)}")
    p.add_argument("--gpu-spec", type=Path, help="a GPU JSON file instead of --gpu")
    p.add_argument("--prefill-tokens", type=int, default=0, help="tokens of one prefill chunk")
    p.add_argument("--context-tokens", type=int, default=0, help="tokens already cached before that chunk")
    p.add_argument("--decode-batch", type=int, default=0, help="decoding sequences in the step")
    p.add_argument("--decode-context", type=int, default=0, help="context of each decoding sequence")
    p.add_argument("--num-waiting", type=int, default=0,
                   help="requests waiting besides the step's sequences (the scheduler walks them: host time)")
    p.add_argument("--tensor-parallel", type=int, default=1)
    p.add_argument("--policy", choices=POLICY_NAMES, default=None,
                   help="price the host as this engine runs it (CUDA graphs, overlap scheduling, its CPU costs); "
                        "default: eager, no overlap, vLLM V0's CPU costs")
    _add_step_pricing_flags(p)
    p.add_argument("--step-overhead-ms", type=float, default=None,
                   help="a flat host time per step instead of the host model; 0: GPU time only")
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
    _check("num-waiting", args.num_waiting, MAX_BATCH)
    if args.prefill_tokens == 0 and args.decode_batch == 0:
        raise InputError("nothing to cost: give --prefill-tokens N and/or --decode-batch B")
    if args.context_tokens and not args.prefill_tokens:
        raise InputError("--context-tokens needs --prefill-tokens (it is the cache before that chunk)")
    if args.tensor_parallel < 1 or args.tensor_parallel > 64:
        raise InputError(f"--tensor-parallel must be between 1 and 64, got {args.tensor_parallel}")
    spec = args.model_spec
    model = model_from_hf_config(_read_spec(spec, "--model-spec")) if spec else get_model(args.model)
    gpu = gpu_from_json(_read_spec(args.gpu_spec, "--gpu-spec")) if args.gpu_spec else get_gpu(args.gpu)
    problem = tensor_parallel_problem(model, args.tensor_parallel)
    if problem:
        raise InputError(f"--{problem.replace('tensor_parallel=', 'tensor-parallel ', 1)}")
    chunks = ((args.prefill_tokens, args.context_tokens),) if args.prefill_tokens else ()
    shape = shape_of(chunks, (args.decode_context,) * args.decode_batch)
    cost_config = _cost_config(args)
    pricing = _pricing(args, model, gpu, cost_config)
    coster = StepCoster(model, gpu, cost_config, args.tensor_parallel, pricing)
    num_active = shape.num_seqs + args.num_waiting
    cost = coster(shape, num_active)
    out = asdict(cost)
    out.update(num_tokens=shape.num_tokens, attention_pairs=shape.attention_pairs, model=model.model_id,
               gpu=gpu.gpu_id, dense_per_layer_s=cost.dense_s / model.num_layers, gated_mlp=model.is_gated_mlp,
               policy=args.policy, step_pricing=pricing.rule, host_costs=pricing.host.source, num_active=num_active,
               **coster.host_breakdown(shape.num_tokens, shape.num_seqs, num_active, cost.total_s - cost.overhead_s))
    if args.json:
        sys.stdout.write(strict_dumps(out, sort_keys=True) + "\n")
    else:
        for key in ("dense_s", "dense_per_layer_s", "attention_s", "lm_head_s", "communication_s", "overhead_s",
                    "total_s", "host_sched_s", "host_prep_s", "launch_s", "exposed_host_s"):
            sys.stdout.write(f"{key:17} {out[key] * 1e3:10.3f} ms\n")
        sys.stdout.write(f"{'graph_mode':17} {out['graph_mode']:>10}  ({pricing.rule})\n")
        sys.stdout.write(f"{'flops':17} {cost.flops:10.4g}\n{'bytes':17} {cost.bytes:10.4g}\n"
                         f"{'mfu':17} {cost.mfu:10.3f}\n{'mbu':17} {cost.mbu:10.3f}\n")
    return 0


def _cost_config(args: argparse.Namespace) -> CostConfig:
    overhead_s = None if args.step_overhead_ms is None else args.step_overhead_ms / 1e3
    try:
        return CostConfig(step_overhead_s=overhead_s, overlap_scheduling=args.overlap_scheduling,
                          enforce_eager=args.enforce_eager, cuda_graph_max_bs=args.cuda_graph_max_bs)
    except ValueError as exc:
        raise InputError(str(exc).replace("step_overhead_s must be between 0 and 1 second",
                                          "--step-overhead-ms must be between 0 and 1000")) from None


def _pricing(args: argparse.Namespace, model, gpu, cost: CostConfig) -> StepPricing:
    """The engine's step pricing (its graphs, overlap and CPU costs) as `simulate --policy` resolves it."""
    if args.policy is None:
        if cost.overlap_scheduling or cost.enforce_eager or cost.cuda_graph_max_bs is not None:
            raise InputError("--async-scheduling, --enforce-eager and --cuda-graph-max-bs need --policy (an engine "
                             "to switch them on)")
        return EAGER
    config = with_engine_block_size(SimConfig(model=model, gpu=gpu, scheduler=SchedulerConfig(policy=args.policy),
                                              cost=cost, tensor_parallel=args.tensor_parallel, record_detail=False))
    try:
        pool = kv_pool_of(config)
        blocks = num_gpu_blocks(config, pool.pool_bytes, pool.knob)
    except InputError:  # weights beyond one GPU: a step's host pricing does not read the KV pool's size
        blocks = 1
    return resolve_knobs(config, blocks).step_pricing
