"""One prompt's prefill on a real model, whole or in chunks, priced by summing the cost model's step terms.

Invariant: dense and attention FLOPs do not depend on the chunk size (the same tokens and the same (query, key)
pairs); what grows as chunks shrink is the bytes read (weights once per step, the cached KV prefix once per chunk)
and, through lower efficiency and per-step overhead, the time.
"""

from __future__ import annotations

from dataclasses import dataclass

from chunkviz.config import CostConfig, GpuSpec, ModelSpec
from chunkviz.cost.roofline import shape_of, step_cost

MAX_PROMPT_TOKENS = 1_000_000
MAX_NUM_CHUNKS = 100_000  # keeps a chunk size of 1 on a long prompt from looping for minutes


@dataclass(frozen=True, slots=True)
class PrefillCost:
    """Totals over every step of one prompt's prefill (nothing else in the batch); FLOPs and bytes on all GPUs."""

    prompt_tokens: int
    chunk_tokens: int
    num_steps: int
    dense_flops: float  # 2 · tokens · dense parameters: unchanged by chunking
    attention_flops: float  # 4 · hidden · layers · (query, key) pairs: unchanged by chunking
    lm_head_flops: float  # logits of one position per step: the only FLOPs that grow with the step count
    weight_read_bytes: float  # dense weights + lm_head, read once per step
    kv_read_bytes: float  # cached prefix + the chunk's own K/V, per step
    time_s: float
    dense_s: float
    attention_s: float
    lm_head_s: float
    overhead_s: float

    @property
    def flops(self) -> float:
        return self.dense_flops + self.attention_flops + self.lm_head_flops

    @property
    def read_bytes(self) -> float:
        return self.weight_read_bytes + self.kv_read_bytes


def prefill_cost(model: ModelSpec, gpu: GpuSpec, prompt_tokens: int, chunk_tokens: int,
                 cost: CostConfig = CostConfig()) -> PrefillCost:
    """Prefill of `prompt_tokens` in chunks of `chunk_tokens` (chunk >= prompt means one step), on one GPU."""
    for name, value in (("prompt_tokens", prompt_tokens), ("chunk_tokens", chunk_tokens)):
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_PROMPT_TOKENS:
            raise ValueError(f"{name} must be an integer from 1 to {MAX_PROMPT_TOKENS}, got {value!r}")
    num_steps = -(-prompt_tokens // chunk_tokens)
    if num_steps > MAX_NUM_CHUNKS:
        raise ValueError(f"{prompt_tokens} tokens in chunks of {chunk_tokens} make {num_steps} steps; "
                         f"at most {MAX_NUM_CHUNKS} are allowed")
    sums = dict.fromkeys(("dense_flops", "attention_flops", "lm_head_flops", "weight_read_bytes", "kv_read_bytes",
                          "time_s", "dense_s", "attention_s", "lm_head_s", "overhead_s"), 0.0)
    b = model.bytes_per_param
    for start in range(0, prompt_tokens, chunk_tokens):
        c = min(chunk_tokens, prompt_tokens - start)
        shape = shape_of(prefill_chunks=((c, start),))
        step = step_cost(shape, model, gpu, cost)
        # The same formulas step_cost uses, split so that the table can show which term grows.
        sums["dense_flops"] += 2.0 * c * model.num_dense_params
        sums["attention_flops"] += 4.0 * model.hidden_size * model.num_layers * shape.attention_pairs
        sums["lm_head_flops"] += 2.0 * shape.num_seqs * model.num_lm_head_params
        sums["weight_read_bytes"] += float((model.num_dense_params + model.num_lm_head_params) * b)
        sums["kv_read_bytes"] += float((shape.kv_read_tokens + shape.num_tokens) * model.kv_bytes_per_token)
        for term in ("dense_s", "attention_s", "lm_head_s", "overhead_s"):
            sums[term] += getattr(step, term)
        sums["time_s"] += step.total_s
    return PrefillCost(prompt_tokens=prompt_tokens, chunk_tokens=min(chunk_tokens, prompt_tokens),
                       num_steps=num_steps, **sums)
