"""Step costs from a measured profile: interpolated between measured steps, the roofline's shape outside them.

Invariant: at a measured point the coster returns the measured median (times the layer scale) plus the step's
exposed host time (cost/step_pricing.py, as the roofline prices it); the forward time never falls as
tokens grow; a step outside the measured grid is counted in `num_fallbacks`.

How a profile is applied (the Measure page says the same):
- A step with one token per sequence is a decode batch, looked up by (batch size, mean context). Any other step is
  looked up as one prefill chunk of all its tokens, with the cached context that gives the same number of
  (query, key) attention pairs: p = (pairs - T(T+1)/2) / T, which is exact for a single chunk.
- Interpolation is bilinear on the measured grid: piecewise-linear in tokens, then in context. Medians are first
  made monotone (a running maximum along tokens and along context), so noise cannot make a longer step faster;
  points that were already monotone are reproduced exactly.
- Outside the grid the roofline (roofline.StepCoster of the simulated model and GPU) supplies the growth, anchored
  to the interpolated time at the nearest grid point: t(s) = t_measured(anchor) * roofline(s) / roofline(anchor).
  So the curve stays continuous and monotone, and a profile built from roofline values gives the roofline back.
- Times are scaled by the ratio of layers, simulated model / measured model (the measured stack may have fewer
  layers, and on CPU a smaller hidden size: the result is then the speed of that scaled-down model, not a GPU
  prediction). The lm_head is scaled with the layers too, which overstates it when few layers were measured.
- The terms (dense, attention, lm_head, communication) keep the roofline's proportions, rescaled to the measured
  forward time; FLOPs and bytes are the roofline's. The forward pass measured no scheduling or sampling, so the
  step's host time is still added, priced as the roofline prices it (cost/step_pricing.py: CUDA-graph mode, and
  with overlap scheduling only what the measured forward time does not cover); tensor_parallel is not applied to
  the measured single-device times, nor is a graph's padding (the measured point of the real batch size is used).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import astuple, dataclass
from typing import Sequence

from chunkviz.config import CostConfig, CostProfile, MeasuredPoint, PointKind, SimConfig
from chunkviz.cost.roofline import StepCost, StepCoster, StepShape, shape_of
from chunkviz.cost.step_pricing import EAGER, StepPricing, exposed_s

__all__ = ["ProfiledStepCoster", "PointComparison", "compare_to_roofline", "make_step_coster"]


def _cummax(values: list[float]) -> list[float]:
    out, top = [], float("-inf")
    for v in values:
        top = max(top, v)
        out.append(top)
    return out


def _bracket(axis: Sequence[int], value: float) -> tuple[int, int, float]:
    """Indices of the grid values around `value` (already clamped into the axis) and the weight of the upper one."""
    hi = min(bisect_right(axis, value), len(axis) - 1)
    lo = max(hi - 1, 0)
    if axis[hi] == axis[lo]:
        return lo, lo, 0.0
    return lo, hi, (value - axis[lo]) / (axis[hi] - axis[lo])


class _Grid:
    """Measured medians on a (context x tokens) grid, made monotone along both axes."""

    def __init__(self, points: tuple[MeasuredPoint, ...]):
        self.tokens = sorted({p.num_tokens for p in points})
        self.contexts = sorted({p.context_tokens for p in points})
        by_cell = {(p.context_tokens, p.num_tokens): p.median_s for p in points}
        rows = [_cummax([by_cell[(x, n)] for n in self.tokens]) for x in self.contexts]
        columns = [_cummax([row[j] for row in rows]) for j in range(len(self.tokens))]
        self.values = [[columns[j][i] for j in range(len(self.tokens))] for i in range(len(self.contexts))]
        self.num_raised = sum(self.values[i][j] != by_cell[(x, n)]
                              for i, x in enumerate(self.contexts) for j, n in enumerate(self.tokens))

    def clamp(self, tokens: float, context: float) -> tuple[float, float]:
        return (min(max(tokens, self.tokens[0]), self.tokens[-1]),
                min(max(context, self.contexts[0]), self.contexts[-1]))

    def value(self, tokens: float, context: float) -> float:
        """Bilinear interpolation at a point inside the grid (seconds)."""
        j0, j1, wj = _bracket(self.tokens, tokens)
        i0, i1, wi = _bracket(self.contexts, context)
        low = self.values[i0][j0] + wj * (self.values[i0][j1] - self.values[i0][j0])
        high = self.values[i1][j0] + wj * (self.values[i1][j1] - self.values[i1][j0])
        return low + wi * (high - low)


def _forward_s(cost: StepCost) -> float:
    return cost.total_s - cost.overhead_s


def _anchor(kind: PointKind, tokens: float, context: float) -> StepShape:
    n, x = max(1, round(tokens)), round(context)
    return shape_of((), (x,) * n) if kind == "decode" else shape_of(((n, x),))


class ProfiledStepCoster:
    """A StepCoster look-alike that prices steps from a measured CostProfile (see the module docstring)."""

    def __init__(self, profile: CostProfile, fallback: StepCoster):
        self.profile, self.fallback = profile, fallback
        self.layer_scale = fallback.model.num_layers / profile.model.num_layers
        self.grids = {"prefill": _Grid(profile.prefill), "decode": _Grid(profile.decode)}
        self.num_steps = 0
        self.num_fallbacks = 0  # steps outside the measured grid, priced by the anchored roofline

    @staticmethod
    def locate(shape: StepShape) -> tuple[PointKind, float, float]:
        """Which table prices `shape`, and its (tokens, context) coordinates there."""
        t = shape.num_tokens
        if t == shape.num_seqs:  # one token per sequence: a decode batch (a 1-token chunk is the same work)
            return "decode", float(t), shape.kv_read_tokens / t
        return "prefill", float(t), max(0.0, (shape.attention_pairs - t * (t + 1) / 2) / t)

    def is_measured(self, shape: StepShape) -> bool:
        """Whether `shape` lies inside the measured grid (no roofline fallback)."""
        kind, tokens, context = self.locate(shape)
        return self.grids[kind].clamp(tokens, context) == (tokens, context)

    def __call__(self, shape: StepShape, num_active: int | None = None) -> StepCost:
        base = self.fallback(shape, num_active)
        if shape.num_tokens <= 0:
            return base
        self.num_steps += 1
        kind, tokens, context = self.locate(shape)
        grid = self.grids[kind]
        anchor_tokens, anchor_context = grid.clamp(tokens, context)
        forward_s = grid.value(anchor_tokens, anchor_context) * self.layer_scale
        if (anchor_tokens, anchor_context) != (tokens, context):
            self.num_fallbacks += 1
            forward_s *= _forward_s(base) / _forward_s(self.fallback(_anchor(kind, anchor_tokens, anchor_context)))
        active = shape.num_seqs if num_active is None else num_active
        return self._rescaled(base, forward_s, self.fallback.host_of(shape.num_tokens, shape.num_seqs, active))

    def terms(self, t: int, num_seqs: int, attention_pairs: int, kv_read_tokens: int,
              num_active: int | None = None) -> tuple[float, ...]:
        """StepCoster.terms for the measured price: the StepCost's fields in order (the engine's metrics-only steps
        read them so)."""
        return astuple(self(StepShape(t, num_seqs, attention_pairs, kv_read_tokens), num_active))

    def _rescaled(self, base: StepCost, forward_s: float, host: tuple[float, float]) -> StepCost:
        k = forward_s / _forward_s(base)
        dense_s, attention_s = base.dense_s * k, base.attention_s * k
        lm_head_s, communication_s = base.lm_head_s * k, base.communication_s * k
        gpu_s = dense_s + attention_s + lm_head_s + communication_s
        overhead_s = exposed_s(host[0], host[1], gpu_s, self.fallback.overlap)
        total_s = gpu_s + overhead_s
        gpu, tp = self.fallback.gpu, self.fallback.tp
        return StepCost(dense_s=dense_s, attention_s=attention_s, lm_head_s=lm_head_s,
                        communication_s=communication_s, overhead_s=overhead_s, total_s=total_s,
                        flops=base.flops, bytes=base.bytes, mfu=base.flops / (total_s * gpu.peak_flops_per_s * tp),
                        mbu=base.bytes / (total_s * gpu.hbm_bytes_per_s * tp))


def make_step_coster(config: SimConfig, pricing: StepPricing = EAGER) -> StepCoster | ProfiledStepCoster:
    """The engine's coster: the roofline, or the measured profile when the config carries one; `pricing` is how
    the engine runs a step on the host (simulator/policies/pricing.py resolves it per engine)."""
    roofline = StepCoster(config.model, config.gpu, config.cost, config.tensor_parallel, pricing)
    return roofline if config.cost_profile is None else ProfiledStepCoster(config.cost_profile, roofline)


@dataclass(frozen=True, slots=True)
class PointComparison:
    """A measured point beside the roofline of the same shape on the profile's hardware (no step overhead)."""

    kind: PointKind
    num_tokens: int
    context_tokens: int
    measured_s: float
    p10_s: float
    p90_s: float
    roofline_s: float
    ratio: float  # measured / roofline: 1 means the roofline model is right, 3 means reality is 3x slower


def compare_to_roofline(profile: CostProfile) -> tuple[PointComparison, ...]:
    """Every measured point with the roofline time of the measured model on the profile's hardware."""
    roofline = StepCoster(profile.model, profile.hardware, CostConfig(step_overhead_s=0.0))
    rows = []
    for kind in ("prefill", "decode"):
        for p in profile.points(kind):
            shape = _anchor(kind, p.num_tokens, p.context_tokens)
            model_s = roofline(shape).total_s
            rows.append(PointComparison(kind, p.num_tokens, p.context_tokens, p.median_s, p.p10_s, p.p90_s,
                                        model_s, p.median_s / model_s))
    return tuple(rows)
