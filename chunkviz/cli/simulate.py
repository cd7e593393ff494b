"""`python -m chunkviz simulate`: every knob as a flag, one JSON object with --json.

Invariant: flags map one-to-one onto Scenario fields; JSON keys named by the issues are a contract.
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from chunkviz.cost.catalogue import GPUS, MODELS, get_gpu, get_model, gpu_from_json, model_from_hf_config
from chunkviz.config import (ALLOCATION_NAMES, DEFAULT_POLICY, EVICTION_NAMES, PARALLEL_SAMPLING_MODES,
                             SCHEDULING_POLICIES, TRTLLM_CAPACITY_POLICIES, CacheConfig, CostConfig, ModelSpec,
                             SchedulerConfig)
from chunkviz.analysis.goodput import Slo, goodput
from chunkviz.simulator.policies.registry import POLICY_NAMES, vllm_v1_policy
from chunkviz.cost.profile import MAX_PROFILE_BYTES, profile_from_json
from chunkviz.analysis.metrics import summarize
from chunkviz.errors import InputError
from chunkviz.inputs import read_bounded, strict_dumps
from chunkviz.workloads.presets import PRESET_FIELDS, PRESETS, SPEC_FIELDS, unused_fields
from chunkviz.request import Request
from chunkviz.analysis.scenario import DEFAULT_SCENARIO, Scenario, run_scenario
from chunkviz.analysis.deployment import deployment_json, deployment_summary, run_deployment_scenario
from chunkviz.simulator.trace import Trace
from chunkviz.workloads.loaders import load_trace
from chunkviz.workloads.max_tokens import parse_max_tokens
from chunkviz.workloads.select import select
from chunkviz.workloads.generators import ARRIVALS, LENGTH_DISTS, WorkloadSpec
from chunkviz.cli.deploy_flags import add_deployment_flags, deployment_from_args

MAX_SPEC_BYTES = 1_000_000


def _bool(text: str) -> bool:
    if text.lower() in ("1", "true", "yes", "on"):
        return True
    if text.lower() in ("0", "false", "no", "off"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("simulate", help="simulate a serving engine on a workload")
    add_scenario_flags(p)
    p.add_argument("--slo-ttft-ms", type=float, default=None)
    p.add_argument("--slo-tbt-ms", type=float, default=None,
                   help="token pace: mean TPOT for the vLLM-benchmark goodput, every gap for the strict one")
    p.add_argument("--slo-e2e-ms", type=float, default=None)
    p.add_argument("--trace-out", type=Path, help="write the full trace JSON here")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def add_scenario_flags(p: argparse.ArgumentParser) -> None:
    """Every flag scenario_from_args reads (simulate's; export-html takes the same)."""
    p.add_argument("--policy", choices=POLICY_NAMES, default=None)
    p.add_argument("--enable-chunked-prefill", type=_bool, default=None,
                   help=f"vLLM's switch: true = {vllm_v1_policy(True)}, false = {vllm_v1_policy(False)} (when "
                        f"--policy is not given; default {DEFAULT_POLICY})")
    p.add_argument("--model", default="llama-3-8b", help=f"one of {', '.join(MODELS)}")
    p.add_argument("--model-spec", type=Path, help="a Hugging Face config.json instead of --model")
    p.add_argument("--gpu", default="h100-sxm", help=f"one of {', '.join(GPUS)}")
    p.add_argument("--gpu-spec", type=Path, help="a GPU JSON file instead of --gpu")
    p.add_argument("--tensor-parallel", type=int, default=1)
    p.add_argument("--max-model-len", type=int, default=None, help="vLLM's --max-model-len (default: the model's)")
    p.add_argument("--max-num-batched-tokens", type=int, default=None)
    p.add_argument("--max-num-seqs", type=int, default=None, help="default: the engine's, for the GPU")
    p.add_argument("--long-prefill-token-threshold", type=int, default=0)
    p.add_argument("--sglang-mixed-chunk", action="store_true", help="SGLang --enable-mixed-chunk")
    p.add_argument("--trtllm-chunked-context", type=_bool, default=False, help="TensorRT-LLM enable_chunked_context")
    p.add_argument("--trtllm-capacity-policy", choices=TRTLLM_CAPACITY_POLICIES, default="guaranteed-no-evict")
    p.add_argument("--scheduler-reserve-full-isl", action=argparse.BooleanOptionalAction, default=True,
                   help="vLLM V1 (chunked, vllm-nochunk): admit a waiting request only if the KV blocks for its "
                        "whole prompt fit (default on in the vLLM releases after v0.18.0: PR #37307, March 2026); "
                        "--no-scheduler-reserve-full-isl: vLLM v0.18.0 and earlier, which checked only the first "
                        "chunk")
    p.add_argument("--parallel-sampling", choices=PARALLEL_SAMPLING_MODES, default="v1-children",
                   help="n > 1: vLLM V1 child requests, or V0 / paper fork with copy-on-write")
    p.add_argument("--scheduling-policy", choices=SCHEDULING_POLICIES, default="fcfs",
                   help="vLLM's --scheduling-policy: fcfs, or priority (waiting requests by (priority, arrival), "
                        "lower first: chats 0 before documents 1; vLLM's victim is then the lowest priority); for "
                        "sglang, its --enable-priority-scheduling: higher values first unless "
                        "--schedule-low-priority-values-first")
    p.add_argument("--schedule-low-priority-values-first", action="store_true",
                   help="SGLang: under --scheduling-policy priority serve lower values first (its default: higher)")
    p.add_argument("--priority-scheduling-preemption-threshold", type=int, default=10,
                   help="SGLang: under --scheduling-policy priority a waiting request preempts running ones whose "
                        "priority it beats by more than this (its default 10)")
    p.add_argument("--step-overhead-ms", type=float, default=None,
                   help="a flat host time per step instead of the engine's host model (scheduling, input preparation, "
                        "kernel launches: chunkviz/cost/host_time.py); 0: GPU time only")
    _add_step_pricing_flags(p)
    p.add_argument("--profile", type=Path, help="cost profile JSON from `chunkviz measure`: measured step times")
    _add_workload_flags(p)
    _add_cache_flags(p)
    add_deployment_flags(p)
    p.add_argument("--trace", type=Path, help="replay a request trace (Azure CSV, Mooncake JSONL or plain CSV)")
    p.add_argument("--trace-format", choices=("azure", "mooncake", "csv"), default=None)
    p.add_argument("--time-window", default=None, help="A:B seconds of the trace to keep")
    p.add_argument("--rate-scale", type=float, default=None, help="replay at K times the original load")
    p.add_argument("--sample", type=int, default=None, help="keep a seeded sample of N requests")
    p.add_argument("--no-fast-forward", dest="fast_forward", action="store_false",
                   help="simulate every step exactly (for checks; results are identical)")


def _add_step_pricing_flags(p: argparse.ArgumentParser) -> None:
    """How the engine runs a step on the host, by each engine's own switch names (cost/step_pricing.py)."""
    p.add_argument("--async-scheduling", dest="overlap_scheduling", action=argparse.BooleanOptionalAction,
                   default=None, help="vLLM: overlap the next step's scheduling with this step's GPU work "
                                      "(default: the engine's; on for vLLM V1, SGLang, TensorRT-LLM)")
    p.add_argument("--disable-overlap-schedule", dest="overlap_scheduling", action="store_const", const=False,
                   help="SGLang's name for --no-async-scheduling (TensorRT-LLM: disable_overlap_scheduler)")
    p.add_argument("--enforce-eager", action="store_true",
                   help="vLLM: no CUDA graphs, every kernel launched eagerly (SGLang --disable-cuda-graph)")
    p.add_argument("--disable-cuda-graph", dest="enforce_eager", action="store_true", help="SGLang's --enforce-eager")
    p.add_argument("--cuda-graph-max-bs", type=int, default=None,
                   help="largest decode batch replayed as a CUDA graph (default: the engine's)")


def _add_workload_flags(p: argparse.ArgumentParser) -> None:
    # The defaults are docs/cli.md's default scenario, the app's (analysis/scenario.py DEFAULT_SCENARIO): 64
    # long-among-chats requests at 16 QPS, 300-token chats, 128-token outputs, so `simulate --json` reproduces the
    # figures in docs/engines.md. The budget is left to the engine (the app's 512 is its own choice, docs/cli.md).
    # The generator flags default to None ("not given", filled from DEFAULT_SCENARIO by workload_from_args) so that a
    # flag the chosen preset does not read is refused instead of dropped (workloads/presets.PRESET_FIELDS).
    w = DEFAULT_SCENARIO.workload
    p.add_argument("--workload", default=None,
                   help=f"preset: {', '.join(PRESETS)} (default {DEFAULT_SCENARIO.workload_preset}); a generator "
                        "flag the preset does not read is refused")
    p.add_argument("--num-requests", type=int, default=None, help=f"default {w.num_requests}")
    p.add_argument("--qps", type=float, default=None, help=f"default {w.qps:g}")
    p.add_argument("--arrival", choices=ARRIVALS, default=None, help=f"default {w.arrival}")
    p.add_argument("--burstiness-cv", type=float, default=None, help=f"gamma arrivals only (default {w.burstiness_cv:g})")
    p.add_argument("--prompt-tokens", type=int, default=None, help=f"mean prompt length (default {w.prompt_tokens})")
    p.add_argument("--output-tokens", type=int, default=None, help=f"mean output length (default {w.output_tokens})")
    p.add_argument("--length-dist", choices=LENGTH_DISTS, default=None, help=f"default {w.length_dist}")
    p.add_argument("--batch-fraction", type=float, default=None, help=f"default {w.batch_fraction:g}")
    p.add_argument("--seed", type=int, default=None, help=f"default {w.seed}")
    p.add_argument("--shared-prefix-tokens", type=int, default=None, help=f"default {w.shared_prefix_tokens}")
    p.add_argument("--n-samples", type=int, default=None, help=f"default {w.n_samples}")
    p.add_argument("--max-tokens", default="output",
                   help="the client's max_tokens: output (each request's true length, as benchmark clients send; "
                        "default; a --trace's own max_tokens column is kept), unset (as chat clients often do) or N "
                        "(a cap: outputs are cut to N)")


def _flag(field_name: str) -> str:
    return "--" + field_name.replace("_", "-")


def given_workload_fields(args: argparse.Namespace) -> set[str]:
    """The generator flags given on the command line (their parser default is None)."""
    return {name for name in SPEC_FIELDS if getattr(args, name, None) is not None}


def workload_from_args(args: argparse.Namespace) -> WorkloadSpec:
    """The generator's spec: each flag given, else the default scenario's value; a flag that the workload which runs
    (the preset, or --trace's requests) would not read is refused, naming it and the workload."""
    given = given_workload_fields(args)
    values = {name: getattr(args, name) if name in given else getattr(DEFAULT_SCENARIO.workload, name)
              for name in SPEC_FIELDS}
    spec = WorkloadSpec(**values)
    if getattr(args, "trace", None) is not None:
        return spec  # load_trace_requests refuses the flags once the file itself has passed its checks
    unused = unused_fields(args.workload, spec, given)
    if unused == ["burstiness_cv"] and "burstiness_cv" in PRESET_FIELDS[args.workload]:
        raise InputError(f"--burstiness-cv shapes gamma arrivals only, but the workload preset {args.workload!r} "
                         f"runs --arrival {spec.arrival}: add --arrival gamma or drop it")
    if unused:
        reads = ", ".join(_flag(f) for f in SPEC_FIELDS if f not in unused_fields(args.workload, spec, SPEC_FIELDS))
        raise InputError(f"{', '.join(map(_flag, unused))}: the workload preset {args.workload!r} does not use "
                         f"{'it' if len(unused) == 1 else 'them'} (it reads {reads}); choose a preset that does, "
                         f"e.g. --workload synthetic")
    return spec


def workload_name(args: argparse.Namespace) -> str:
    """The workload that ran, as the JSON names it: the preset, or "trace:FILE" for a replayed trace."""
    return f"trace:{args.trace.name}" if getattr(args, "trace", None) is not None else args.workload


def _add_cache_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--block-size", type=int, default=None,
                   help="tokens per KV block (default: the engine's: vLLM 16, TensorRT-LLM tokens_per_block 32)")
    # vLLM's own pair (BooleanOptionalAction, as vllm serve's --enable-prefix-caching / --no-enable-prefix-caching);
    # unset = the engine's default (PolicyEntry.prefix_caching_default). SGLang's name for "off" works too.
    p.add_argument("--enable-prefix-caching", action=argparse.BooleanOptionalAction, default=None,
                   help="reuse cached full blocks across requests (default: the engine's: on for vLLM V1, SGLang and "
                        "TensorRT-LLM, off for vLLM V0, Sarathi-Serve, Orca and static)")
    p.add_argument("--disable-radix-cache", action="store_true",
                   help="SGLang's name for --no-enable-prefix-caching")
    p.add_argument("--eviction", choices=EVICTION_NAMES, default="lru")
    p.add_argument("--allocation", choices=ALLOCATION_NAMES, default="incremental")
    p.add_argument("--gpu-memory-utilization", type=float, default=None,
                   help="vLLM's KV pool: this fraction of GPU memory less the weights (default: V1 0.92, V0 0.90)")
    p.add_argument("--mem-fraction-static", type=float, default=None,
                   help="SGLang's KV pool: this fraction of GPU memory less the weights (default: SGLang's rule, "
                        "(memory − reserved) / memory, ≈0.835 on an H100)")
    p.add_argument("--free-gpu-memory-fraction", type=float, default=None,
                   help="TensorRT-LLM's KV pool: this fraction of the memory free after weights and activations "
                        "(default 0.9)")
    p.add_argument("--num-gpu-blocks", type=int, default=None)


