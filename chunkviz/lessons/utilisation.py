"""The GPU's utilisation per step: how much of each step is compute-bound and how much memory-bound, and MFU/MBU.

Invariant: a step's compute-bound + memory-bound seconds equal the cost model's dense + attention + lm_head terms
(the rest of the step is fixed overhead and communication): each term's time is taken from the step's StepCost and
counted on the side of its roofline that dominates (FLOPs at the term's efficiency vs bytes at the bandwidth
fraction); a test checks the sums agree.
"""

from __future__ import annotations

from dataclasses import dataclass

from chunkviz.config import SimConfig
from chunkviz.cost.roofline import ATTENTION_EFFICIENCY, StepCoster, StepShape, mfu_at, shape_of
from chunkviz.simulator.trace import StepRecord, Trace

STEP_KINDS = ("prefill_only", "decode_only", "mixed")


@dataclass(frozen=True, slots=True)
class StepUtil:
    step: int
    kind: str  # one of STEP_KINDS
    start_s: float
    duration_s: float
    compute_bound_s: float  # time in kernels limited by FLOP/s
    memory_bound_s: float  # time in kernels limited by HBM bandwidth
    other_s: float  # fixed overhead and communication
    num_tokens: int
    mfu: float
    mbu: float


def step_kind(step: StepRecord) -> str:
    phases = {c.phase for c in step.chunks}
    if phases == {"decode"}:
        return "decode_only"
    return "prefill_only" if phases == {"prefill"} else "mixed"


def step_shape(step: StepRecord) -> StepShape:
    """The StepShape the engine costed: prefill chunks (tokens, cached before) and decode contexts."""
    prefills = tuple((c.num_tokens, c.start_token) for c in step.chunks if c.phase == "prefill")
    decodes = tuple(c.start_token for c in step.chunks if c.phase == "decode")
    return shape_of(prefills, decodes)


def _compute_bound(coster: StepCoster, shape: StepShape) -> tuple[bool, bool, bool]:
    """Whether the dense, attention and lm_head terms are compute-bound: their FLOP side at the term's efficiency
    against their byte side (the dense term is a sum of kernels, so its whole-layer sides decide)."""
    gpu, tp, mbu, t = coster.gpu, coster.tp, coster.cost.mbu, shape.num_tokens
    terms = ((2.0 * t * coster.dense_params, coster.dense_bytes, mfu_at(t, gpu)),
             (coster.attn_flops_per_pair * shape.attention_pairs,
              float((shape.kv_read_tokens + t) * coster.kv_bytes_per_token), ATTENTION_EFFICIENCY),
             (2.0 * shape.num_seqs * coster.head_params, coster.head_bytes, mfu_at(shape.num_seqs, gpu)))
    return tuple(f > 0 and (f / tp) / (gpu.peak_flops_per_s * eff) >= (b / tp) / (gpu.hbm_bytes_per_s * mbu)
                 for f, b, eff in terms)


def step_utilisation(trace: Trace, config: SimConfig) -> tuple[StepUtil, ...]:
    """Per step of a detailed roofline trace: the compute-bound / memory-bound split and MFU, MBU."""
    coster = StepCoster(config.model, config.gpu, config.cost, config.tensor_parallel)
    out = []
    for s in trace.steps:
        shape = step_shape(s)
        compute_s = memory_s = 0.0
        for is_compute, term_s in zip(_compute_bound(coster, shape), (s.cost.dense_s, s.cost.attention_s,
                                                                       s.cost.lm_head_s)):
            if is_compute:
                compute_s += term_s
            else:
                memory_s += term_s
        other = s.cost.overhead_s + s.cost.communication_s
        out.append(StepUtil(s.step, step_kind(s), s.start_s, s.duration_s, compute_s, memory_s, other,
                            shape.num_tokens, s.cost.mfu, s.cost.mbu))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class KindSummary:
    kind: str
    num_steps: int
    mean_mfu: float  # weighted by step time, as metrics.summarize weights MFU
    mean_mbu: float
    compute_share: float  # compute-bound seconds over the steps' total seconds


def summarize_kinds(utils: tuple[StepUtil, ...]) -> dict[str, KindSummary]:
    """Per step kind present: time-weighted MFU and MBU, and the share of time that is compute-bound."""
    out = {}
    for kind in STEP_KINDS:
        steps = [u for u in utils if u.kind == kind]
        total = sum(u.duration_s for u in steps)
        if not steps or total <= 0:
            continue
        out[kind] = KindSummary(kind, len(steps), sum(u.mfu * u.duration_s for u in steps) / total,
                                sum(u.mbu * u.duration_s for u in steps) / total,
                                sum(u.compute_bound_s for u in steps) / total)
    return out
