"""Deployments measured per GPU: the summary keys of a deployment run, and DistServe's goodput per GPU.

Invariant: every figure is a pure function of the scenario (and the SLOs); per-GPU figures divide by the GPUs the
deployment occupies (instances x tensor_parallel), so 1P+1D is compared with two colocated GPUs, not with one.

Two goodputs per GPU, named apart:
  - `goodput_per_gpu` (simulate --json, one run): goodput.py's strict goodput (requests whose TTFT and every token
    gap meet the SLOs, per second of makespan) divided by the GPUs; it depends on the offered load.
  - `max_goodput_per_gpu` (this module's search, the closing figures): DistServe's measure (OSDI'24 §2.1: "the
    maximum request rate that can be served adhering to the SLO attainment goal ... per GPU"): the highest arrival
    rate whose run meets the SLOs, over the GPUs. Our SLO is on distributions, as the issue states it: TTFT p90
    (over requests) and TBT p99 (over every token gap, the capacity command's measure), with nothing rejected;
    DistServe's "90% of requests meet both" is the per-request twin (`slo_attainment` >= 0.9).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, replace
from typing import Any

from chunkviz.analysis.capacity import at_rate
from chunkviz.analysis.goodput import Slo, goodput
from chunkviz.analysis.metrics import dist, summarize
from chunkviz.analysis.scenario import Scenario
from chunkviz.simulator.deployment import DeploymentRun, DeploymentSpec, run_deployment

MAX_SEARCH_PROBES = 40


def run_deployment_scenario(scenario: Scenario) -> DeploymentRun:
    spec = scenario.deployment if scenario.deployment is not None else DeploymentSpec()
    return run_deployment(scenario.sim_config(), scenario.requests(), spec)


def deployment_summary(run: DeploymentRun, slo: Slo) -> dict[str, Any]:
    """The JSON keys a deployment adds to `simulate --json`: deployment, kv_transfer_s, goodput_per_gpu, ..."""
    spec, trace = run.spec, run.trace
    exposed = dist(t.exposed_s for t in run.transfers)
    strict = goodput(trace, slo)["goodput_strict_requests_per_s"]
    m = summarize(trace)
    return {
        "deployment": {"kind": spec.kind, "label": spec.label(), "num_gpus": run.num_gpus,
                       "instances": spec.num_instances if spec.kind == "colocated" else None,
                       "prefill_instances": spec.num_prefill_instances if spec.kind == "disagg" else None,
                       "decode_instances": spec.num_decode_instances if spec.kind == "disagg" else None,
                       "routing": spec.routing,
                       "kv_link": None if spec.kind == "colocated" else {
                           "name": spec.kv_link.name, "gb_per_s": spec.kv_link.bytes_per_s / 1e9,
                           "latency_s": spec.kv_link.latency_s, "setup_s": spec.kv_link.setup_s,
                           "transfer": spec.transfer_mode}},
        # The wait after each prefill until its KV is at the decode instance (KvTransfer.exposed_s); null colocated.
        "kv_transfer_s": None if spec.kind == "colocated" else {
            "mean": exposed.mean, "p50": exposed.p50, "p99": exposed.p99, "max": exposed.max, "count": exposed.count},
        "kv_transfer_bytes": sum(t.num_bytes for t in run.transfers),
        "goodput_per_gpu": None if strict is None else strict / run.num_gpus,
        "throughput_output_tokens_per_s_per_gpu": m.throughput_output_tokens_per_s / run.num_gpus,
    }


@dataclass(frozen=True, slots=True)
class RateSlo:
    ttft_p90_s: float
    tbt_p99_s: float


def meets(scenario: Scenario, qps: float, slo: RateSlo) -> bool:
    m = summarize(run_deployment_scenario(at_rate(scenario, qps)).trace)
    return (m.num_rejected == 0 and m.ttft_s.p90 is not None and m.ttft_s.p90 <= slo.ttft_p90_s
            and (m.tbt_s.p99 is None or m.tbt_s.p99 <= slo.tbt_p99_s))


def max_goodput_per_gpu(scenario: Scenario, slo: RateSlo, qps_min: float = 0.25, qps_max: float = 256.0,
                        tolerance: float = 0.02) -> float:
    """DistServe's per-GPU goodput: the highest rate meeting `slo` (doubling from qps_min until a rate fails, then
    bisecting to `tolerance`), over the deployment's GPUs; 0.0 when even qps_min fails. Bounded by
    MAX_SEARCH_PROBES simulations."""
    spec = scenario.deployment if scenario.deployment is not None else DeploymentSpec()
    num_gpus = spec.num_engines * scenario.tensor_parallel
    good, bad, probes = 0.0, math.inf, 0
    qps = qps_min
    while probes < MAX_SEARCH_PROBES and qps <= qps_max:  # grow
        probes += 1
        if not meets(scenario, qps, slo):
            bad = qps
            break
        good, qps = qps, qps * 2
    while probes < MAX_SEARCH_PROBES and good > 0 and bad - good > tolerance * good and math.isfinite(bad):
        probes += 1
        mid = (good + bad) / 2
        good, bad = (mid, bad) if meets(scenario, mid, slo) else (good, mid)
    return good / num_gpus


def with_deployment(scenario: Scenario, spec: DeploymentSpec | None) -> Scenario:
    return replace(scenario, deployment=spec, record_detail=False)


def deployment_json(run: DeploymentRun) -> str:
    """`simulate --deployment … --trace-out FILE`: each instance's own trace (its lanes), each transfer, and the
    merged trace, as one JSON object (each trace as Trace.to_json writes it)."""
    instances = [{"role": i.role, "index": i.index, "request_ids": list(i.request_ids),
                  "trace": json.loads(i.trace.to_json())} for i in run.instances]
    transfers = [{"request_id": t.request_id, "prefill_instance": t.prefill_instance,
                  "decode_instance": t.decode_instance, "num_bytes": t.num_bytes, "prefill_start_s": t.prefill_start_s,
                  "prefill_end_s": t.prefill_end_s, "start_s": t.start_s, "ready_s": t.ready_s}
                 for t in run.transfers]
    return json.dumps({"deployment": run.spec.label(), "num_gpus": run.num_gpus, "instances": instances,
                       "transfers": transfers, "merged": json.loads(run.trace.to_json())},
                      sort_keys=True, separators=(",", ":"), allow_nan=False)
