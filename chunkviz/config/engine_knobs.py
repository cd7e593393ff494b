"""The knobs of a serving engine as its users set them: scheduler, paged KV cache, and the cost model's assumptions.

Invariant: a SchedulerConfig, CacheConfig or CostConfig that exists holds only values the engine accepts (names from
the lists below, positive sizes, fractions in range); None leaves a knob to the engine's default, which the policy
registry resolves per engine and GPU (chunkviz.simulator.policies.resolve.resolve_knobs).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from chunkviz.config.checks import check_positive_int

EVICTION_NAMES: tuple[str, ...] = ("lru", "fifo", "lfu")
ALLOCATION_NAMES: tuple[str, ...] = ("incremental", "reserve")
TRTLLM_CAPACITY_POLICIES: tuple[str, ...] = ("guaranteed-no-evict", "max-utilization")
PARALLEL_SAMPLING_MODES: tuple[str, ...] = ("v1-children", "v0-fork-cow")
# vLLM's --scheduling-policy (vllm/config/scheduler.py SchedulerConfig.policy, default "fcfs"): "priority" orders the
# waiting queue by (Request.priority, arrival), lower value first (vllm/v1/core/sched/request_queue.py).
SCHEDULING_POLICIES: tuple[str, ...] = ("fcfs", "priority")
# The policy a SchedulerConfig names when none is given: vLLM V1's default scheduler. This default value is the one
# policy name outside the policy registry (chunkviz.simulator.policies.registry), which holds every other name and
# every trait, and checks at import that this one is among its entries.
DEFAULT_POLICY = "chunked"
# A paged run keeps one Python object per block; a million (≈200 MB) is far beyond any real GPU's cache at 16
# tokens per block for these models (an H200 holds about 53,000 blocks of Llama-3-8B).
MAX_NUM_GPU_BLOCKS = 1_000_000
# Largest CUDA-graph batch a run may ask for: each captured size costs the engine memory and start-up time, and
# the engines' own defaults stop at 512 (vLLM max_cudagraph_capture_size, SGLang cuda_graph_max_bs on B200).
MAX_CUDA_GRAPH_BS = 4096


@dataclass(frozen=True, slots=True)
class SchedulerConfig:
    """The knobs of a serving engine's scheduler, named as the engines name them; None = the engine's default."""

    policy: str = field(default=DEFAULT_POLICY, metadata={
        "help": "a policy name from chunkviz.simulator.policies.registry (POLICY_NAMES; `simulate --help` lists them)"})
    max_num_batched_tokens: int | None = field(default=None, metadata={
        "help": "Token budget of one engine step, decodes included (TRT-LLM max_num_tokens, SGLang "
                "chunked_prefill_size). None: the engine's default for the GPU"})
    max_num_seqs: int | None = field(default=None, metadata={
        "help": "Most sequences running at once (TRT-LLM max_batch_size, SGLang max_running_requests). None: the "
                "engine's default"})
    long_prefill_token_threshold: int = field(default=0, metadata={
        "help": "Cap on one prompt's tokens per step so long prompts cannot take the whole budget; 0 = off. Applies "
                "only to policies that chunk prompts"})
    sglang_enable_mixed_chunk: bool = field(default=False, metadata={
        "help": "SGLang --enable-mixed-chunk: fold running decodes into prefill batches"})
    trtllm_chunked_context: bool = field(default=False, metadata={
        "help": "TensorRT-LLM enable_chunked_context (off by default in TensorRT-LLM)"})
    trtllm_capacity_policy: str = field(default="guaranteed-no-evict", metadata={
        "help": "TensorRT-LLM CapacitySchedulerPolicy: guaranteed-no-evict or max-utilization"})
    scheduler_reserve_full_isl: bool = field(default=True, metadata={
        "help": "vLLM V1 --scheduler-reserve-full-isl: a waiting request is admitted only if the KV blocks for its "
                "whole prompt fit, not just its first chunk (default on in the vLLM releases after v0.18.0: PR "
                "#37307, March 2026; False: v0.18.0 and earlier, which checked the first chunk). Read only by the "
                "vLLM V1 policies"})
    parallel_sampling: str = field(default="v1-children", metadata={
        "help": "n > 1: v1-children (vLLM V1, n child requests sharing prompt blocks through the prefix cache) or "
                "v0-fork-cow (vLLM V0 / the PagedAttention paper: fork after the prompt, copy-on-write)"})
    scheduling_policy: str = field(default="fcfs", metadata={
        "help": "vLLM --scheduling-policy: fcfs (arrival order) or priority (waiting requests by (priority, "
                "arrival), lower value first; the victim of a preemption is the running request with the largest "
                "(priority, arrival)); SGLang: --enable-priority-scheduling, higher value first unless "
                "schedule_low_priority_values_first"})
    schedule_low_priority_values_first: bool = field(default=False, metadata={
        "help": "SGLang --schedule-low-priority-values-first: under priority scheduling serve lower values first "
                "(SGLang's default serves higher values first; vLLM always serves lower first)"})
    priority_scheduling_preemption_threshold: int = field(default=10, metadata={
        "help": "SGLang --priority-scheduling-preemption-threshold: under priority scheduling a waiting request "
                "preempts running ones only when its priority beats theirs by more than this (server_args.py, "
                "default 10; PrefillAdder.preempt_to_schedule)"})

    def __post_init__(self) -> None:
        if not isinstance(self.policy, str) or not self.policy:
            raise ValueError(f"policy must be a policy name, got {self.policy!r}")
        if self.max_num_batched_tokens is not None:
            check_positive_int("max_num_batched_tokens", self.max_num_batched_tokens)
        if self.max_num_seqs is not None:
            check_positive_int("max_num_seqs", self.max_num_seqs)
        check_positive_int("long_prefill_token_threshold", self.long_prefill_token_threshold, minimum=0)
        if self.trtllm_capacity_policy not in TRTLLM_CAPACITY_POLICIES:
            raise ValueError(f"trtllm_capacity_policy must be one of {', '.join(TRTLLM_CAPACITY_POLICIES)}, "
                             f"got {self.trtllm_capacity_policy!r}")
        if self.parallel_sampling not in PARALLEL_SAMPLING_MODES:
            raise ValueError(f"parallel_sampling must be one of {', '.join(PARALLEL_SAMPLING_MODES)}, "
                             f"got {self.parallel_sampling!r}")
        # SGLang takes any int; below 0 equal priorities would preempt each other in turn, which no run should loop on.
        check_positive_int("priority_scheduling_preemption_threshold", self.priority_scheduling_preemption_threshold,
                           minimum=0)
        if self.scheduling_policy not in SCHEDULING_POLICIES:
            raise ValueError(f"scheduling_policy must be one of {', '.join(SCHEDULING_POLICIES)}, "
                             f"got {self.scheduling_policy!r}")


@dataclass(frozen=True, slots=True)
class CacheConfig:
    """Paged KV cache knobs (vLLM names)."""

    block_size: int | None = field(default=None, metadata={
        "help": "Tokens per KV block. None: the engine's default (vLLM 16; TensorRT-LLM tokens_per_block 32), which "
                "the policy registry resolves (policies/resolve.py with_engine_block_size)"})
    # Each engine's own knob for its KV pool (simulator/policies/memory.py); None: the engine's default. A knob of
    # another engine than the run's is refused there.
    gpu_memory_utilization: float | None = field(default=None, metadata={
        "help": "vLLM: fraction of GPU memory for weights + activations + KV cache (None: V1 0.92, V0 0.90)"})
    mem_fraction_static: float | None = field(default=None, metadata={
        "help": "SGLang: fraction of GPU memory for weights + KV pool (None: SGLang's rule, ≈0.835 on an H100)"})
    free_gpu_memory_fraction: float | None = field(default=None, metadata={
        "help": "TensorRT-LLM: fraction of the memory free after loading that the KV cache takes (None: 0.9)"})
    num_gpu_blocks: int | None = field(default=None, metadata={
        "help": "Override the number of KV blocks (None: derive from memory)"})
    # None: the engine's default (PolicyEntry.prefix_caching_default, resolved by policies/resolve.py
    # resolve_prefix_caching): on for vLLM V1, SGLang and TensorRT-LLM, off for vLLM V0, Sarathi-Serve, Orca, static.
    enable_prefix_caching: bool | None = field(default=None, metadata={
        "help": "Reuse cached full blocks across requests; None: the engine's default (on for vLLM V1, SGLang, "
                "TensorRT-LLM)"})
    eviction: str = field(default="lru", metadata={"help": "Which cached free block dies first: lru, fifo or lfu"})
    allocation: str = field(default="incremental", metadata={
        "help": "incremental (vLLM V1: blocks per step) or reserve (v0/Sarathi: whole prompt at admission)"})

    def __post_init__(self) -> None:
        if self.block_size is not None:
            check_positive_int("block_size", self.block_size)
            if self.block_size > 1024:
                raise ValueError(f"block_size must be at most 1024 tokens, got {self.block_size}")
        for name in ("gpu_memory_utilization", "mem_fraction_static", "free_gpu_memory_fraction"):
            g = getattr(self, name)
            if g is not None and (isinstance(g, bool) or not isinstance(g, (int, float)) or not (0.0 < g <= 1.0)):
                raise ValueError(f"{name} must be in (0, 1], got {g!r}")
        if self.num_gpu_blocks is not None:
            check_positive_int("num_gpu_blocks", self.num_gpu_blocks)
            if self.num_gpu_blocks > MAX_NUM_GPU_BLOCKS:
                raise ValueError(f"num_gpu_blocks must be at most {MAX_NUM_GPU_BLOCKS:,}, got {self.num_gpu_blocks:,}")
        if self.enable_prefix_caching is not None and not isinstance(self.enable_prefix_caching, bool):
            raise ValueError(f"enable_prefix_caching must be true, false or None (the engine's default), "
                             f"got {self.enable_prefix_caching!r}")
        if self.eviction not in EVICTION_NAMES:
            raise ValueError(f"eviction must be one of {', '.join(EVICTION_NAMES)}, got {self.eviction!r}")
        if self.allocation not in ALLOCATION_NAMES:
            raise ValueError(f"allocation must be one of {', '.join(ALLOCATION_NAMES)}, got {self.allocation!r}")


@dataclass(frozen=True, slots=True)
class CostConfig:
    """Assumptions of the cost model that are not datasheet facts; exposed so users can question them."""

    step_overhead_s: float | None = field(default=None, metadata={
        "help": "Flat host time per engine step replacing the engine's host model (scheduling, input preparation, "
                "launches: cost/host_time.py); None: the engine's model; 0: GPU time only"})
    mbu: float = field(default=0.78, metadata={
        "help": "Fraction of HBM bandwidth attention and lm_head kernels reach (vidur A100 linear kernels: about "
                "78%); the dense layers use their own fitted value (chunkviz/cost/fitted.py)"})
    overlap_scheduling: bool | None = field(default=None, metadata={
        "help": "Hide the next step's CPU work behind this step's GPU work: vLLM --async-scheduling (on by default), "
                "SGLang's overlap scheduler (--disable-overlap-schedule), TensorRT-LLM disable_overlap_scheduler. "
                "None: the engine's default (chunkviz/cost/step_pricing.py)"})
    enforce_eager: bool = field(default=False, metadata={
        "help": "No CUDA graphs: vLLM --enforce-eager, SGLang --disable-cuda-graph, TensorRT-LLM "
                "cuda_graph_config=None"})
    cuda_graph_max_bs: int | None = field(default=None, metadata={
        "help": "Largest decode batch captured as a CUDA graph: SGLang --cuda-graph-max-bs, vLLM "
                "max_cudagraph_capture_size, TensorRT-LLM cuda_graph_config.max_batch_size. None: the engine's"})

    def __post_init__(self) -> None:
        o = self.step_overhead_s
        if o is not None and (isinstance(o, bool) or not isinstance(o, (int, float)) or not math.isfinite(o)
                              or o < 0 or o > 1):
            raise ValueError(f"step_overhead_s must be between 0 and 1 second, got {o!r}")
        if isinstance(self.mbu, bool) or not isinstance(self.mbu, (int, float)) or not (0.0 < self.mbu <= 1.0):
            raise ValueError(f"mbu must be in (0, 1], got {self.mbu!r}")
        if self.overlap_scheduling is not None and not isinstance(self.overlap_scheduling, bool):
            raise ValueError(f"overlap_scheduling must be true, false or None, got {self.overlap_scheduling!r}")
        if not isinstance(self.enforce_eager, bool):
            raise ValueError(f"enforce_eager must be true or false, got {self.enforce_eager!r}")
        if self.cuda_graph_max_bs is not None:
            check_positive_int("cuda_graph_max_bs", self.cuda_graph_max_bs)
            if self.cuda_graph_max_bs > MAX_CUDA_GRAPH_BS:
                raise ValueError(f"cuda_graph_max_bs must be at most {MAX_CUDA_GRAPH_BS}, got {self.cuda_graph_max_bs}")