def _read_spec(path: Path, what: str = "spec file", max_bytes: int = MAX_SPEC_BYTES) -> bytes:
    # The input gate: size checked before reading (stat for files, a bounded read for /dev/zero and pipes).
    return read_bounded(path, max_bytes, what)


def scenario_from_args(args: argparse.Namespace) -> Scenario:
    policy = args.policy
    if policy is None:  # the policy the registry marks as vLLM V1 with that switch (PolicyEntry)
        switch = args.enable_chunked_prefill
        policy = DEFAULT_POLICY if switch is None else vllm_v1_policy(switch)
    spec = args.model_spec
    model = model_from_hf_config(_read_spec(spec, "--model-spec")) if spec else get_model(args.model)
    model = _with_max_model_len(model, args.max_model_len)
    gpu = gpu_from_json(_read_spec(args.gpu_spec, "--gpu-spec")) if args.gpu_spec else get_gpu(args.gpu)
    profile = profile_from_json(_read_spec(args.profile, "--profile", MAX_PROFILE_BYTES)) if args.profile else None
    if args.workload is None:
        args.workload = DEFAULT_SCENARIO.workload_preset
    workload = workload_from_args(args)
    scheduler = SchedulerConfig(policy=policy, max_num_batched_tokens=args.max_num_batched_tokens,
                                max_num_seqs=args.max_num_seqs,
                                long_prefill_token_threshold=args.long_prefill_token_threshold,
                                sglang_enable_mixed_chunk=args.sglang_mixed_chunk,
                                trtllm_chunked_context=args.trtllm_chunked_context,
                                trtllm_capacity_policy=args.trtllm_capacity_policy,
                                scheduler_reserve_full_isl=args.scheduler_reserve_full_isl,
                                parallel_sampling=args.parallel_sampling,
                                scheduling_policy=args.scheduling_policy,
                                schedule_low_priority_values_first=args.schedule_low_priority_values_first,
                                priority_scheduling_preemption_threshold=(
                                    args.priority_scheduling_preemption_threshold))
    _check_fractions(args)
    cache = CacheConfig(block_size=args.block_size, gpu_memory_utilization=args.gpu_memory_utilization,
                        mem_fraction_static=args.mem_fraction_static,
                        free_gpu_memory_fraction=args.free_gpu_memory_fraction,
                        num_gpu_blocks=args.num_gpu_blocks, enable_prefix_caching=_prefix_caching(args),
                        eviction=args.eviction, allocation=args.allocation)
    overhead_s = None if args.step_overhead_ms is None else args.step_overhead_ms / 1e3
    cost = CostConfig(step_overhead_s=overhead_s, overlap_scheduling=args.overlap_scheduling,
                      enforce_eager=args.enforce_eager, cuda_graph_max_bs=args.cuda_graph_max_bs)
    return Scenario(workload_preset=args.workload, workload=workload, model=model, gpu=gpu, scheduler=scheduler,
                    cache=cache, cost=cost, tensor_parallel=args.tensor_parallel,
                    record_detail=_record_detail(args), explicit_requests=load_trace_requests(args),
                    cost_profile=profile, fast_forward=getattr(args, "fast_forward", True),
                    deployment=deployment_from_args(args), max_tokens=parse_max_tokens(args.max_tokens))


