"""Roofline time of one engine step, as named terms that add up to the total.

Invariant: total_s == dense_s + attention_s + lm_head_s + communication_s + overhead_s, and no GPU term decreases
when tokens, sequences or context are added to a step. overhead_s is the host time the step exposes, priced as the
engine runs it (cost/step_pricing.py: scheduling, input preparation and launches by CUDA-graph mode, overlap
scheduling); it is never zero unless CostConfig.step_overhead_s is set to 0.

Each term is its own roofline, max(FLOPs / (peak · efficiency), bytes / (bandwidth · MBU)), because the kernels of a
step run one after another; summing per-kernel rooflines is what LLM-Viewer and vidur do as well (costmodel.md §1.1).
The dense term goes further: it sums the nine kernels of a layer, each a roofline of its per-GPU matrix shard with a
shape-dependent efficiency and a launch cost, fitted to public A100 measurements (chunkviz/cost/kernels.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from chunkviz.config import CostConfig, GpuSpec, ModelSpec
from chunkviz.cost.fitted import A100_DENSE
from chunkviz.cost.kernels import dense_layer_s
from chunkviz.cost.step_pricing import EAGER, HostModel, StepPricing, exposed_s, step_mode

# Linear-layer MFU against tokens per step, measured on A100 by vidur (costmodel.md §1.3): 64→28%, 128→47%,
# 256→65%, 512→72%, 2048→70%, 8192→74%. The 1024-token dip (66%) and the 512 peak are smoothed into a monotone
# curve so that adding tokens never makes a step faster.
_A100_MFU_POINTS: tuple[tuple[float, float], ...] = ((64.0, 0.28), (128.0, 0.47), (256.0, 0.65), (512.0, 0.70),
                                                     (8192.0, 0.74))
_A100_RIDGE_TOKENS = 312e12 / 2.039e12  # ≈153 FLOP/byte
# FlashAttention-2 (Dao, 2023) reports its forward pass at 50–73% of A100 peak; we take the low end as a constant so
# that attention time grows with every added (query, key) pair.
ATTENTION_EFFICIENCY = 0.5
_ALLREDUCE_LATENCY_S = 5e-6  # per collective launch; a NCCL small-message latency order of magnitude (assumption)


def mfu_at(num_tokens: float, gpu: GpuSpec) -> float:
    """Achievable matmul efficiency for a step of `num_tokens` tokens on `gpu`.

    Principle for GPUs other than A100: a GEMM's efficiency depends on its arithmetic intensity relative to the GPU's
    ridge point, so a GPU whose ridge is k times A100's needs k times the tokens for the same MFU. We therefore look
    the A100 curve up at num_tokens · 153 / ridge(gpu).
    """
    if num_tokens <= 0:
        return 0.0
    x = num_tokens * _A100_RIDGE_TOKENS / gpu.ridge_tokens
    (x0, m0) = _A100_MFU_POINTS[0]
    if x <= x0:
        # Below the first point the step is bandwidth-bound anyway; sqrt keeps tokens/MFU rising (monotone time).
        return m0 * math.sqrt(x / x0)
    for (xa, ma), (xb, mb) in zip(_A100_MFU_POINTS, _A100_MFU_POINTS[1:]):
        if x <= xb:
            frac = (math.log2(x) - math.log2(xa)) / (math.log2(xb) - math.log2(xa))
            return ma + frac * (mb - ma)
    return _A100_MFU_POINTS[-1][1]


@dataclass(frozen=True, slots=True)
class StepShape:
    """What a step computes, reduced to the four numbers the cost depends on."""

    num_tokens: int  # tokens computed this step (prefill chunk tokens + one per decode)
    num_seqs: int  # sequences in the step; each gets logits for its last token
    attention_pairs: int  # (query, key) pairs under the causal mask, summed over sequences
    kv_read_tokens: int  # cached context tokens whose K and V are read


def shape_of(prefill_chunks: tuple[tuple[int, int], ...] = (), decode_contexts: tuple[int, ...] = ()) -> StepShape:
    """StepShape of prefill chunks (c tokens after p cached) and decodes (context x before the new token)."""
    tokens = sum(c for c, _ in prefill_chunks) + len(decode_contexts)
    pairs = sum(c * p + c * (c + 1) // 2 for c, p in prefill_chunks) + sum(x + 1 for x in decode_contexts)
    kv_read = sum(p for _, p in prefill_chunks) + sum(decode_contexts)
    return StepShape(tokens, len(prefill_chunks) + len(decode_contexts), pairs, kv_read)


@dataclass(frozen=True, slots=True)
class StepCost:
    """Seconds per term, and the work done (FLOPs and bytes summed over all GPUs of the engine)."""

    dense_s: float
    attention_s: float
    lm_head_s: float
    communication_s: float
    overhead_s: float
    total_s: float
    flops: float
    bytes: float
    mfu: float
    mbu: float


def _roofline_s(flops: float, bytes_: float, efficiency: float, gpu: GpuSpec, mbu: float) -> float:
    compute_s = flops / (gpu.peak_flops_per_s * efficiency) if flops > 0 else 0.0
    memory_s = bytes_ / (gpu.hbm_bytes_per_s * mbu)
    return max(compute_s, memory_s)


class StepCoster:
    """step_cost with the model/GPU constants worked out once (the engine calls it every step)."""

    def __init__(self, model: ModelSpec, gpu: GpuSpec, cost: CostConfig = CostConfig(), tensor_parallel: int = 1,
                 pricing: StepPricing = EAGER):
        self.model, self.gpu, self.cost, self.tp, self.pricing = model, gpu, cost, tensor_parallel, pricing
        self.overlap = pricing.overlap
        self.host = HostModel(model, cost, pricing)  # host seconds of a step: scheduling, preparation, launches
        self.dense_params = model.num_dense_params
        self.head_params = model.num_lm_head_params
        self.dense_bytes = float(self.dense_params * model.bytes_per_param)
        self.head_bytes = float(self.head_params * model.bytes_per_param)
        self.attn_flops_per_pair = 4.0 * model.hidden_size * model.num_layers
        self.kv_bytes_per_token = model.kv_bytes_per_token
        self._mfu: dict[int, float] = {}  # tokens -> MFU; bounded by the budget's range of token counts
        self._dense_s: dict[int, float] = {}  # tokens -> dense seconds of all layers; bounded the same way

    def _dense_at(self, num_tokens: int) -> float:
        value = self._dense_s.get(num_tokens)
        if value is None:
            layer_s = dense_layer_s(num_tokens, self.model, self.gpu, self.tp, A100_DENSE)
            value = self._dense_s[num_tokens] = self.model.num_layers * layer_s
        return value

    def _mfu_at(self, num_tokens: int) -> float:
        value = self._mfu.get(num_tokens)
        if value is None:
            value = self._mfu[num_tokens] = mfu_at(num_tokens, self.gpu)
        return value

    def __call__(self, shape: StepShape, num_active: int | None = None) -> StepCost:
        """The step's cost; `num_active` is the requests the scheduler holds (running + waiting), by default the
        step's own sequences."""
        return StepCost(*self.terms(shape.num_tokens, shape.num_seqs, shape.attention_pairs, shape.kv_read_tokens,
                                    num_active))

    def terms(self, t: int, num_seqs: int, attention_pairs: int, kv_read_tokens: int,
              num_active: int | None = None) -> tuple[float, ...]:
        """StepCost's ten fields, in its order, for the shape (t, num_seqs, attention_pairs, kv_read_tokens) with
        `num_active` requests held (None: num_seqs): the exact loop's metrics-only steps read total_s, mfu and mbu
        off it without building a StepShape or StepCost (two frozen objects a step were a tenth of its time)."""
        if t <= 0:
            return (0.0,) * 10
        gpu, tp, mbu = self.gpu, self.tp, self.cost.mbu
        mode, run_tokens = step_mode(self.pricing, t, num_seqs)  # a graph computes its padded rows too
        dense_flops = 2.0 * t * self.dense_params
        attn_flops = self.attn_flops_per_pair * attention_pairs
        attn_bytes = float((kv_read_tokens + t) * self.kv_bytes_per_token)
        head_flops = 2.0 * num_seqs * self.head_params
        dense_s = self._dense_at(run_tokens)  # each GPU runs all rows against its shard of every matrix
        attention_s = _roofline_s(attn_flops / tp, attn_bytes / tp, ATTENTION_EFFICIENCY, gpu, mbu)
        lm_head_s = _roofline_s(head_flops / tp, self.head_bytes / tp, self._mfu_at(num_seqs), gpu, mbu)
        communication_s = self._communication_s(run_tokens)
        gpu_s = dense_s + attention_s + lm_head_s + communication_s
        work_s, launch_s = self.host.work_launch(mode, t, num_seqs, num_seqs if num_active is None else num_active)
        overhead_s = exposed_s(work_s, launch_s, gpu_s, self.overlap)
        total_s = gpu_s + overhead_s
        flops = dense_flops + attn_flops + head_flops
        bytes_ = self.dense_bytes + attn_bytes + self.head_bytes
        return (dense_s, attention_s, lm_head_s, communication_s, overhead_s, total_s, flops, bytes_,
                flops / (total_s * gpu.peak_flops_per_s * tp), bytes_ / (total_s * gpu.hbm_bytes_per_s * tp))

    def host_of(self, num_tokens: int, num_seqs: int, num_active: int) -> tuple[float, float]:
        """(scheduling + preparation, launches) of a step of this size, before any overlap (the fast path and the
        measured profile price host time with it)."""
        return self.host.work_launch(step_mode(self.pricing, num_tokens, num_seqs)[0], num_tokens, num_seqs,
                                     num_active)

    def host_breakdown(self, num_tokens: int, num_seqs: int, num_active: int, gpu_s: float) -> dict[str, float]:
        """The host terms of a step by name (`cost --json`): scheduling, preparation, launches and what of them
        the step exposes after overlap."""
        mode = step_mode(self.pricing, num_tokens, num_seqs)[0]
        sched_s, prep_s, launch_s = self.host.terms(mode, num_tokens, num_seqs, num_active)
        return {"host_sched_s": sched_s, "host_prep_s": prep_s, "launch_s": launch_s, "graph_mode": mode,
                "exposed_host_s": exposed_s(sched_s + prep_s, launch_s, gpu_s, self.overlap)}

    def _communication_s(self, num_tokens: int) -> float:
        if self.tp == 1:
            return 0.0
        # Two all-reduces per layer (after attention and after the MLP) of t·hidden activations; a ring moves
        # 2(tp-1)/tp of the message over each link.
        message_bytes = num_tokens * self.model.hidden_size * self.model.bytes_per_param
        per_collective_s = (2 * (self.tp - 1) / self.tp * message_bytes / self.gpu.interconnect_bytes_per_s
                            + _ALLREDUCE_LATENCY_S)
        return 2 * self.model.num_layers * per_collective_s


def step_cost(shape: StepShape, model: ModelSpec, gpu: GpuSpec, cost: CostConfig = CostConfig(),
              tensor_parallel: int = 1, pricing: StepPricing = EAGER) -> StepCost:
    """Time of one engine step on `tensor_parallel` GPUs, each holding 1/tp of weights, heads and KV."""
    return StepCoster(model, gpu, cost, tensor_parallel, pricing)(shape)
