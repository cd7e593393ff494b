"""Dense (non-attention) time of one decoder layer, kernel by kernel, on the per-GPU shard of each matrix.

Invariant: every kernel time is a roofline of what that kernel moves and computes on one GPU, with a launch cost
(GEMMs) or a launch-bound floor (the rest), so it never decreases when tokens are added; the layer's dense time is the sum of its kernels (they run one
after another), the same nine kernels that vidur profiles (`vidur/profiling/mlp/mlp_impl.py`, `GPTBlock`; its
first residual add runs untimed there, so it is not priced here either: about 1% of a layer).

A GEMM of M tokens × K inputs × N outputs (N or K divided by tensor parallelism, Megatron-style: QKV and MLP-up
split their outputs, O and MLP-down their inputs) costs soft-max(compute, memory) + fixed, where
  compute = 2·M·K·N / (peak · eff),   eff = eff_kernel · M/(M + m½) · K/(K + k½)
  memory  = (K·N + M·K + M·N) · bytes / (bandwidth · mbu)
so a shard cut eight ways runs further from peak even with many tokens: its fixed cost and weight read weigh more
against its 8× smaller compute, and a row-parallel shard (small K) loses efficiency. (A width factor N/(N + n½) was
tried; the fit drove n½ to 0, so the width shows no effect beyond these.) Norms, rotary,
activation and the residual add move bytes only: soft-max(bytes / (bandwidth · fraction), floor), the floor
being the launch-bound time of a kernel on a small tensor. Constants are fitted to
public A100 measurements (chunkviz/cost/fitted.py, scripts/fit_cost_model.py). Another GPU keeps the same
efficiency shape and fixed costs and changes only peak FLOP/s and bandwidth (the issue's rule: no per-GPU fits).

The formulas use only + − × ÷ ** and abs, so the fitting script can pass numpy arrays where floats are shown.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from chunkviz.config import GpuSpec, ModelSpec


@dataclass(frozen=True, slots=True)
class DenseConstants:
    """The fitted constants of the dense model (values and residuals in chunkviz/cost/fitted.py)."""

    qkv_eff: float  # peak fraction a large fused-QKV GEMM reaches
    o_eff: float
    up_eff: float
    down_eff: float
    m_half_tokens: float  # tokens at which the token factor of eff is one half
    k_half: float  # reduction depth (per shard) at which the depth factor is one half
    gemm_mbu: float  # fraction of HBM bandwidth a weight-streaming GEMM reaches
    blend: float  # p of (compute^p + memory^p)^(1/p): how sharp the roofline corner is
    qkv_fixed_s: float
    o_fixed_s: float
    up_fixed_s: float
    down_fixed_s: float
    norm_bw: float  # bandwidth fraction of a norm kernel (read + write of tokens × hidden)
    norm_fixed_s: float
    rope_bw: float
    rope_fixed_s: float
    act_bw: float
    act_fixed_s: float
    add_bw: float
    add_fixed_s: float
    elementwise_blend: float  # p of soft-max(bytes time, floor) for norms, rotary, activation and add

    def as_vector(self) -> tuple[float, ...]:
        return tuple(getattr(self, f.name) for f in fields(self))


CONSTANT_NAMES: tuple[str, ...] = tuple(f.name for f in fields(DenseConstants))


@dataclass(frozen=True, slots=True)
class LayerShape:
    """The per-GPU matrix widths of one layer (elements, not bytes); arrays work too in the fitting script."""

    hidden: float
    qkv_out: float  # (heads/tp + 2·max(kv_heads/tp, 1)) · head_dim
    attn_out_in: float  # heads/tp · head_dim: the O projection's input width
    mlp_up_out: float  # (2 if gated else 1) · intermediate/tp
    mlp_down_in: float  # intermediate/tp
    act_elems_per_token: float  # read + written by the activation: 3 · inter/tp gated, 2 · inter/tp not
    rope_elems_per_token: float  # q and k of the shard, read and written
    num_norms: float  # 2 (Llama) or 1 (phi)
    bytes_per_elem: float


def layer_shape(model: ModelSpec, tensor_parallel: int) -> LayerShape:
    """Shard widths; KV heads are replicated when tp exceeds them (vLLM `QKVParallelLinear`)."""
    tp, d = float(tensor_parallel), float(model.head_dim)
    heads, kv = model.num_heads / tp, max(model.num_kv_heads / tp, 1.0)
    inter = model.intermediate_size / tp
    gated = 1.0 if model.is_gated_mlp else 0.0
    return LayerShape(hidden=float(model.hidden_size), qkv_out=(heads + 2 * kv) * d, attn_out_in=heads * d,
                      mlp_up_out=(1 + gated) * inter, mlp_down_in=inter, act_elems_per_token=(2 + gated) * inter,
                      rope_elems_per_token=2 * (heads + kv) * d, num_norms=float(model.num_norms_per_layer),
                      bytes_per_elem=float(model.bytes_per_param))


def _soft_max(a, b, p):
    """(a^p + b^p)^(1/p): the roofline's max with a rounded corner; grows with a and with b."""
    big = (a + b + abs(a - b)) / 2  # max() that works on floats and numpy arrays alike
    return big * ((a / big) ** p + (b / big) ** p) ** (1 / p)


