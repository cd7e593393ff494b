"""What a run simulates on: the model's shapes (ModelSpec), the GPU's datasheet peaks (GpuSpec), and whether a
tensor-parallel degree can shard the model.

Invariant: a ModelSpec or GpuSpec that exists has positive, consistent figures (heads divide the hidden size, KV
heads divide the heads); tensor_parallel_problem states vLLM's own sharding rule.
"""

from __future__ import annotations

from dataclasses import dataclass

from chunkviz.config.checks import check_positive_float, check_positive_int


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
        check_positive_int("model num_norms_per_layer", self.num_norms_per_layer, minimum=0)
        for name in ("num_layers", "hidden_size", "num_heads", "num_kv_heads", "intermediate_size", "vocab_size",
                     "bytes_per_param", "max_model_len_tokens"):
            check_positive_int(f"model {name}", getattr(self, name))
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
            check_positive_float(f"gpu {name}", getattr(self, name))

    @property
    def ridge_tokens(self) -> float:
        """Arithmetic intensity (FLOP/byte) where compute and bandwidth limits meet; ≈ tokens per step for bf16 GEMMs."""
        return self.peak_flops_per_s / self.hbm_bytes_per_s


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
