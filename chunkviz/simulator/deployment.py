"""Deployments of several engine instances: colocated (N GPUs, each prefilling and decoding its own requests) or
disaggregated (P prefill instances, D decode instances, the KV cache shipped between them).

Invariant: run_deployment is a pure function of (config, requests, spec); every request ends finished or rejected
exactly once; under disaggregation every prompt token is computed on a prefill instance and a decode instance
computes only decode tokens (unless it preempts a request: then, like vLLM's decode side, it recomputes locally).

Disaggregation, as DistServe (OSDI'24 §4), Splitwise (ISCA'24 §4) and the engines run it (vLLM's disaggregated
prefill with a KV connector, SGLang --disaggregation-mode prefill|decode, TensorRT-LLM's context/generation
servers, Mooncake): the router sends a request to a prefill instance, which computes the prompt and samples a
first token (vLLM's proxy sends the prefill request with max_tokens=1); the KV cache then crosses the link
(kv_link.py: the connector's effective bandwidth and per-transfer setup, in the engine's own transfer mode unless
the spec names one) to a decode instance, which admits the request once the cache has arrived and its blocks fit,
and generates the rest. The user's first token comes through the decode side: under vLLM after the decode side's
first step (which recomputes the prompt's last token and samples token 1; PolicyEntry.pd_first_token_from_decode),
under SGLang and TensorRT-LLM with the KV (the prefill's token). So TTFT = queueing + prefill + the transfer's
exposed time (+ vLLM's first decode-side step); DistServe's own TTFT stops at the prefill (its prefill instance
could stream token 1 directly), so ours is the more conservative figure. The simulation follows the data flow: all
prefill instances first (each request with one output token), then the transfers, then the decode instances with
each request arriving at its KV-ready time with `Request.kv_transferred`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Sequence

from chunkviz.config import SimConfig
from chunkviz.cost.profiled import make_step_coster
from chunkviz.errors import InputError
from chunkviz.request import Request
from chunkviz.simulator.deployment_merge import InstanceRun, KvTransfer, merge_traces
from chunkviz.simulator.engine import simulate
from chunkviz.simulator.kv_link import KV_LINKS, TRANSFER_MODES, KvLink, transfer_times
from chunkviz.simulator.policies.registry import policy_entry
from chunkviz.simulator.routing import ROUTING_RULES, route_in_flight, route_prefill
from chunkviz.simulator.trace import Trace

DEPLOYMENTS: tuple[str, ...] = ("colocated", "disagg")
MAX_INSTANCES = 64


@dataclass(frozen=True, slots=True)
class DeploymentSpec:
    """How many instances of which role; each instance is one engine on `tensor_parallel` GPUs."""

    kind: str = "colocated"
    num_instances: int = 1  # colocated
    num_prefill_instances: int = 1  # disagg
    num_decode_instances: int = 1  # disagg
    kv_link: KvLink = field(default=KV_LINKS["nvlink"])
    transfer_mode: str | None = None  # None: the engine's connector default (PolicyEntry.kv_transfer_default)
    routing: str = "round-robin"

    def __post_init__(self) -> None:
        if self.kind not in DEPLOYMENTS:
            raise InputError(f"--deployment must be one of {', '.join(DEPLOYMENTS)}, got {self.kind!r}")
        for flag, value in (("--instances", self.num_instances), ("--prefill-instances", self.num_prefill_instances),
                            ("--decode-instances", self.num_decode_instances)):
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_INSTANCES:
                raise InputError(f"{flag} must be a whole number in [1, {MAX_INSTANCES}], got {value!r}")
        if self.transfer_mode is not None and self.transfer_mode not in TRANSFER_MODES:
            raise InputError(f"--kv-transfer must be one of {', '.join(TRANSFER_MODES)}, got {self.transfer_mode!r}")
        if self.routing not in ROUTING_RULES:
            raise InputError(f"--routing must be one of {', '.join(ROUTING_RULES)}, got {self.routing!r}")

    @property
    def num_engines(self) -> int:
        return self.num_instances if self.kind == "colocated" else self.num_prefill_instances + self.num_decode_instances

    def label(self) -> str:
        if self.kind == "colocated":
            return f"{self.num_instances} colocated"
        mode = self.transfer_mode or "engine-default"
        return f"{self.num_prefill_instances}P+{self.num_decode_instances}D {self.kv_link.name} {mode}"


@dataclass(frozen=True, slots=True)
class DeploymentRun:
    """Everything a chapter needs to draw the run: each instance's own trace, each transfer, and the merged trace
    (one RequestResult per request, as the user saw it) that every metric reads."""

    spec: DeploymentSpec
    num_gpus: int
    instances: tuple[InstanceRun, ...]
    transfers: tuple[KvTransfer, ...]  # by request id
    trace: Trace


def run_deployment(config: SimConfig, requests: Sequence[Request], spec: DeploymentSpec) -> DeploymentRun:
    ordered = sorted(requests, key=lambda r: (r.arrival_s, r.request_id))
    num_gpus = spec.num_engines * config.tensor_parallel
    if spec.kind == "colocated":
        chosen = route_in_flight(ordered, spec.num_instances, spec.routing, make_step_coster(config), True)
        instances = _run_instances(config, "colocated", ordered, chosen, spec.num_instances)
        return DeploymentRun(spec, num_gpus, instances, (), merge_traces(config, instances, (), ordered))
    if config.scheduler.parallel_sampling == "v0-fork-cow" or any(r.n_samples > 1 for r in ordered):
        raise InputError("--deployment disagg does not model parallel sampling (n > 1); use --n-samples 1 and a workload without parallel sampling")
    if spec.transfer_mode is None:  # the engine's connector as shipped (registry PolicyEntry.kv_transfer_default)
        spec = replace(spec, transfer_mode=policy_entry(config.scheduler.policy).kv_transfer_default)
    prefill_requests = [replace(r, output_tokens=1) for r in ordered]
    chosen = route_prefill(ordered, spec.num_prefill_instances, spec.routing, make_step_coster(config))
    prefills = _run_instances(config, "prefill", prefill_requests, chosen, spec.num_prefill_instances)
    transfers, decode_requests = _transfers(config, spec, ordered, prefills, chosen)
    decodes = _run_instances(config, "decode", decode_requests, [t.decode_instance for t in transfers],
                             spec.num_decode_instances)
    instances = prefills + decodes
    by_id = tuple(sorted(transfers, key=lambda t: t.request_id))
    return DeploymentRun(spec, num_gpus, instances, by_id, merge_traces(config, instances, by_id, ordered))


def _run_instances(config: SimConfig, role: str, requests: Sequence[Request], chosen: Sequence[int],
                   num_instances: int) -> tuple[InstanceRun, ...]:
    runs = []
    for index in range(num_instances):
        mine = tuple(r for r, k in zip(requests, chosen) if k == index)
        runs.append(InstanceRun(role, index, tuple(r.request_id for r in mine), simulate(config, mine)))
    return tuple(runs)


def _transfers(config: SimConfig, spec: DeploymentSpec, ordered: Sequence[Request],
               prefills: tuple[InstanceRun, ...], chosen: Sequence[int]) -> tuple[list[KvTransfer], list[Request]]:
    """Each finished prefill's KV over its instance's link, in the order the prefills ended (ties by id); the
    decode instance is routed in that order. One-token requests are done after the prefill and go nowhere."""
    original = {r.request_id: r for r in ordered}
    instance_of = {r.request_id: k for r, k in zip(ordered, chosen)}
    done = [res for run in prefills for res in run.trace.requests
            if res.first_token_s is not None and original[res.request_id].output_tokens > 1]
    done.sort(key=lambda res: (res.first_token_s, res.request_id))
    link_free_s = [0.0] * spec.num_prefill_instances
    model = config.model
    chunk_tokens = prefills[0].trace.budget_tokens  # per-chunk: a prompt leaves in budget-sized prefill chunks
    pending = []
    for res in done:
        p = instance_of[res.request_id]
        num_bytes = model.kv_bytes_per_token * res.prompt_tokens
        times = transfer_times(spec.kv_link, num_bytes, model.num_layers, config.tensor_parallel,
                               spec.transfer_mode, res.first_scheduled_s, res.first_token_s, link_free_s[p],
                               -(-res.prompt_tokens // chunk_tokens))
        link_free_s[p] = times.wire_end_s
        pending.append((res, p, num_bytes, times))
    pending.sort(key=lambda item: (item[3].ready_s, item[0].request_id))
    decode_requests = [replace(original[res.request_id], arrival_s=times.ready_s, kv_transferred=True)
                       for res, _, _, times in pending]
    targets = route_in_flight(decode_requests, spec.num_decode_instances, spec.routing,
                              make_step_coster(config), False)
    transfers = [KvTransfer(res.request_id, p, d, num_bytes, res.first_scheduled_s, res.first_token_s,
                            times.start_s, times.ready_s)
                 for (res, p, num_bytes, times), d in zip(pending, targets)]
    return transfers, decode_requests
