"""The seed article's toy scheduler (whole-prompt vs chunked prefill), re-implemented, with its flaws named.

Invariant: `toy_simulate` plus the `toy_*` metrics reproduce the article's printed figures exactly (30 requests,
seed 7: 1381 steps / 582.3 / 1115 monolithic, 2447 / 1160.7 / 2226 chunked); the corrected reading re-measures
the same run (TTFT from arrival, nearest-rank P95) and never simulates it again.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any, Literal

from chunkviz.errors import InputError, SimulationLimitError

SeedMode = Literal["monolithic", "chunked"]

PROMPT_CHOICES_TOKENS: tuple[int, ...] = (64, 128, 256, 512, 1024, 2048)
TOY_BUDGET = 8  # work units per step; one decoded token costs one unit
TOY_PREFILL_WEIGHT = 0.5  # work units per prompt token (the article's `wp`)
DEFAULT_NUM_REQUESTS, DEFAULT_SEED, DEFAULT_CHUNK_TOKENS = 30, 7, 8
MAX_NUM_REQUESTS, MAX_CHUNK_TOKENS = 2000, 4096
# The corrected P95: the smallest value with at least 95% of values at or below it, i.e. sorted[ceil(0.95·n) - 1].
PERCENTILE_METHOD = "nearest-rank"

FLAWS: dict[str, str] = {
    "ttft_absolute": "TTFT is recorded as the absolute step at which the first token appears, not as the time since "
                     "the request arrived, so a request looks slow merely for arriving late.",
    "p95_index_off_by_one": "The 'P95' reads sorted index int(0.95·n) - 1, one rank below the nearest-rank P95 "
                            "(rank ⌈0.95·n⌉) whenever 0.95·n is not whole: with 30 requests it reports the 28th "
                            "smallest TTFT instead of the 29th.",
    "chunk_one_per_step": "The chunked path prefills at most one chunk per step, and only after every decode has "
                          "run; leftover budget is never used for a second chunk, so a 2048-token prompt in "
                          "8-token chunks needs at least 256 steps and long prompts starve behind decodes.",
    "monolithic_prefill_jump": "The monolithic path charges a whole prefill as a jump of the clock in which no "
                               "decode runs, and queued prefills jump back to back, so running requests stall "
                               "while the stall is not counted as work.",
    "chunk_over_budget_stalls": "If one chunk costs more than the whole budget (chunk · wp > budget), the chunked "
                                "path never prefills and the toy's loop never ends; this version refuses that chunk.",
}


@dataclass(frozen=True, slots=True)
class SeedRequest:
    """One toy request; times are in steps, lengths in tokens."""

    req_id: int
    arrive_step: int
    prompt_tokens: int
    output_tokens: int


@dataclass(frozen=True, slots=True)
class SeedRunResult:
    """One toy run; every TTFT figure is in steps, per-request tuples are in req_id order."""

    mode: SeedMode
    chunk_tokens: int | None
    total_steps: int
    mean_ttft_toy: float  # mean of absolute TTFT steps, as the article prints it
    p95_ttft_toy: int  # the article's sorted[int(0.95·n) - 1] of absolute TTFT
    mean_ttft_from_arrival: float
    p95_ttft_proper: int  # nearest-rank P95 of TTFT measured from arrival
    arrive_steps: tuple[int, ...]
    prompt_tokens: tuple[int, ...]
    output_tokens: tuple[int, ...]
    ttft_abs_steps: tuple[int, ...]
    finish_steps: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "mode": self.mode, "chunk_tokens": self.chunk_tokens, "total_steps": self.total_steps,
            "mean_ttft": self.mean_ttft_toy, "p95_ttft": self.p95_ttft_toy,
            "mean_ttft_from_arrival": self.mean_ttft_from_arrival, "p95_ttft_from_arrival": self.p95_ttft_proper,
            "arrive_steps": list(self.arrive_steps), "prompt_tokens": list(self.prompt_tokens),
            "output_tokens": list(self.output_tokens), "ttft_abs_steps": list(self.ttft_abs_steps),
            "finish_steps": list(self.finish_steps),
        }


@dataclass(frozen=True, slots=True)
class SeedDemoReport:
    """Both toy runs over the same requests, plus the knobs that produced them."""

    num_requests: int
    seed: int
    chunk_tokens: int
    budget: int
    prefill_weight: float
    percentile_method: str
    monolithic: SeedRunResult
    chunked: SeedRunResult
    flaw_codes: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "num_requests": self.num_requests, "seed": self.seed, "chunk_tokens": self.chunk_tokens,
            "budget": self.budget, "prefill_weight": self.prefill_weight,
            "percentile_method": self.percentile_method, "monolithic": self.monolithic.to_dict(),
            "chunked": self.chunked.to_dict(), "flaws": list(self.flaw_codes),
        }


def generate_requests(num_requests: int, seed: int) -> tuple[SeedRequest, ...]:
    """The toy workload: gaps of 1-4 steps, prompts from PROMPT_CHOICES_TOKENS, 16-64 output tokens."""
    # A private Random(seed) draws the same sequence as the article's module-level random.seed(seed) without
    # touching global state; the draw order (gap, prompt, output) must stay as the article has it.
    rng = random.Random(seed)
    requests, arrive_step = [], 0
    for req_id in range(num_requests):
        arrive_step += rng.randint(1, 4)
        prompt_tokens = rng.choice(PROMPT_CHOICES_TOKENS)
        requests.append(SeedRequest(req_id, arrive_step, prompt_tokens, rng.randint(16, 64)))
    return tuple(requests)


def _max_steps(requests: tuple[SeedRequest, ...], budget: int, prefill_weight: float) -> int:
    # Once all have arrived, each step decodes a token, runs a chunk (at most one per prompt token) or a prefill
    # jump, or the run is over; twice that sum bounds every run that can finish, so passing it means a stall.
    last_arrive = max(r.arrive_step for r in requests)
    jumps = sum(max(1, math.ceil(r.prompt_tokens * prefill_weight / budget)) for r in requests)
    return 2 * (last_arrive + jumps + sum(r.prompt_tokens + r.output_tokens for r in requests)) + 16


def _decode(decode_ids: list[int], output_left: list[int], finish: list[int | None], step: int) -> int:
    # One token for each; a request that emits its last token finishes at this step. Returns how many finished.
    num_finished = 0
    for i in decode_ids:
        output_left[i] -= 1
        if output_left[i] == 0:
            finish[i], num_finished = step, num_finished + 1
    return num_finished


def _check_toy_knobs(budget: int, prefill_weight: float) -> None:
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1 or not prefill_weight > 0:
        raise InputError(f"budget must be an integer >= 1 and prefill_weight > 0, got {budget!r}, {prefill_weight!r}")


def _num_arrived_by(requests: tuple[SeedRequest, ...], order: list[int], num_arrived: int, step: int) -> int:
    while num_arrived < len(order) and requests[order[num_arrived]].arrive_step <= step:
        num_arrived += 1
    return num_arrived


def toy_simulate(requests: tuple[SeedRequest, ...], chunk_tokens: int | None, budget: int = TOY_BUDGET,
                 prefill_weight: float = TOY_PREFILL_WEIGHT) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
    """Run the article's loop (chunk None = whole-prompt prefill); return (total steps, TTFT steps, finish steps)."""
    _check_toy_knobs(budget, prefill_weight)
    if not requests:
        return 0, (), ()
    order = sorted(range(len(requests)), key=lambda i: requests[i].arrive_step)
    prefill_left, output_left = [r.prompt_tokens for r in requests], [r.output_tokens for r in requests]
    ttft: list[int | None] = [None] * len(requests)
    finish: list[int | None] = [None] * len(requests)
    # Prefills are served oldest first and never overtake, so pending requests are order[num_prefilled:num_arrived]
    # and the decoding list stays in arrival order, the order in which the toy's loop hands out decode budget.
    decoding: list[int] = []
    num_arrived = num_prefilled = num_done = step = 0
    max_steps = _max_steps(requests, budget, prefill_weight)
    while num_done < len(requests):
        if step > max_steps:
            raise SimulationLimitError(f"seed demo passed its bound of {max_steps} steps without finishing")
        num_arrived = _num_arrived_by(requests, order, num_arrived, step)
        has_pending = num_prefilled < num_arrived
        if chunk_tokens is None and has_pending:
            head = order[num_prefilled]
            # The whole prompt in one go: the clock jumps and nothing else runs meanwhile (flaw
            # monolithic_prefill_jump); back to the top so newly arrived prompts may jump next.
            step += max(1, math.ceil(prefill_left[head] * prefill_weight / budget))
            ttft[head], num_prefilled = step, num_prefilled + 1
            decoding.append(head)
            continue
        num_decodes = min(budget, len(decoding))
        num_done += _decode(decoding[:num_decodes], output_left, finish, step)
        decoding = [i for i in decoding if output_left[i] > 0]
        # Decodes first, then one chunk at most, and only if what they left covers it (flaw chunk_one_per_step).
        if chunk_tokens is not None and has_pending and budget - num_decodes >= chunk_tokens * prefill_weight:
            head = order[num_prefilled]
            prefill_left[head] -= chunk_tokens
            if prefill_left[head] <= 0:
                ttft[head], num_prefilled = step, num_prefilled + 1
                decoding.append(head)  # decodes from the next step on, as in the toy
        step += 1
    return step, tuple(t for t in ttft if t is not None), tuple(f for f in finish if f is not None)