def gemm_s(m, k, n, eff_kernel, fixed_s, c: DenseConstants, peak_flops_per_s, hbm_bytes_per_s, bytes_per_elem):
    """One GEMM of m tokens × k × n on one GPU."""
    eff = eff_kernel * m / (m + c.m_half_tokens) * k / (k + c.k_half)
    compute_s = 2 * m * k * n / (peak_flops_per_s * eff)
    memory_s = (k * n + m * k + m * n) * bytes_per_elem / (hbm_bytes_per_s * c.gemm_mbu)
    return _soft_max(compute_s, memory_s, c.blend) + fixed_s


def kernel_times_s(m, s: LayerShape, c: DenseConstants, peak_flops_per_s, hbm_bytes_per_s) -> tuple:
    """Seconds of each kernel for m tokens, in the order of public_points.KERNEL_COLUMNS."""
    b, bw = s.bytes_per_elem, hbm_bytes_per_s
    gemm = lambda k, n, eff, fixed: gemm_s(m, k, n, eff, fixed, c, peak_flops_per_s, bw, b)  # noqa: E731
    elementwise = lambda elems, frac, floor_s: _soft_max(m * elems * b / (bw * frac), floor_s,  # noqa: E731
                                                        c.elementwise_blend)
    norm = elementwise(2 * s.hidden, c.norm_bw, c.norm_fixed_s)
    second_norm = norm * (s.num_norms - 1)  # phi's parallel block has a single norm: this column is 0 there
    return (norm,
            gemm(s.hidden, s.qkv_out, c.qkv_eff, c.qkv_fixed_s),
            elementwise(s.rope_elems_per_token, c.rope_bw, c.rope_fixed_s),
            gemm(s.attn_out_in, s.hidden, c.o_eff, c.o_fixed_s),
            second_norm,
            gemm(s.hidden, s.mlp_up_out, c.up_eff, c.up_fixed_s),
            elementwise(s.act_elems_per_token, c.act_bw, c.act_fixed_s),
            gemm(s.mlp_down_in, s.hidden, c.down_eff, c.down_fixed_s),
            elementwise(3 * s.hidden, c.add_bw, c.add_fixed_s))


def dense_layer_s(num_tokens: int, model: ModelSpec, gpu: GpuSpec, tensor_parallel: int,
                  constants: DenseConstants) -> float:
    """Dense time of one layer on one GPU of `tensor_parallel` for a step of `num_tokens` tokens (0 → 0)."""
    if num_tokens <= 0:
        return 0.0
    times = kernel_times_s(float(num_tokens), layer_shape(model, tensor_parallel), constants,
                           gpu.peak_flops_per_s, gpu.hbm_bytes_per_s)
    return float(sum(times))
