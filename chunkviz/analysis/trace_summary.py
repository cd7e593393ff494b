"""What a loaded trace looks like (size, lengths, arrival rate, burstiness) and how well its prefixes could be cached.

Invariant: every number is a pure function of the requests given; a statistic that needs more data than there is
(a rate from one arrival, a CV from fewer than two gaps) is None, never a made-up value.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from chunkviz.errors import InputError
from chunkviz.analysis.prefix_study import PrefixStudyResult, block_ids_from_requests, hit_rate_curve, unlimited_ceiling
from chunkviz.request import Request
from chunkviz.workloads.checks import DEFAULT_LOAD_OPTIONS, LoadOptions
from chunkviz.workloads.loaders import TraceLoad, load_trace

# Cache sizes tried by the prefix study, as fractions of the trace's distinct blocks; at 1 nothing is ever evicted,
# so every policy meets the ceiling there.
CAPACITY_FRACTIONS = (1 / 64, 1 / 16, 1 / 8, 1 / 4, 1 / 2, 1)


@dataclass(frozen=True, slots=True)
class LoadOutcome:
    """A whole trace, or the reason it could not be loaded: exactly one of the two is set."""

    load: TraceLoad | None
    error: str | None


def load_or_error(raw: bytes, fmt: str | None, name: str | None,
                  options: LoadOptions = DEFAULT_LOAD_OPTIONS) -> LoadOutcome:
    """Uploaded bytes as a LoadOutcome; `fmt` None detects the format (`name` helps). Nothing partial is kept."""
    try:
        return LoadOutcome(load_trace(raw, fmt, name=name, options=options), None)
    except InputError as exc:
        return LoadOutcome(None, str(exc))


@dataclass(frozen=True, slots=True)
class TokenStats:
    """Percentiles (numpy 'linear') and mean of a token count over requests."""

    mean: float
    p50: float
    p90: float
    p99: float
    max: int


@dataclass(frozen=True, slots=True)
class TraceSummary:
    num_requests: int
    duration_s: float  # first to last arrival
    prompt_tokens: TokenStats
    output_tokens: TokenStats
    arrival_rate_per_s: float | None  # 1 / mean gap = (n - 1) / duration; None without a gap of positive length
    burstiness_cv: float | None  # std / mean of the gaps (population std): about 1 for Poisson, far above if bursty
    has_prefix_ids: bool  # some prompt declares content that other prompts may share


def _token_stats(values: Sequence[int]) -> TokenStats:
    arr = np.asarray(values, dtype=np.float64)
    p50, p90, p99 = np.percentile(arr, [50, 90, 99], method="linear")
    return TokenStats(float(arr.mean()), float(p50), float(p90), float(p99), int(arr.max()))


def summarize_requests(requests: Sequence[Request]) -> TraceSummary:
    """Size, length percentiles, rate and burstiness of a non-empty request list."""
    if not requests:
        raise InputError("there are no requests to summarise")
    arrivals_s = np.sort(np.asarray([r.arrival_s for r in requests], dtype=np.float64))
    gaps_s = np.diff(arrivals_s)
    duration_s = float(arrivals_s[-1] - arrivals_s[0])
    mean_gap_s = float(gaps_s.mean()) if gaps_s.size else 0.0
    rate = 1.0 / mean_gap_s if mean_gap_s > 0 else None
    cv = float(gaps_s.std() / mean_gap_s) if gaps_s.size >= 2 and mean_gap_s > 0 else None
    return TraceSummary(
        num_requests=len(requests), duration_s=duration_s,
        prompt_tokens=_token_stats([r.prompt_tokens for r in requests]),
        output_tokens=_token_stats([r.output_tokens for r in requests]),
        arrival_rate_per_s=rate, burstiness_cv=cv,
        has_prefix_ids=any(r.segments is not None for r in requests),
    )


@dataclass(frozen=True, slots=True)
class PrefixCurve:
    """Hit rate against cache size for each policy, plus the ceiling no policy can pass."""

    num_distinct_blocks: int
    capacities_blocks: tuple[int, ...]
    results: tuple[PrefixStudyResult, ...]  # policy-major, capacities ascending
    ceiling: PrefixStudyResult


def study_capacities(num_distinct_blocks: int) -> tuple[int, ...]:
    """Ascending distinct cache sizes: CAPACITY_FRACTIONS of the distinct blocks, rounded up (so at least 1)."""
    return tuple(sorted({max(1, math.ceil(num_distinct_blocks * f)) for f in CAPACITY_FRACTIONS}))


def prefix_curve(requests: Sequence[Request], block_tokens: int = 512) -> PrefixCurve:
    """The FIFO/LRU/LFU study over `requests` in order, at study_capacities of its distinct blocks."""
    block_lists = block_ids_from_requests(requests, block_tokens)
    num_distinct = len({block_id for blocks in block_lists for block_id in blocks})
    capacities = study_capacities(num_distinct)
    return PrefixCurve(num_distinct, capacities, hit_rate_curve(block_lists, capacities),
                       unlimited_ceiling(block_lists))
