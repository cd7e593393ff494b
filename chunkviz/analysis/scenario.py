"""A Scenario bundles everything a run needs (workload, model, GPU, knobs) in one hashable value.

Invariant: run_scenario(s) is a pure function of s, so the app can cache traces keyed by the scenario.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from chunkviz.cost.catalogue import GPUS, MODELS
from chunkviz.config import (DEFAULT_POLICY, CacheConfig, CostConfig, CostProfile, GpuSpec, ModelSpec, SchedulerConfig,
                             SimConfig)
from chunkviz.simulator.deployment import DeploymentSpec, run_deployment
from chunkviz.simulator.engine import simulate
from chunkviz.workloads.presets import make_workload
from chunkviz.request import MAX_TOKENS_AS_OUTPUT, Request
from chunkviz.workloads.max_tokens import MaxTokens, apply_max_tokens
from chunkviz.simulator.trace import Trace
from chunkviz.workloads.generators import WorkloadSpec


@dataclass(frozen=True, slots=True)
class Scenario:
    workload_preset: str = "long-among-chats"
    workload: WorkloadSpec = WorkloadSpec(num_requests=64, qps=16.0, prompt_tokens=300, output_tokens=128)
    model: ModelSpec = MODELS["llama-3-8b"]
    gpu: GpuSpec = GPUS["h100-sxm"]
    scheduler: SchedulerConfig = SchedulerConfig(policy=DEFAULT_POLICY, max_num_batched_tokens=512)
    cache: CacheConfig = CacheConfig()
    cost: CostConfig = CostConfig()
    tensor_parallel: int = 1
    record_detail: bool = True
    # Requests given explicitly (a loaded trace) replace the preset.
    explicit_requests: tuple[Request, ...] | None = field(default=None, compare=True)
    # Measured step times replace the roofline (chunkviz.cost.profiled says how they are applied).
    cost_profile: CostProfile | None = None
    # Off only to check the fast path against the exact one (results are identical either way).
    fast_forward: bool = True
    # Several instances (simulator/deployment.py); None = one engine, as every run before deployments existed.
    deployment: DeploymentSpec | None = None
    # The client's max_tokens on every request (workloads/max_tokens.py): "output" (unchanged), None (unset) or a cap.
    max_tokens: MaxTokens = MAX_TOKENS_AS_OUTPUT

    def sim_config(self) -> SimConfig:
        return SimConfig(model=self.model, gpu=self.gpu, scheduler=self.scheduler, cache=self.cache,
                         cost=self.cost, tensor_parallel=self.tensor_parallel, record_detail=self.record_detail,
                         cost_profile=self.cost_profile, fast_forward=self.fast_forward)

    def requests(self) -> tuple[Request, ...]:
        requests = self.explicit_requests
        if requests is None:
            requests = make_workload(self.workload_preset, self.workload)
        return apply_max_tokens(requests, self.max_tokens)

    def with_policy(self, policy: str, max_num_batched_tokens: int | None) -> "Scenario":
        return replace(self, scheduler=replace(self.scheduler, policy=policy,
                                               max_num_batched_tokens=max_num_batched_tokens))


DEFAULT_SCENARIO = Scenario()


def run_scenario(scenario: Scenario) -> Trace:
    """The trace of the run; for a deployment, the merged one (the user's view of every request)."""
    if scenario.deployment is not None:
        return run_deployment(scenario.sim_config(), scenario.requests(), scenario.deployment).trace
    return simulate(scenario.sim_config(), scenario.requests())
