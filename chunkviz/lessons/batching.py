"""Static vs continuous vs decode-first batching on one workload: latency, throughput and the GPU's work per step.

Invariant: the three modes run the same requests on the same model and GPU and differ only in the scheduling policy
(and the budget the policy implies), so every difference in the figures comes from how batches are formed.
"""

from __future__ import annotations

from dataclasses import dataclass

from chunkviz.analysis.metrics import summarize
from chunkviz.analysis.scenario import Scenario, run_scenario
from chunkviz.lessons.chapters import (DECODE_FIRST, LECTURE, LECTURE_BUDGET_TOKENS, PREFILL_FIRST, STATIC,
                                       lesson_run)
from chunkviz.simulator.trace import Trace

# Mode id → policy. Static batching: a batch runs until its last request finishes (FasterTransformer-era serving).
# Continuous: Orca's iteration-level scheduling (Yu et al., OSDI'22) — admit and retire between steps — with vLLM
# V0's prefill-first rule. Decode-first: Sarathi-Serve's stall-free batching (Agrawal et al., OSDI'24), vLLM V1.
MODES: tuple[tuple[str, str], ...] = (("static", STATIC), ("continuous", PREFILL_FIRST), ("decode_first", DECODE_FIRST))


@dataclass(frozen=True, slots=True)
class ModeResult:
    mode: str
    policy: str
    ttft_p50_s: float
    ttft_p99_s: float
    tbt_p50_s: float
    tbt_p99_s: float
    tbt_max_s: float
    throughput_tokens_per_s: float  # output tokens per second of makespan
    makespan_s: float
    num_steps: int
    num_stall_steps: int
    step_tokens: tuple[int, ...]  # tokens computed in each step: the GPU's work per step
    step_decode_tokens: tuple[int, ...]


def mode_scenario(scenario: Scenario, policy: str, budget_tokens: int = LECTURE_BUDGET_TOKENS) -> Scenario:
    return lesson_run(scenario, policy, budget_tokens)


def mode_result(mode: str, policy: str, trace: Trace) -> ModeResult:
    m = summarize(trace)
    if m.ttft_s.p50 is None or m.tbt_s.p50 is None:
        raise ValueError(f"{mode}: the run finished no request with two output tokens, so there is nothing to compare")
    return ModeResult(
        mode=mode, policy=policy, ttft_p50_s=m.ttft_s.p50, ttft_p99_s=m.ttft_s.p99, tbt_p50_s=m.tbt_s.p50,
        tbt_p99_s=m.tbt_s.p99, tbt_max_s=m.tbt_s.max, throughput_tokens_per_s=m.throughput_output_tokens_per_s,
        makespan_s=trace.makespan_s, num_steps=trace.num_steps, num_stall_steps=trace.num_stall_steps,
        step_tokens=tuple(sum(c.num_tokens for c in s.chunks) for s in trace.steps),
        step_decode_tokens=tuple(sum(c.num_tokens for c in s.chunks if c.phase == "decode") for s in trace.steps))


def compare_batching(scenario: Scenario = LECTURE,
                     budget_tokens: int = LECTURE_BUDGET_TOKENS) -> tuple[ModeResult, ...]:
    """The three modes on the scenario's workload, in MODES order."""
    return tuple(mode_result(mode, policy, run_scenario(mode_scenario(scenario, policy, budget_tokens)))
                 for mode, policy in MODES)


def by_mode(results: tuple[ModeResult, ...]) -> dict[str, ModeResult]:
    return {r.mode: r for r in results}
