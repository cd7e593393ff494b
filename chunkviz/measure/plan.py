"""What to measure: the grid of prefill chunks and decode batches, and the model shapes a device can afford.

Invariant: a plan is two full grids (tokens x context) of positive sizes, so every profile it yields can be
interpolated; nothing here imports torch.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from chunkviz.config import ModelSpec
from chunkviz.errors import InputError

PLAN_NAMES: tuple[str, ...] = ("quick", "full")
CPU_HIDDEN_SIZE = 512  # on CPU the stack is scaled down so that a laptop finishes the quick plan in seconds
CPU_NUM_LAYERS = 2


def _check_axis(name: str, values: tuple[int, ...], minimum: int) -> None:
    if not values or any(isinstance(v, bool) or not isinstance(v, int) or v < minimum for v in values):
        raise InputError(f"plan {name} must be a non-empty tuple of integers >= {minimum}, got {values!r}")
    if list(values) != sorted(set(values)):
        raise InputError(f"plan {name} must be strictly increasing, got {values!r}")


@dataclass(frozen=True, slots=True)
class MeasurePlan:
    """Prefill chunks (tokens x cached context) and decode steps (batch size x context of each sequence)."""

    prefill_chunk_tokens: tuple[int, ...]
    prefill_context_tokens: tuple[int, ...]
    decode_batch_sizes: tuple[int, ...]
    decode_context_tokens: tuple[int, ...]
    num_warmup: int = 2
    num_repeats: int = 5

    def __post_init__(self) -> None:
        _check_axis("prefill_chunk_tokens", self.prefill_chunk_tokens, 1)
        _check_axis("prefill_context_tokens", self.prefill_context_tokens, 0)
        _check_axis("decode_batch_sizes", self.decode_batch_sizes, 1)
        _check_axis("decode_context_tokens", self.decode_context_tokens, 1)
        if self.num_warmup < 0 or self.num_repeats < 1:
            raise InputError("plan needs num_warmup >= 0 and num_repeats >= 1")

    def points(self) -> tuple[tuple[str, int, int], ...]:
        """(kind, tokens or batch size, context) for every point, prefill first, short steps first."""
        prefill = [("prefill", c, p) for p in self.prefill_context_tokens for c in self.prefill_chunk_tokens]
        decode = [("decode", b, x) for x in self.decode_context_tokens for b in self.decode_batch_sizes]
        return tuple(prefill + decode)

    @property
    def max_tokens(self) -> int:
        """Longest sequence any point holds in its KV cache."""
        return max(self.prefill_chunk_tokens[-1] + self.prefill_context_tokens[-1],
                   self.decode_context_tokens[-1] + 1)


# Quick plans are for tests and a first look (CPU: a few seconds); full plans fill the range a budget sweep uses.
# CUDA decode grids stop at 256 x 1024 cached tokens: 34 GB of Llama-3-8B KV, which fits an 80 GB GPU next to the
# 16 GB of weights.
PLANS: dict[tuple[str, str], MeasurePlan] = {
    ("cpu", "quick"): MeasurePlan((16, 128, 512), (0, 2048), (1, 8, 64), (256, 2048), num_warmup=1, num_repeats=3),
    ("cpu", "full"): MeasurePlan((16, 32, 64, 128, 256, 512, 1024), (0, 1024, 4096), (1, 4, 16, 64),
                                 (256, 1024, 4096), num_warmup=2, num_repeats=5),
    ("cuda", "quick"): MeasurePlan((64, 256, 1024), (0, 2048), (1, 16, 64), (256, 2048), num_warmup=3,
                                   num_repeats=5),
    ("cuda", "full"): MeasurePlan((32, 64, 128, 256, 512, 1024, 2048, 4096), (0, 1024, 4096),
                                  (1, 8, 32, 64, 128, 256), (128, 512, 1024), num_warmup=3, num_repeats=10),
}


def plan_for(device: str, name: str) -> MeasurePlan:
    if name not in PLAN_NAMES:
        raise InputError(f"plan must be one of {', '.join(PLAN_NAMES)}, got {name!r}")
    return PLANS[("cuda" if device == "cuda" else "cpu", name)]


def measured_model(base: ModelSpec, num_layers: int, hidden_size: int, bytes_per_param: int) -> ModelSpec:
    """The shapes actually measured: `base` with fewer layers and, if hidden_size is smaller, every width scaled
    by the same factor (head_dim kept where it fits, the GQA ratio kept, vocab scaled too)."""
    if not 1 <= num_layers <= base.num_layers:
        raise InputError(f"layers must be between 1 and {base.num_layers} for {base.model_id}, got {num_layers}")
    if hidden_size == base.hidden_size:
        return replace(base, num_layers=num_layers, bytes_per_param=bytes_per_param,
                       source=f"{base.model_id}: {num_layers} of {base.num_layers} layers")
    if hidden_size % 64 or not 64 <= hidden_size < base.hidden_size:
        raise InputError(f"hidden size must be a multiple of 64 between 64 and {base.hidden_size}, got {hidden_size}")
    head_dim = base.head_dim if hidden_size % base.head_dim == 0 and hidden_size >= 2 * base.head_dim else 32
    num_heads = hidden_size // head_dim
    num_kv_heads = max(1, num_heads * base.num_kv_heads // base.num_heads)
    if num_heads % num_kv_heads:
        num_kv_heads = 1
    scale = hidden_size / base.hidden_size
    intermediate_size = max(32, round(base.intermediate_size * scale / 32) * 32)
    return replace(base, num_layers=num_layers, hidden_size=hidden_size, num_heads=num_heads,
                   num_kv_heads=num_kv_heads, intermediate_size=intermediate_size,
                   vocab_size=max(256, round(base.vocab_size * scale)), bytes_per_param=bytes_per_param,
                   source=f"{base.model_id} scaled down: {num_layers} layers, hidden {hidden_size}")
