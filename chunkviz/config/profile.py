"""A measured cost profile as frozen data: step times of one model shape on one device (what `chunkviz measure`
leaves), beside the other frozen configs because a SimConfig may carry one.

Invariant: plain frozen data with no behaviour but lookup; the JSON gate that builds one from a file and checks
every figure is chunkviz.cost.profile.profile_from_json.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from chunkviz.config.hardware import GpuSpec, ModelSpec

PointKind = Literal["prefill", "decode"]


@dataclass(frozen=True, slots=True)
class MeasuredPoint:
    """One measured step: a prefill chunk of num_tokens after context_tokens cached, or a decode step of
    num_tokens sequences (one token each) with context_tokens each; times are seconds over the repeats."""

    num_tokens: int
    context_tokens: int
    median_s: float
    p10_s: float
    p90_s: float


@dataclass(frozen=True, slots=True)
class CostProfile:
    """Everything a measurement run leaves: where, what shape, how it was checked and timed, and the two tables."""

    device: str  # "cpu" or "cuda"
    device_name: str
    dtype: str
    model: ModelSpec  # the shapes actually measured (layers and hidden size may be reduced)
    use_rope: bool
    hardware: GpuSpec  # the peaks the roofline comparison uses (datasheet, or micro-benchmarked on this device)
    versions: tuple[tuple[str, str], ...]
    check_max_abs_diff: float  # chunked prefill + KV cache vs one causal pass
    check_tolerance: float
    timing_method: str  # "cuda_events" or "perf_counter"
    num_warmup: int
    num_repeats: int
    prefill: tuple[MeasuredPoint, ...]
    decode: tuple[MeasuredPoint, ...]

    def points(self, kind: PointKind) -> tuple[MeasuredPoint, ...]:
        return self.prefill if kind == "prefill" else self.decode
