"""Timing one call on a device: warm-up, then repeats timed with CUDA events or perf_counter after a sync.

Invariant: every sample covers exactly one call, fully finished on the device (queued GPU work is waited for).
"""

from __future__ import annotations

import time
from typing import Callable

import numpy as np
import torch


def _sample_s(fn: Callable[[], object], device: str) -> float:
    if device == "cuda":
        # Events are recorded on the stream, so they time the kernels, not the Python that launches them.
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        return start.elapsed_time(end) / 1e3
    t0 = time.perf_counter()
    fn()
    torch.cpu.synchronize()
    return time.perf_counter() - t0


def time_call(fn: Callable[[], object], device: str, num_warmup: int, num_repeats: int) -> tuple[float, float, float]:
    """(median, p10, p90) seconds of `num_repeats` timed calls after `num_warmup` untimed ones."""
    for _ in range(num_warmup):
        fn()
    if device == "cuda":
        torch.cuda.synchronize()
    samples = np.array([_sample_s(fn, device) for _ in range(num_repeats)])
    p10, median, p90 = np.percentile(samples, (10, 50, 90))
    return float(median), float(p10), float(p90)