def _prefix_caching(args: argparse.Namespace) -> bool | None:
    """--enable-prefix-caching / --no-enable-prefix-caching / --disable-radix-cache; None: the engine's default."""
    if not getattr(args, "disable_radix_cache", False):
        return args.enable_prefix_caching
    if args.enable_prefix_caching:
        raise InputError("--disable-radix-cache turns prefix caching off, but --enable-prefix-caching turns it on: "
                         "give one of them")
    return False


def _with_max_model_len(model: ModelSpec, max_model_len: int | None) -> ModelSpec:
    """--max-model-len: at most the model's own (vLLM ModelConfig `_get_and_verify_max_len` refuses a longer one)."""
    if max_model_len is None:
        return model
    limit = model.max_model_len_tokens
    if not 1 <= max_model_len <= limit:
        raise InputError(f"--max-model-len must be an integer from 1 to the model's max length {limit} (vLLM "
                         f"refuses a longer one), got {max_model_len}")
    return replace(model, max_model_len_tokens=max_model_len)


def _record_detail(args: argparse.Namespace) -> bool:
    """Per-step detail when a trace file is asked for (simulate --trace-out) or the caller needs it (export-html)."""
    return getattr(args, "trace_out", None) is not None or getattr(args, "record_detail", False)


def _time_window(text: str | None) -> tuple[float, float] | None:
    if text is None:
        return None
    parts = text.split(":")
    try:
        start_s, end_s = (float(x) for x in parts)
    except ValueError:
        raise InputError(f"--time-window must look like A:B (seconds), got {text!r}") from None
    return (start_s, end_s)