def toy_p95(values: tuple[int, ...]) -> int:
    """The article's "P95": sorted[int(n·0.95) - 1], kept as written (for n = 1 it wraps to index -1, the max)."""
    return sorted(values)[int(len(values) * 0.95) - 1]


def nearest_rank_percentile(values: tuple[int, ...], percent: int) -> int:
    """Nearest-rank percentile: sorted[ceil(percent·n/100) - 1], in integer arithmetic so no float rounding."""
    rank = -(-percent * len(values) // 100)
    return sorted(values)[max(rank, 1) - 1]


def run_toy(requests: tuple[SeedRequest, ...], chunk_tokens: int | None) -> SeedRunResult:
    """One toy run measured both ways: the article's reading and the corrected one (all in steps)."""
    total_steps, ttft_abs, finish = toy_simulate(requests, chunk_tokens)
    ttft_from_arrival = tuple(t - r.arrive_step for t, r in zip(ttft_abs, requests, strict=True))
    return SeedRunResult(
        mode="monolithic" if chunk_tokens is None else "chunked", chunk_tokens=chunk_tokens,
        total_steps=total_steps, mean_ttft_toy=sum(ttft_abs) / len(ttft_abs), p95_ttft_toy=toy_p95(ttft_abs),
        mean_ttft_from_arrival=sum(ttft_from_arrival) / len(ttft_from_arrival),
        p95_ttft_proper=nearest_rank_percentile(ttft_from_arrival, 95),
        arrive_steps=tuple(r.arrive_step for r in requests), prompt_tokens=tuple(r.prompt_tokens for r in requests),
        output_tokens=tuple(r.output_tokens for r in requests), ttft_abs_steps=ttft_abs, finish_steps=finish)


def _check_int_range(name: str, value: object, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InputError(f"{name} must be an integer from {low} to {high}, got {value!r}")


def run_seed_demo(num_requests: int = DEFAULT_NUM_REQUESTS, seed: int = DEFAULT_SEED,
                  chunk_tokens: int = DEFAULT_CHUNK_TOKENS) -> SeedDemoReport:
    """Both toy runs (whole-prompt, then chunked) over one seeded workload."""
    _check_int_range("num_requests", num_requests, 1, MAX_NUM_REQUESTS)
    _check_int_range("chunk", chunk_tokens, 1, MAX_CHUNK_TOKENS)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise InputError(f"seed must be an integer, got {seed!r}")
    max_chunk_tokens = int(TOY_BUDGET / TOY_PREFILL_WEIGHT)
    if chunk_tokens > max_chunk_tokens:
        # The toy would spin forever here (flaw chunk_over_budget_stalls); say so instead of hitting the step bound.
        raise InputError(f"chunk must be at most {max_chunk_tokens} tokens: a {chunk_tokens}-token chunk costs "
                         f"{chunk_tokens * TOY_PREFILL_WEIGHT:g} work units, more than the toy's budget of "
                         f"{TOY_BUDGET}, so its chunked path would never prefill")
    requests = generate_requests(num_requests, seed)
    return SeedDemoReport(
        num_requests=num_requests, seed=seed, chunk_tokens=chunk_tokens, budget=TOY_BUDGET,
        prefill_weight=TOY_PREFILL_WEIGHT, percentile_method=PERCENTILE_METHOD,
        monolithic=run_toy(requests, None), chunked=run_toy(requests, chunk_tokens), flaw_codes=tuple(FLAWS))
