"""Fitting and checking the dense kernel model against the public A100 points (numpy, deterministic).

Invariant: fit_constants is a pure function of the points it is given (fixed start, fixed iteration count, no
randomness), so scripts/fit_cost_model.py reproduces chunkviz/cost/fitted.py exactly and a held-out model or TP
is never seen by the fit that predicts it.

The loss is least squares of (predicted − measured kernel time) / measured layer time over every kernel of every
point: each kernel is fitted to its own column, weighted by its share of the layer, so the kernel errors add up
to the layer's relative error, which is what the cost model is judged on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace

import numpy as np

from chunkviz.config import GpuSpec
from chunkviz.cost.kernels import CONSTANT_NAMES, DenseConstants, LayerShape, kernel_times_s, layer_shape
from chunkviz.cost.public_points import PROFILED_BY_ID, PublicPoint

A100 = GpuSpec("a100-80gb", 312e12, 2.039e12, 80e9, 300e9, "NVIDIA A100 datasheet (80GB SXM)")
# Start of the fit: round numbers read off the data (large GEMMs ~75% of peak, decode GEMMs ~80% of HBM, a few µs
# per launch); the fit moves every one of them.
START = DenseConstants(qkv_eff=0.75, o_eff=0.75, up_eff=0.75, down_eff=0.75, m_half_tokens=20.0, k_half=100.0,
                       gemm_mbu=0.8, blend=4.0, qkv_fixed_s=4e-6, o_fixed_s=4e-6, up_fixed_s=4e-6, down_fixed_s=4e-6,
                       norm_bw=0.4, norm_fixed_s=3e-6, rope_bw=0.4, rope_fixed_s=3e-6,
                       act_bw=0.5, act_fixed_s=2e-6, add_bw=0.5, add_fixed_s=2e-6, elementwise_blend=3.0)
NUM_ITERATIONS = 60


@dataclass(frozen=True)
class PointArrays:
    """The points as columns: tokens, shard shapes, measured kernel seconds (n × 9) and layer seconds."""

    model_id: np.ndarray
    tensor_parallel: np.ndarray
    tokens: np.ndarray
    shape: LayerShape  # every field an array
    kernel_s: np.ndarray
    dense_s: np.ndarray
    gated: np.ndarray

    def subset(self, mask: np.ndarray) -> "PointArrays":
        shape = LayerShape(**{f.name: getattr(self.shape, f.name)[mask] for f in fields(LayerShape)})
        return PointArrays(self.model_id[mask], self.tensor_parallel[mask], self.tokens[mask], shape,
                           self.kernel_s[mask], self.dense_s[mask], self.gated[mask])


def point_arrays(points: tuple[PublicPoint, ...]) -> PointArrays:
    shapes = {}
    for p in points:
        if (p.model_id, p.tensor_parallel) not in shapes:
            shapes[(p.model_id, p.tensor_parallel)] = layer_shape(p.model, p.tensor_parallel)
    per_point = [shapes[(p.model_id, p.tensor_parallel)] for p in points]
    shape = LayerShape(**{f.name: np.array([getattr(s, f.name) for s in per_point]) for f in fields(LayerShape)})
    kernel_s = np.array([p.kernel_ms for p in points]) / 1e3
    return PointArrays(np.array([p.model_id for p in points]), np.array([p.tensor_parallel for p in points]),
                       np.array([float(p.num_tokens) for p in points]), shape, kernel_s, kernel_s.sum(axis=1),
                       np.array([p.model.is_gated_mlp for p in points]))


def predict_kernels_s(c: DenseConstants, a: PointArrays, gpu: GpuSpec = A100) -> np.ndarray:
    """n × 9 predicted kernel seconds."""
    times = kernel_times_s(a.tokens, a.shape, c, gpu.peak_flops_per_s, gpu.hbm_bytes_per_s)
    return np.stack([np.broadcast_to(t, a.tokens.shape) for t in times], axis=1)


def _residuals(log_theta: np.ndarray, a: PointArrays) -> np.ndarray:
    with np.errstate(all="ignore"):  # a wild LM trial step may overflow; its NaN loss is simply rejected
        c = DenseConstants(*np.exp(log_theta))
        return ((predict_kernels_s(c, a) - a.kernel_s) / a.dense_s[:, None]).ravel()


def fit_constants(a: PointArrays, start: DenseConstants = START, iterations: int = NUM_ITERATIONS) -> DenseConstants:
    """Levenberg–Marquardt on log-constants (so every constant stays positive), numeric Jacobian."""
    theta, damping = np.log(np.array(start.as_vector())), 1e-3
    r = _residuals(theta, a)
    for _ in range(iterations):
        jac = np.empty((r.size, theta.size))
        for i in range(theta.size):
            step = np.zeros_like(theta)
            step[i] = 1e-6
            jac[:, i] = (_residuals(theta + step, a) - r) / 1e-6
        jtj, jtr = jac.T @ jac, jac.T @ r
        while True:
            candidate = theta - np.linalg.solve(jtj + damping * np.diag(np.diag(jtj) + 1e-12), jtr)
            r_new = _residuals(candidate, a)
            if r_new @ r_new < r @ r:
                theta, r, damping = candidate, r_new, max(damping / 3, 1e-9)
                break
            damping *= 4
            if damping > 1e9:
                return DenseConstants(*(float(x) for x in np.exp(theta)))
    return DenseConstants(*(float(x) for x in np.exp(theta)))


@dataclass(frozen=True, slots=True)
class ErrorSummary:
    """Relative error of the layer's dense time, predicted / measured − 1, over a set of points."""

    num_points: int
    median_abs: float
    p90_abs: float
    worst_abs: float
    median_signed: float


def summarize_errors(errors: np.ndarray) -> ErrorSummary:
    if errors.size == 0:
        return ErrorSummary(0, math.nan, math.nan, math.nan, math.nan)
    magnitude = np.abs(errors)
    return ErrorSummary(int(errors.size), float(np.median(magnitude)), float(np.percentile(magnitude, 90)),
                        float(magnitude.max()), float(np.median(errors)))


def dense_errors(c: DenseConstants, a: PointArrays) -> np.ndarray:
    return predict_kernels_s(c, a).sum(axis=1) / a.dense_s - 1


def v1_dense_errors(a: PointArrays, mbu: float = 0.78) -> np.ndarray:
    """The errors of the previous model (v1): one roofline of the whole layer with a tokens-only MFU curve
    (chunkviz.cost.roofline.mfu_at) and 78% of bandwidth, no fixed costs; kept to report before → after."""
    from chunkviz.cost.roofline import mfu_at

    # v1 counted 2·h² + 2·h·kv_dim + 3·h·inter + 2·h parameters per layer (always gated), split evenly over tp.
    per_model = {m: replace(PROFILED_BY_ID[m], is_gated_mlp=True, num_norms_per_layer=2).params_per_layer
                 for m in set(a.model_id.tolist())}
    params = np.array([per_model[m] for m in a.model_id]) / a.tensor_parallel
    eff = np.array([mfu_at(t, A100) for t in a.tokens])
    compute_s = 2 * a.tokens * params / (A100.peak_flops_per_s * eff)
    memory_s = params * 2 / (A100.hbm_bytes_per_s * mbu)
    return np.maximum(compute_s, memory_s) / a.dense_s - 1


def constants_table(c: DenseConstants) -> list[tuple[str, float]]:
    return [(name, getattr(c, name)) for name in CONSTANT_NAMES]
