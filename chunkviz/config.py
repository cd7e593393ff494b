"""Frozen configuration of one simulation: model, GPU, scheduler, KV cache and cost-model knobs.

Invariant: every config that passes `__post_init__` describes a run the engine can start; a bad value fails here
with a message that states the rule, never later inside the loop.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:  # cost_profile imports this module; the annotation alone needs no import at run time
    from chunkviz.cost.profile import CostProfile

PolicyName = Literal["monolithic", "chunked", "sglang", "static"]
EvictionName = Literal["lru", "fifo", "lfu"]
AllocationName = Literal["incremental", "reserve"]

POLICY_NAMES: tuple[str, ...] = ("monolithic", "chunked", "sglang", "static")
EVICTION_NAMES: tuple[str, ...] = ("lru", "fifo", "lfu")
ALLOCATION_NAMES: tuple[str, ...] = ("incremental", "reserve")
# vLLM's fallback budget (DEFAULT_MAX_NUM_BATCHED_TOKENS, "mainly for convenience when testing"; costmodel.md §2.1).
DEFAULT_CHUNKED_BUDGET_TOKENS = 2048
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

    def __post_init__(self) -> None:
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
        """q, o (h·h each), k, v (h·kv_dim each), gate/up/down (3·h·inter) and two norms."""
        h, kv_dim = self.hidden_size, self.num_kv_heads * self.head_dim
        return 2 * h * h + 2 * h * kv_dim + 3 * h * self.intermediate_size + 2 * h

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
    """The knobs of a serving engine's scheduler, named as vLLM names them."""

    policy: str = field(default="chunked", metadata={"help": "monolithic, chunked (vLLM v1 / Sarathi), sglang or static"})
    max_num_batched_tokens: int | None = field(default=None, metadata={
        "help": "Token budget of one engine step, decodes included. None: vLLM's rule (2048 when chunking, "
                "otherwise the model's max length)"})
    max_num_seqs: int = field(default=256, metadata={"help": "Most sequences running at once (vLLM default 256)"})
    long_prefill_token_threshold: int = field(default=0, metadata={
        "help": "Cap on one prompt's tokens per step so long prompts cannot take the whole budget; 0 = off"})
    sglang_enable_mixed_chunk: bool = field(default=False, metadata={
        "help": "SGLang --enable-mixed-chunk: fold running decodes into prefill batches"})

    def __post_init__(self) -> None:
        if self.policy not in POLICY_NAMES:
            raise ValueError(f"policy must be one of {', '.join(POLICY_NAMES)}, got {self.policy!r}")
        if self.max_num_batched_tokens is not None:
            _check_positive_int("max_num_batched_tokens", self.max_num_batched_tokens)
        _check_positive_int("max_num_seqs", self.max_num_seqs)
        _check_positive_int("long_prefill_token_threshold", self.long_prefill_token_threshold, minimum=0)

    @property
    def enable_chunked_prefill(self) -> bool:
        return self.policy in ("chunked", "sglang")

    def budget_tokens(self, max_model_len_tokens: int) -> int:
        """The effective max_num_batched_tokens, applying vLLM's default rule when unset."""
        if self.max_num_batched_tokens is not None:
            return self.max_num_batched_tokens
        if self.enable_chunked_prefill:
            return DEFAULT_CHUNKED_BUDGET_TOKENS
        return max(max_model_len_tokens, DEFAULT_CHUNKED_BUDGET_TOKENS)


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
        "help": "incremental (vLLM v1: blocks per step) or reserve (v0/Sarathi: whole prompt at admission)"})

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
        "help": "Fraction of HBM bandwidth a kernel reaches (vidur A100 linear kernels: about 78%)"})

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

        if self.budget_tokens < self.cache.block_size:
            raise ValueError(f"max_num_batched_tokens ({self.budget_tokens}) must cover at least one KV block "
                             f"(block_size={self.cache.block_size})")

    @property
    def budget_tokens(self) -> int:
        return self.scheduler.budget_tokens(self.model.max_model_len_tokens)

    def warnings(self, num_gpu_blocks: int) -> list[str]:
        """Settings that run but contradict each other, worth telling the user about."""
        notes = []
        if self.scheduler.max_num_seqs > num_gpu_blocks:
            notes.append(f"max_num_seqs={self.scheduler.max_num_seqs} exceeds the {num_gpu_blocks} KV blocks: at most "
                         f"{num_gpu_blocks} sequences can ever run at once")
        threshold = self.scheduler.long_prefill_token_threshold
        if threshold and threshold >= self.budget_tokens:
            notes.append(f"long_prefill_token_threshold={threshold} is not below max_num_batched_tokens="
                         f"{self.budget_tokens}, so it never caps anything")
        return notes
