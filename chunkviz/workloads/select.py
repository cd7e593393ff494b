"""Cutting a loaded trace down: a time window, a replay speed-up, a seeded sample of requests.

Invariant: the result keeps arrival order, its ids are 0..n-1 in that order, and its first arrival_s is 0.0.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import numpy as np

from chunkviz.errors import InputError
from chunkviz.request import Request

# A million times the load squeezes a day of arrivals into 0.09 s, and a millionth stretches a minute to two years:
# beyond these the replay is no longer the trace (arrivals collapse onto one instant or leave the clock's range).
MIN_RATE_SCALE, MAX_RATE_SCALE = 1e-6, 1e6


def _check_args(time_window_s: tuple[float, float] | None, rate_scale: float | None, sample: int | None,
                seed: int) -> None:
    if time_window_s is not None:
        start_s, end_s = time_window_s
        if not (math.isfinite(start_s) and math.isfinite(end_s) and 0 <= start_s < end_s):
            raise InputError(f"time window must satisfy 0 <= start < end (finite seconds), got {time_window_s}")
    if rate_scale is not None and not (math.isfinite(rate_scale) and rate_scale > 0):
        raise InputError(f"rate scale must be a finite number > 0, got {rate_scale}")
    if rate_scale is not None and not MIN_RATE_SCALE <= rate_scale <= MAX_RATE_SCALE:
        raise InputError(f"rate scale must be from {MIN_RATE_SCALE:g} to {MAX_RATE_SCALE:g}, got {rate_scale:g}")
    if sample is not None and (isinstance(sample, bool) or not isinstance(sample, int) or sample < 1):
        raise InputError(f"sample size must be a whole number >= 1, got {sample!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise InputError(f"seed must be a whole number, got {seed!r}")


def _sample_indices(num_requests: int, sample: int, seed: int) -> list[int]:
    """`sample` distinct indices in increasing order, so the sample keeps arrival order."""
    rng = np.random.default_rng(seed)
    return sorted(int(i) for i in rng.choice(num_requests, size=sample, replace=False))


def select(requests: Sequence[Request], time_window_s: tuple[float, float] | None = None,
           rate_scale: float | None = None, sample: int | None = None, seed: int = 0) -> tuple[Request, ...]:
    """Requests with start <= arrival_s < end, arrivals divided by `rate_scale`, then `sample` of them at random.

    `rate_scale` k replays the trace at k times its load (k=2: twice as many requests per second). A `sample` at
    least as large as what is left keeps everything. Times are rebased so the first kept request arrives at 0.0.
    """
    _check_args(time_window_s, rate_scale, sample, seed)
    kept = sorted(requests, key=lambda r: r.arrival_s)  # stable: already-sorted loader output is unchanged
    if time_window_s is not None and kept:
        start_s, end_s = time_window_s
        kept = [r for r in kept if start_s <= r.arrival_s < end_s]
        if not kept:
            last_s = max(r.arrival_s for r in requests)
            raise InputError(f"no request arrives in [{start_s:g}, {end_s:g}) s; the trace spans 0 to {last_s:g} s")
    if not kept:
        raise InputError("there are no requests to select from")
    if sample is not None and sample < len(kept):
        kept = [kept[i] for i in _sample_indices(len(kept), sample, seed)]
    first_s = kept[0].arrival_s
    scale = 1.0 if rate_scale is None else rate_scale
    # Rebase before scaling: dividing absolute times would shift the window as well as compress it.
    return tuple(
        dataclasses.replace(r, request_id=i, arrival_s=(r.arrival_s - first_s) / scale) for i, r in enumerate(kept)
    )