def load_trace_requests(args: argparse.Namespace) -> tuple[Request, ...] | None:
    """Requests from --trace after window, rate scaling and sampling, or None for a synthetic workload."""
    if args.trace is None:
        if args.time_window or args.rate_scale is not None or args.sample is not None:
            raise InputError("--time-window, --rate-scale and --sample need --trace FILE")
        return None
    loaded = load_trace(args.trace, args.trace_format, name=args.trace.name)
    requests = select(loaded.requests, time_window_s=_time_window(args.time_window), rate_scale=args.rate_scale,
                      sample=args.sample, seed=DEFAULT_SCENARIO.workload.seed if args.seed is None else args.seed)
    # Checked once the file and its selection passed their own checks, so those keep their messages.
    unused = sorted(given_workload_fields(args) - {"seed"})  # the trace's requests are its own; --seed draws --sample
    if unused:
        raise InputError(f"{', '.join(map(_flag, unused))} shape a generated workload, but --trace replays "
                         f"{args.trace.name}'s own requests: drop {'it' if len(unused) == 1 else 'them'}")
    return requests


def summary_dict(trace: Trace, args: argparse.Namespace) -> dict[str, Any]:
    slo_ttft = args.slo_ttft_ms / 1e3 if args.slo_ttft_ms is not None else None
    slo_tbt = args.slo_tbt_ms / 1e3 if args.slo_tbt_ms is not None else None
    m = summarize(trace, slo_ttft, slo_tbt)
    out = m.to_dict()
    slo_e2e = args.slo_e2e_ms / 1e3 if args.slo_e2e_ms is not None else None
    out.update(goodput(trace, Slo(slo_ttft, slo_tbt, slo_e2e)))
    out.update(budget_tokens=trace.budget_tokens, max_num_seqs=trace.max_num_seqs, prefix_caching=trace.prefix_caching,
               slo_e2e_s=slo_e2e, num_gpu_blocks=trace.num_gpu_blocks, block_size=trace.block_size,
               kv_pool_bytes=trace.kv_pool_bytes,
               peak_blocks_used=trace.peak_blocks_used, num_evicted_blocks=trace.num_evicted_blocks,
               blocks_in_use_at_end=trace.blocks_in_use_at_end, fast_forwarded_steps=trace.fast_forwarded_steps,
               first_rejection_reason=next((r.rejected_reason for r in trace.requests if r.rejected_reason), None))
    out.update(_by_priority(trace))
    return out


