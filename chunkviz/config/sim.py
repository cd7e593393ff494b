"""SimConfig: everything one simulation needs but the workload (model, GPU, scheduler, cache, cost model, limits).

Invariant: every SimConfig that passes `__post_init__` describes a run the engine can start; a bad value fails here
with a message that states the rule, never later inside the loop.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from chunkviz.config.checks import check_positive_int
from chunkviz.config.engine_knobs import CacheConfig, CostConfig, SchedulerConfig
from chunkviz.config.hardware import GpuSpec, ModelSpec, tensor_parallel_problem
from chunkviz.config.profile import CostProfile

# Hard bound on the engine loop (simulator/engine.py raises errors.SimulationLimitError): 100 steps a request at
# engine.MAX_NUM_REQUESTS (200k); the 20k-request azure-conv-like run takes about 425k steps, so 100k need ~2.1M.
MAX_SIM_STEPS = 20_000_000


@dataclass(frozen=True, slots=True)
class SimConfig:
    """Everything but the workload: one engine on `tensor_parallel` GPUs."""

    model: ModelSpec
    gpu: GpuSpec
    scheduler: SchedulerConfig = SchedulerConfig()
    cache: CacheConfig = CacheConfig()
    cost: CostConfig = CostConfig()
    tensor_parallel: int = field(default=1, metadata={"help": "GPUs that split weights and KV (all-reduce per layer)"})
    record_detail: bool = field(default=True, metadata={
        "help": "Keep per-step records, events and block snapshots (off for large runs)"})
    max_num_steps: int = MAX_SIM_STEPS
    cost_profile: CostProfile | None = field(default=None, metadata={
        "help": "Measured step times (python -m chunkviz measure) used instead of the roofline; see "
                "chunkviz/cost/profiled.py"})
    fast_forward: bool = field(default=True, metadata={
        "help": "Advance steady decode-only stretches in O(1) per step (identical results; see "
                "chunkviz/simulator/fast_forward.py)"})

    def __post_init__(self) -> None:
        check_positive_int("tensor_parallel", self.tensor_parallel)
        if self.tensor_parallel > 64:
            raise ValueError(f"tensor_parallel must be at most 64, got {self.tensor_parallel}")
        problem = tensor_parallel_problem(self.model, self.tensor_parallel)
        if problem:
            raise ValueError(problem)
        check_positive_int("max_num_steps", self.max_num_steps)
        if self.max_num_steps > MAX_SIM_STEPS:
            raise ValueError(f"max_num_steps must be at most {MAX_SIM_STEPS}")
        explicit = self.scheduler.max_num_batched_tokens
        block_size = self.cache.block_size  # None: the engine's, checked when resolved (policies/resolve.py)
        if explicit is not None and block_size is not None and explicit < block_size:
            raise ValueError(f"max_num_batched_tokens ({explicit}) must cover at least one KV block "
                             f"(block_size={self.cache.block_size})")
