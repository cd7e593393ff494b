"""Frozen configuration of one simulation, one module per subject; every name is importable from chunkviz.config.

  hardware      ModelSpec, GpuSpec and vLLM's tensor-parallel sharding rule
  engine_knobs  SchedulerConfig, CacheConfig, CostConfig and the names their settings take
  profile       CostProfile, MeasuredPoint: measured step times a run may use instead of the roofline
  sim           SimConfig, the bundle of all of the above plus the run's limits
  checks        the value checks their __post_init__ methods share

Invariant: every config that passes `__post_init__` describes a run the engine can start; a bad value fails where
the config is built, with a message that states the rule, never later inside the loop. Layer 0: imports only the
standard library and chunkviz.config's own modules.
"""

from chunkviz.config.engine_knobs import (ALLOCATION_NAMES, DEFAULT_POLICY, EVICTION_NAMES, MAX_NUM_GPU_BLOCKS,
                                          PARALLEL_SAMPLING_MODES, SCHEDULING_POLICIES, TRTLLM_CAPACITY_POLICIES,
                                          CacheConfig, CostConfig, SchedulerConfig)
from chunkviz.config.hardware import GpuSpec, ModelSpec, tensor_parallel_problem
from chunkviz.config.profile import CostProfile, MeasuredPoint, PointKind
from chunkviz.config.sim import MAX_SIM_STEPS, SimConfig

__all__ = ["ALLOCATION_NAMES", "DEFAULT_POLICY", "EVICTION_NAMES", "MAX_NUM_GPU_BLOCKS", "MAX_SIM_STEPS",
           "PARALLEL_SAMPLING_MODES", "SCHEDULING_POLICIES", "TRTLLM_CAPACITY_POLICIES", "CacheConfig", "CostConfig",
           "CostProfile", "GpuSpec", "MeasuredPoint", "ModelSpec", "PointKind", "SchedulerConfig", "SimConfig",
           "tensor_parallel_problem"]
