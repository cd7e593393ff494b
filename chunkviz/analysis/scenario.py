"""A Scenario bundles everything a run needs (workload, model, GPU, knobs) in one hashable value.

Invariant: run_scenario(s) is a pure function of s, so the app can cache traces keyed by the scenario.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from chunkviz.cost.catalogue import GPUS, MODELS
from chunkviz.config import (DEFAULT_POLICY, CacheConfig, CostConfig, CostProfile, GpuSpec, ModelSpec, SchedulerConfig,
                             SimConfig)
from chunkviz.simulator.engine import simulate
from chunkviz.workloads.presets import make_workload
from chunkviz.request import Request
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

    def sim_config(self) -> SimConfig:
        return SimConfig(model=self.model, gpu=self.gpu, scheduler=self.scheduler, cache=self.cache,
                         cost=self.cost, tensor_parallel=self.tensor_parallel, record_detail=self.record_detail,
                         cost_profile=self.cost_profile, fast_forward=self.fast_forward)

    def requests(self) -> tuple[Request, ...]:
        if self.explicit_requests is not None:
            return self.explicit_requests
        return make_workload(self.workload_preset, self.workload)

    def with_policy(self, policy: str, max_num_batched_tokens: int | None) -> "Scenario":
        return replace(self, scheduler=replace(self.scheduler, policy=policy,
                                               max_num_batched_tokens=max_num_batched_tokens))


DEFAULT_SCENARIO = Scenario()


def run_scenario(scenario: Scenario) -> Trace:
    return simulate(scenario.sim_config(), scenario.requests())
