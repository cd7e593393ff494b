"""Frozen configuration of one simulation: model, GPU, scheduler, KV cache and cost-model knobs.

Invariant: every config that passes `__post_init__` describes a run the engine can start; a bad value fails here
with a message that states the rule, never later inside the loop.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # cost_profile imports this module; the annotation alone needs no import at run time
    from chunkviz.cost.profile import CostProfile


EVICTION_NAMES: tuple[str, ...] = ("lru", "fifo", "lfu")
ALLOCATION_NAMES: tuple[str, ...] = ("incremental", "reserve")
# Policy names and their defaults live in the policy registry (chunkviz.simulator.policies.registry), which also
# resolves the None knobs below per engine and GPU (chunkviz.simulator.knobs.resolve_knobs).
TRTLLM_CAPACITY_POLICIES: tuple[str, ...] = ("guaranteed-no-evict", "max-utilization")
PARALLEL_SAMPLING_MODES: tuple[str, ...] = ("v1-children", "v0-fork-cow")
MAX_SIM_STEPS = 2_000_000  # hard bound on the engine loop; see engine.SimulationLimitError
# A paged run keeps one Python object per block; a million (≈200 MB) is far beyond any real GPU's cache at 16
# tokens per block for these models (an H200 holds about 53,000 blocks of Llama-3-8B).
MAX_NUM_GPU_BLOCKS = 1_000_000


def _check_positive_int(name: str, value: object, minimum: int = 1) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")


def _check_positive_float(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """Shapes of a Llama-style decoder (the figures a roofline needs), with where they came from."""

    model_id: str
    num_layers: int
    hidden_size: int
    num_heads: int
    num_kv_heads: int
    intermediate_size: int
    vocab_size: int
    bytes_per_param: int = 2
    max_model_len_tokens: int = 8192
    source: str = ""
    # Gated MLP (SwiGLU: gate, up, down) as in Llama; False for a plain up/act/down MLP (phi, GPT-style gelu).
    is_gated_mlp: bool = True
    # RMSNorm/LayerNorm kernels per layer: 2 in Llama (before attention and MLP), 1 in phi's parallel block.
    num_norms_per_layer: int = 2

    def __post_init__(self) -> None:
        if not isinstance(self.is_gated_mlp, bool):
            raise ValueError(f"model is_gated_mlp must be true or false, got {self.is_gated_mlp!r}")
        _check_positive_int("model num_norms_per_layer", self.num_norms_per_layer, minimum=0)
        for name in ("num_layers", "hidden_size", "num_heads", "num_kv_heads", "intermediate_size", "vocab_size",
                     "bytes_per_param", "max_model_len_tokens"):
            _check_positive_int(f"model {name}", getattr(self, name))
        if self.hidden_size % self.num_heads:
            raise ValueError("model hidden_size must be divisible by num_attention_heads")
        if self.num_heads % self.num_kv_heads:
            raise ValueError("model num_attention_heads must be divisible by num_key_value_heads")

    @property
    def head_dim(self) -> int:
        return self.hidden_size // self.num_heads

    @property
    def kv_bytes_per_token(self) -> int:
        """K and V for every layer: 2 · layers · kv_heads · head_dim · bytes."""
        return 2 * self.num_layers * self.num_kv_heads * self.head_dim * self.bytes_per_param

    @property
    def params_per_layer(self) -> int:
        """q, o (h·h each), k, v (h·kv_dim each), gate/up/down (3·h·inter; up/down only when not gated), norms."""
        h, kv_dim = self.hidden_size, self.num_kv_heads * self.head_dim
        mlp_mats = 3 if self.is_gated_mlp else 2
        return 2 * h * h + 2 * h * kv_dim + mlp_mats * h * self.intermediate_size + self.num_norms_per_layer * h

    @property
    def num_dense_params(self) -> int:
        return self.num_layers * self.params_per_layer

    @property
    def num_lm_head_params(self) -> int:
        return self.vocab_size * self.hidden_size

    @property
    def weight_bytes(self) -> int:
        """Everything resident: layers, embedding table and lm_head (untied, as in these models)."""
        return (self.num_dense_params + 2 * self.num_lm_head_params) * self.bytes_per_param


@dataclass(frozen=True, slots=True)
class GpuSpec:
    """Datasheet peaks of one GPU."""

    gpu_id: str
    peak_flops_per_s: float  # dense bf16 tensor-core FLOP/s (no 2:4 sparsity)
    hbm_bytes_per_s: float
    memory_bytes: float
    interconnect_bytes_per_s: float  # one direction, GPU to GPU (NVLink or PCIe); used for tensor-parallel all-reduce
    source: str = ""

    def __post_init__(self) -> None:
        for name in ("peak_flops_per_s", "hbm_bytes_per_s", "memory_bytes", "interconnect_bytes_per_s"):
            _check_positive_float(f"gpu {name}", getattr(self, name))

    @property
    def ridge_tokens(self) -> float:
        """Arithmetic intensity (FLOP/byte) where compute and bandwidth limits meet; ≈ tokens per step for bf16 GEMMs."""
        return self.peak_flops_per_s / self.hbm_bytes_per_s


@dataclass(frozen=True, slots=True)
class SchedulerConfig:
    """The knobs of a serving engine's scheduler, named as the engines name them; None = the engine's default."""

    policy: str = field(default="chunked", metadata={
        "help": "a name from chunkviz.simulator.policies.registry (monolithic, vllm-nochunk, chunked, sarathi, "
                "sglang, trtllm, static)"})
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
    parallel_sampling: str = field(default="v1-children", metadata={
        "help": "n > 1: v1-children (vLLM V1, n child requests sharing prompt blocks through the prefix cache) or "
                "v0-fork-cow (vLLM V0 / the PagedAttention paper: fork after the prompt, copy-on-write)"})

    def __post_init__(self) -> None:
        if not isinstance(self.policy, str) or not self.policy:
            raise ValueError(f"policy must be a policy name, got {self.policy!r}")
        if self.max_num_batched_tokens is not None:
            _check_positive_int("max_num_batched_tokens", self.max_num_batched_tokens)
        if self.max_num_seqs is not None:
            _check_positive_int("max_num_seqs", self.max_num_seqs)
        _check_positive_int("long_prefill_token_threshold", self.long_prefill_token_threshold, minimum=0)
        if self.trtllm_capacity_policy not in TRTLLM_CAPACITY_POLICIES:
            raise ValueError(f"trtllm_capacity_policy must be one of {', '.join(TRTLLM_CAPACITY_POLICIES)}, "
                             f"got {self.trtllm_capacity_policy!r}")
        if self.parallel_sampling not in PARALLEL_SAMPLING_MODES:
            raise ValueError(f"parallel_sampling must be one of {', '.join(PARALLEL_SAMPLING_MODES)}, "
                             f"got {self.parallel_sampling!r}")


@dataclass(frozen=True, slots=True)
class CacheConfig:
    """Paged KV cache knobs (vLLM names)."""

    block_size: int = field(default=16, metadata={"help": "Tokens per KV block (vLLM default 16)"})
    gpu_memory_utilization: float = field(default=0.9, metadata={
        "help": "Fraction of GPU memory for weights + KV cache (vLLM default 0.9)"})
    num_gpu_blocks: int | None = field(default=None, metadata={
        "help": "Override the number of KV blocks (None: derive from memory)"})
    enable_prefix_caching: bool = field(default=False, metadata={"help": "Reuse cached full blocks across requests"})
    eviction: str = field(default="lru", metadata={"help": "Which cached free block dies first: lru, fifo or lfu"})
    allocation: str = field(default="incremental", metadata={
        "help": "incremental (vLLM V1: blocks per step) or reserve (v0/Sarathi: whole prompt at admission)"})

    def __post_init__(self) -> None:
        _check_positive_int("block_size", self.block_size)
        if self.block_size > 1024:
            raise ValueError(f"block_size must be at most 1024 tokens, got {self.block_size}")
        g = self.gpu_memory_utilization
        if isinstance(g, bool) or not isinstance(g, (int, float)) or not (0.0 < g <= 1.0):
            raise ValueError(f"gpu_memory_utilization must be in (0, 1], got {g!r}")
        if self.num_gpu_blocks is not None:
            _check_positive_int("num_gpu_blocks", self.num_gpu_blocks)
            if self.num_gpu_blocks > MAX_NUM_GPU_BLOCKS:
                raise ValueError(f"num_gpu_blocks must be at most {MAX_NUM_GPU_BLOCKS:,}, got {self.num_gpu_blocks:,}")
        if self.eviction not in EVICTION_NAMES:
            raise ValueError(f"eviction must be one of {', '.join(EVICTION_NAMES)}, got {self.eviction!r}")
        if self.allocation not in ALLOCATION_NAMES:
            raise ValueError(f"allocation must be one of {', '.join(ALLOCATION_NAMES)}, got {self.allocation!r}")


@dataclass(frozen=True, slots=True)
class CostConfig:
    """Assumptions of the cost model that are not datasheet facts; exposed so users can question them."""

    step_overhead_s: float = field(default=0.002, metadata={
        "help": "Fixed time per engine step: launches, sampling, scheduling (costmodel.md §1.4: 1–3 ms)"})
    mbu: float = field(default=0.78, metadata={
        "help": "Fraction of HBM bandwidth attention and lm_head kernels reach (vidur A100 linear kernels: about "
                "78%); the dense layers use their own fitted value (chunkviz/cost/fitted.py)"})

    def __post_init__(self) -> None:
        o = self.step_overhead_s
        if isinstance(o, bool) or not isinstance(o, (int, float)) or not math.isfinite(o) or o < 0 or o > 1:
            raise ValueError(f"step_overhead_s must be between 0 and 1 second, got {o!r}")
        if isinstance(self.mbu, bool) or not isinstance(self.mbu, (int, float)) or not (0.0 < self.mbu <= 1.0):
            raise ValueError(f"mbu must be in (0, 1], got {self.mbu!r}")


def tensor_parallel_problem(model: ModelSpec, tensor_parallel: int) -> str | None:
    """Why `tensor_parallel` GPUs cannot shard `model`, or None; the rules vLLM checks before loading weights.

    Attention heads: vLLM's ModelConfig.verify_with_parallel_config refuses "Total number of attention heads (28)
    must be divisible by tensor parallel size (3)". KV heads: QKVParallelLinear (vllm/model_executor/layers/
    linear.py) splits them when tp <= KV heads (divide(kv_heads, tp)) and replicates them when tp > KV heads
    (divide(tp, kv_heads)), so one must divide the other.
    """
    heads, kv_heads = model.num_heads, model.num_kv_heads
    if heads % tensor_parallel:
        return (f"tensor_parallel={tensor_parallel} must divide the model's {heads} attention heads "
                f"(vLLM's rule); divisors up to 64: {_divisors(heads)}")
    if kv_heads % tensor_parallel and tensor_parallel % kv_heads:
        return (f"tensor_parallel={tensor_parallel} must divide the model's {kv_heads} KV heads or be a multiple "
                "of them (vLLM splits or replicates KV heads)")
    return None


def _divisors(n: int) -> str:
    return ", ".join(str(d) for d in range(1, min(n, 64) + 1) if n % d == 0)


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
        "help": "Measured step times (python -m chunkviz measure) used instead of the roofline; see profiled_cost"})
    fast_forward: bool = field(default=True, metadata={
        "help": "Advance steady decode-only stretches in O(1) per step (identical results; see fast_forward)"})

    def __post_init__(self) -> None:
        _check_positive_int("tensor_parallel", self.tensor_parallel)
        if self.tensor_parallel > 64:
            raise ValueError(f"tensor_parallel must be at most 64, got {self.tensor_parallel}")
        problem = tensor_parallel_problem(self.model, self.tensor_parallel)
        if problem:
            raise ValueError(problem)
        _check_positive_int("max_num_steps", self.max_num_steps)
        if self.max_num_steps > MAX_SIM_STEPS:
            raise ValueError(f"max_num_steps must be at most {MAX_SIM_STEPS}")
        explicit = self.scheduler.max_num_batched_tokens
        if explicit is not None and explicit < self.cache.block_size:
            raise ValueError(f"max_num_batched_tokens ({explicit}) must cover at least one KV block "
                             f"(block_size={self.cache.block_size})")
