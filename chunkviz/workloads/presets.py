"""Named workloads: one function plus one registry entry each, all seeded through the spec.

Invariant: a preset returns requests with ids 0..n-1 in arrival order and uses no randomness but spec.seed.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

import numpy as np

from chunkviz.errors import InputError
from chunkviz.request import PRIORITY_BATCH, PRIORITY_INTERACTIVE, Request, Segment
from chunkviz.workloads.generators import WorkloadSpec, arrival_times_s, generate, lengths


def seed_article(spec: WorkloadSpec) -> tuple[Request, ...]:
    """The seed article's distribution: gaps of 1–4 ticks, prompts from {64..2048}, 16–64 output tokens.

    One tick is 1 / (2.5 · qps) seconds, so the mean rate is qps (the article's time unit has no physical size).
    """
    rng = np.random.default_rng(spec.seed)
    tick_s = 1.0 / (2.5 * spec.qps)
    gaps = rng.integers(1, 5, size=spec.num_requests)
    arrivals = (np.cumsum(gaps) - gaps[0]) * tick_s
    prompts = rng.choice([64, 128, 256, 512, 1024, 2048], size=spec.num_requests)
    outputs = rng.integers(16, 65, size=spec.num_requests)
    return tuple(Request(i, float(arrivals[i]), int(prompts[i]), int(outputs[i]))
                 for i in range(spec.num_requests))


def long_among_chats(spec: WorkloadSpec) -> tuple[Request, ...]:
    """Teaching preset: short chats streaming tokens, and every 8th request a 6–8k-token document (batch class)."""
    rng = np.random.default_rng(spec.seed)
    n = spec.num_requests
    arrivals = arrival_times_s(replace(spec, arrival="poisson"), rng)
    chat_prompts = lengths(spec.prompt_tokens, n, "lognormal", 0.5, rng)
    chat_outputs = lengths(spec.output_tokens, n, "uniform", 0.5, rng)
    long_prompts = rng.integers(6000, 8001, size=n)
    requests = []
    for i in range(n):
        is_long = i % 8 == 4  # not the first request, so decodes are already running when it lands
        requests.append(Request(
            i, float(arrivals[i]), int(long_prompts[i] if is_long else chat_prompts[i]),
            int(min(chat_outputs[i], 32) if is_long else chat_outputs[i]),
            PRIORITY_BATCH if is_long else PRIORITY_INTERACTIVE))
    return tuple(requests)


def azure_conv_like(spec: WorkloadSpec) -> tuple[Request, ...]:
    """Azure 2023 conversation statistics (traces README: prompt mean 1,155 / p50 1,020, output mean 211), Poisson."""
    return generate(replace(spec, arrival="poisson", prompt_tokens=1155, output_tokens=211, length_dist="lognormal",
                            lognormal_sigma=0.5))


def azure_code_like(spec: WorkloadSpec) -> tuple[Request, ...]:
    """Azure 2023 code statistics (prompt mean 2,048, output mean 28), very bursty arrivals (gap CV 13 upstream)."""
    return generate(replace(spec, arrival="gamma", burstiness_cv=13.0, prompt_tokens=2048, output_tokens=28,
                            length_dist="lognormal", lognormal_sigma=0.8))


def shared_system_prompt(spec: WorkloadSpec) -> tuple[Request, ...]:
    """Every request starts with the same system prompt (1,000 tokens unless the spec says otherwise)."""
    prefix = spec.shared_prefix_tokens or 1000
    return generate(replace(spec, shared_prefix_tokens=prefix))


def multi_turn(spec: WorkloadSpec) -> tuple[Request, ...]:
    """Conversations of 4 turns; each turn's prompt repeats the earlier turns (questions and answers) and adds one.

    A turn arrives a think time (mean 10 s) after the previous one, long enough for the answer to have streamed.
    """
    rng = np.random.default_rng(spec.seed)
    num_turns = 4
    num_convs = max(1, spec.num_requests // num_turns)
    starts = arrival_times_s(replace(spec, num_requests=num_convs, qps=spec.qps / num_turns), rng)
    raw: list[tuple[float, tuple[Segment, ...], int, str]] = []
    for c in range(num_convs):
        history: tuple[Segment, ...] = ()
        t = float(starts[c])
        for turn in range(num_turns):
            question = Segment(f"c{c}.q{turn}", int(lengths(spec.prompt_tokens, 1, "lognormal", 0.5, rng)[0]))
            answer_tokens = int(lengths(spec.output_tokens, 1, "lognormal", 0.5, rng)[0])
            segments = history + (question,)
            raw.append((t, segments, answer_tokens, f"c{c}.a{turn}"))
            # The answer's token ids are the generated ones only if sampling is deterministic; we assume it is, so
            # the next turn can hit the cached answer blocks (the key matches the engine's output segment naming).
            history = segments + (Segment(f"c{c}.a{turn}", answer_tokens),)
            t += float(rng.exponential(10.0))
    raw.sort(key=lambda item: item[0])
    return tuple(Request(i, t, sum(s.num_tokens for s in segs), out, PRIORITY_INTERACTIVE, 1, segs, key)
                 for i, (t, segs, out, key) in enumerate(raw[: spec.num_requests]))


def parallel_sampling(spec: WorkloadSpec) -> tuple[Request, ...]:
    """Every request asks for n samples (4 unless the spec says otherwise) that share the prompt's KV."""
    return generate(replace(spec, n_samples=spec.n_samples if spec.n_samples > 1 else 4))


def synthetic(spec: WorkloadSpec) -> tuple[Request, ...]:
    """Exactly what the spec says: its arrival process and length distribution."""
    return generate(spec)


PRESETS: dict[str, Callable[[WorkloadSpec], tuple[Request, ...]]] = {
    "synthetic": synthetic,
    "long-among-chats": long_among_chats,
    "seed-article": seed_article,
    "azure-conv-like": azure_conv_like,
    "azure-code-like": azure_code_like,
    "shared-system-prompt": shared_system_prompt,
    "multi-turn": multi_turn,
    "parallel-sampling": parallel_sampling,
}


# The WorkloadSpec fields each preset reads (the rest it sets itself or ignores), so a front end can refuse a setting
# the chosen preset would silently drop. Every preset reads num_requests, qps and seed. burstiness_cv counts only under
# gamma arrivals (workloads/generators.arrival_times_s draws Poisson gaps without it).
_EVERY_PRESET = frozenset({"num_requests", "qps", "seed"})
_GENERATOR = _EVERY_PRESET | {"arrival", "burstiness_cv", "prompt_tokens", "output_tokens", "length_dist",
                              "batch_fraction", "shared_prefix_tokens", "n_samples"}
PRESET_FIELDS: dict[str, frozenset[str]] = {
    "synthetic": _GENERATOR,
    "long-among-chats": _EVERY_PRESET | {"prompt_tokens", "output_tokens"},  # Poisson, its own lengths and classes
    "seed-article": _EVERY_PRESET,  # the article's own gaps and lengths
    "azure-conv-like": _EVERY_PRESET | {"batch_fraction", "shared_prefix_tokens", "n_samples"},
    "azure-code-like": _EVERY_PRESET | {"batch_fraction", "shared_prefix_tokens", "n_samples"},
    "shared-system-prompt": _GENERATOR,
    "multi-turn": _EVERY_PRESET | {"arrival", "burstiness_cv", "prompt_tokens", "output_tokens"},
    "parallel-sampling": _GENERATOR,
}
SPEC_FIELDS = tuple(sorted(_GENERATOR))  # the fields a front end may set (its flags: --num-requests, ...)


def unused_fields(preset: str, spec: WorkloadSpec, given: set[str] | frozenset[str]) -> list[str]:
    """The fields in `given` that `preset` does not read with `spec` (sorted); [] when every one is read."""
    if preset not in PRESETS:
        raise InputError(f"unknown workload preset {preset!r}; choose one of {', '.join(PRESETS)}")
    used = set(PRESET_FIELDS[preset])
    if spec.arrival != "gamma":
        used.discard("burstiness_cv")
    return sorted(set(given) - used)


def make_workload(preset: str, spec: WorkloadSpec) -> tuple[Request, ...]:
    if preset not in PRESETS:
        raise InputError(f"unknown workload preset {preset!r}; choose one of {', '.join(PRESETS)}")
    return PRESETS[preset](spec)