def _by_priority(trace: Trace) -> dict[str, Any]:
    """Each priority class's TTFT and end-to-end latency, when the workload has several classes (what
    --scheduling-policy priority trades between them); keyed by the priority value as a string."""
    classes = sorted({r.priority for r in trace.requests})
    if len(classes) < 2:
        return {}
    return {"by_priority": {str(p): {"num_requests": m.num_requests, "ttft_s": m.to_dict()["ttft_s"],
                                     "e2e_s": m.to_dict()["e2e_s"]}
                            for p in classes for m in (summarize(trace, priority=p),)}}


def _profile_summary(scenario: Scenario) -> dict[str, Any] | None:
    profile = scenario.cost_profile
    if profile is None:
        return None
    return {"device_name": profile.device_name, "dtype": profile.dtype, "measured_layers": profile.model.num_layers,
            "measured_hidden_size": profile.model.hidden_size,
            "layer_scale": scenario.model.num_layers / profile.model.num_layers}


def _check_slo(name: str, value: float | None) -> None:
    if value is not None and not (math.isfinite(value) and 0 < value <= 3_600_000):
        raise InputError(f"--{name} must be a number of milliseconds in (0, 3600000], got {value}")


def run(args: argparse.Namespace) -> int:
    _check_slo("slo-ttft-ms", args.slo_ttft_ms)
    _check_slo("slo-tbt-ms", args.slo_tbt_ms)
    _check_slo("slo-e2e-ms", args.slo_e2e_ms)
    scenario = scenario_from_args(args)
    if scenario.deployment is not None:  # every instance's notes are the same: they come with the merged trace
        out, deployment = deployment_keys(scenario, args)
        trace = deployment.trace
    else:
        trace = run_scenario(scenario)  # builds the config and resolves the knobs once; the notes come with it
    for note in trace.knob_notes:
        sys.stderr.write(f"chunkviz simulate: note: {note}\n")
    if scenario.deployment is None:
        out = summary_dict(trace, args)
        out["cost_profile"] = _profile_summary(scenario)
    out["workload"] = workload_name(args)
    if args.trace_out is not None:
        args.trace_out.write_text(trace.to_json() if scenario.deployment is None else deployment_json(deployment))
    if args.json:
        sys.stdout.write(strict_dumps(out, sort_keys=True) + "\n")
        return 0
    sys.stdout.write(_table(out))
    return 0


