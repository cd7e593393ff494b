"""Seeded request generation: arrival processes × length distributions, presets, and shared content.

Invariant: generate(spec) depends only on spec (one numpy Generator seeded from spec.seed, no global RNG), and
returns requests with ids 0..n-1 in arrival order.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from chunkviz.errors import InputError
from chunkviz.request import PRIORITY_BATCH, PRIORITY_INTERACTIVE, Request, Segment

MAX_WORKLOAD_REQUESTS = 100_000
MAX_WORKLOAD_QPS = 10_000.0  # highest arrival rate a generated workload takes (capacity searches stop here too)
MAX_TOKENS_PER_REQUEST = 1_000_000
ARRIVALS = ("poisson", "gamma")
LENGTH_DISTS = ("fixed", "uniform", "lognormal")


@dataclass(frozen=True, slots=True)
class WorkloadSpec:
    num_requests: int = field(default=200, metadata={"help": "Requests to generate"})
    qps: float = field(default=10.0, metadata={"help": "Mean arrival rate, requests per second"})
    arrival: str = field(default="poisson", metadata={"help": "poisson, or gamma (bursty)"})
    burstiness_cv: float = field(default=3.0, metadata={"help": "Gamma arrivals: coefficient of variation of gaps"})
    prompt_tokens: int = field(default=512, metadata={"help": "Mean prompt length"})
    output_tokens: int = field(default=128, metadata={"help": "Mean output length"})
    length_dist: str = field(default="lognormal", metadata={"help": "fixed, uniform (±50%) or lognormal"})
    lognormal_sigma: float = 0.8
    batch_fraction: float = field(default=0.0, metadata={"help": "Share of requests in the offline batch class"})
    shared_prefix_tokens: int = field(default=0, metadata={"help": "Same system prompt at the start of every request"})
    n_samples: int = field(default=1, metadata={"help": "Parallel sampling: sequences per request"})
    seed: int = 0

    def __post_init__(self) -> None:
        _require(isinstance(self.num_requests, int) and 1 <= self.num_requests <= MAX_WORKLOAD_REQUESTS,
                 f"num_requests must be an integer from 1 to {MAX_WORKLOAD_REQUESTS}, got {self.num_requests!r}")
        _require(_finite(self.qps) and 0 < self.qps <= MAX_WORKLOAD_QPS,
                 f"qps must be in (0, {MAX_WORKLOAD_QPS:g}], got {self.qps!r}")
        _require(self.arrival in ARRIVALS, f"arrival must be one of {', '.join(ARRIVALS)}, got {self.arrival!r}")
        _require(_finite(self.burstiness_cv) and 0.05 <= self.burstiness_cv <= 50,
                 f"burstiness_cv must be in [0.05, 50], got {self.burstiness_cv!r}")
        for name in ("prompt_tokens", "output_tokens"):
            v = getattr(self, name)
            _require(isinstance(v, int) and 1 <= v <= MAX_TOKENS_PER_REQUEST,
                     f"{name} must be an integer from 1 to {MAX_TOKENS_PER_REQUEST}, got {v!r}")
        _require(self.length_dist in LENGTH_DISTS,
                 f"length_dist must be one of {', '.join(LENGTH_DISTS)}, got {self.length_dist!r}")
        _require(_finite(self.lognormal_sigma) and 0 < self.lognormal_sigma <= 3, "lognormal_sigma must be in (0, 3]")
        _require(_finite(self.batch_fraction) and 0 <= self.batch_fraction <= 1, "batch_fraction must be in [0, 1]")
        _require(isinstance(self.shared_prefix_tokens, int) and 0 <= self.shared_prefix_tokens <= 100_000,
                 f"shared_prefix_tokens must be an integer from 0 to 100000, got {self.shared_prefix_tokens!r}")
        _require(isinstance(self.n_samples, int) and 1 <= self.n_samples <= 64,
                 f"n_samples must be an integer from 1 to 64, got {self.n_samples!r}")
        _require(isinstance(self.seed, int) and 0 <= self.seed < 2**63, f"seed must be a non-negative integer")


def _finite(x: object) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _require(ok: bool, message: str) -> None:
    if not ok:
        raise InputError(message)


def arrival_times_s(spec: WorkloadSpec, rng: np.random.Generator) -> np.ndarray:
    """Arrival times starting at 0: Poisson (exponential gaps) or gamma gaps with the given CV, same mean rate."""
    n = spec.num_requests
    if spec.arrival == "poisson":
        gaps = rng.exponential(1.0 / spec.qps, size=n)
    else:
        shape = 1.0 / spec.burstiness_cv**2
        gaps = rng.gamma(shape, 1.0 / (spec.qps * shape), size=n)
    gaps[0] = 0.0
    return np.cumsum(gaps)


def lengths(mean: int, n: int, dist: str, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """Integer lengths >= 1 with the given mean (before clipping)."""
    if dist == "fixed":
        values = np.full(n, float(mean))
    elif dist == "uniform":
        values = rng.uniform(0.5 * mean, 1.5 * mean, size=n)
    else:
        values = rng.lognormal(math.log(mean) - sigma**2 / 2, sigma, size=n)
    return np.clip(np.rint(values), 1, MAX_TOKENS_PER_REQUEST).astype(np.int64)


def generate(spec: WorkloadSpec) -> tuple[Request, ...]:
    """Requests for a synthetic spec."""
    rng = np.random.default_rng(spec.seed)
    arrivals = arrival_times_s(spec, rng)
    prompts = lengths(spec.prompt_tokens, spec.num_requests, spec.length_dist, spec.lognormal_sigma, rng)
    outputs = lengths(spec.output_tokens, spec.num_requests, spec.length_dist, spec.lognormal_sigma, rng)
    batch = rng.random(spec.num_requests) < spec.batch_fraction
    return tuple(_request(i, float(arrivals[i]), int(prompts[i]), int(outputs[i]),
                          PRIORITY_BATCH if batch[i] else PRIORITY_INTERACTIVE, spec)
                 for i in range(spec.num_requests))


def _request(i: int, arrival_s: float, prompt: int, output: int, priority: int, spec: WorkloadSpec) -> Request:
    segments = None
    if spec.shared_prefix_tokens:
        segments = (Segment("system", spec.shared_prefix_tokens), Segment(f"r{i}", prompt))
        prompt += spec.shared_prefix_tokens
    return Request(i, arrival_s, prompt, output, priority, spec.n_samples, segments)