def deployment_keys(scenario: Scenario, args: argparse.Namespace) -> tuple[dict[str, Any], Any]:
    """simulate --json of a deployment: every key of a single run (over the merged trace) plus the deployment's."""
    run = run_deployment_scenario(scenario)
    out = summary_dict(run.trace, args)
    out["cost_profile"] = _profile_summary(scenario)
    slo = Slo(*(None if v is None else v / 1e3 for v in (args.slo_ttft_ms, args.slo_tbt_ms, args.slo_e2e_ms)))
    out.update(deployment_summary(run, slo))
    return out, run


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value * 1e3:9.1f}"


def _table(out: dict[str, Any]) -> str:
    lines = [f"policy {out['policy']}  budget {out['budget_tokens']} tokens  steps {out['num_steps']}  "
             f"finished {out['num_finished']}/{out['num_requests']}  rejected {out['num_rejected']}",
             f"{'metric':10} {'mean':>9} {'p50':>9} {'p90':>9} {'p99':>9}  (ms)"]
    for key in ("ttft_s", "tbt_s", "tpot_s", "e2e_s"):
        d = out[key]
        lines.append(f"{key[:-2]:10} {_ms(d['mean'])} {_ms(d['p50'])} {_ms(d['p90'])} {_ms(d['p99'])}")
    if out.get("cost_profile"):
        cp = out["cost_profile"]
        lines.append(f"step times: cost profile measured on {cp['device_name']} ({cp['measured_layers']} layers, "
                     f"scaled x{cp['layer_scale']:.3g} to the model's layers)")
    if out.get("deployment"):
        d, kv = out["deployment"], out["kv_transfer_s"]
        wait = "" if kv is None or kv["p50"] is None else (
            f", KV transfer wait p50 {kv['p50'] * 1e3:.2f} ms p99 {kv['p99'] * 1e3:.2f} ms")
        good = "-" if out["goodput_per_gpu"] is None else f"{out['goodput_per_gpu']:.3f}"
        lines.append(f"deployment {d['label']} on {d['num_gpus']} GPUs: "
                     f"{out['throughput_output_tokens_per_s_per_gpu']:.1f} output tokens/s per GPU, "
                     f"goodput {good} requests/s per GPU{wait}")
    if out["num_rejected"]:
        lines.append(f"rejected {out['num_rejected']}: first reason: {out['first_rejection_reason']}")
    lines.append(f"throughput {out['throughput_output_tokens_per_s']:.1f} output tokens/s, "
                 f"MFU {out['mfu_mean']:.2f}, preemptions {out['num_preemptions']}, "
                 f"KV blocks {out['peak_blocks_used']}/{out['num_gpu_blocks']} peak")
    return "\n".join(lines) + "\n"


def _check_fractions(args: argparse.Namespace) -> None:
    """The engines' memory fractions, each in (0, 1] (a NaN or a percentage is refused naming its flag)."""
    for name in ("gpu_memory_utilization", "mem_fraction_static", "free_gpu_memory_fraction"):
        value = getattr(args, name)
        if value is not None and not 0.0 < value <= 1.0:  # False for NaN too
            raise InputError(f"--{name.replace('_', '-')} must be a fraction in (0, 1], got {value}")
