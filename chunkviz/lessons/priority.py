"""What priority scheduling buys the chats: chapter 6's chats and documents at rising load, fcfs beside priority.

Invariant: the two runs of a row are the same scenario (chapter 6's 24 requests at the row's arrival rate, vLLM V1
chunked prefill at the lecture's budget) and differ only in SchedulerConfig.scheduling_policy; every figure is read
from those runs. The chats are priority 0 and the documents priority 1 (workloads/generators.py), so under vLLM's
`--scheduling-policy priority` a waiting chat is admitted before a waiting document whatever their arrival order.
The CLI gives the same figures (`cli_command`, JSON key by_priority; tests/test_priority_scheduling.py checks it).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from chunkviz.analysis.metrics import summarize
from chunkviz.analysis.scenario import Scenario, run_scenario
from chunkviz.lessons.chapters import CLASSES, DECODE_FIRST, LECTURE_BUDGET_TOKENS
from chunkviz.request import PRIORITY_BATCH, PRIORITY_INTERACTIVE

# Chapter 6's own rate, then twice and four times it: the queue forms only once arrivals outpace the engine.
LOADS_QPS = (16.0, 32.0, 64.0)


@dataclass(frozen=True, slots=True)
class PriorityRow:
    qps: float
    chat_ttft_p99_fcfs_s: float
    chat_ttft_p99_priority_s: float
    doc_ttft_p50_fcfs_s: float
    doc_ttft_p50_priority_s: float

    @property
    def chat_gain_s(self) -> float:
        return self.chat_ttft_p99_fcfs_s - self.chat_ttft_p99_priority_s


def _figures(scenario: Scenario, scheduling_policy: str) -> tuple[float, float]:
    """(chats' TTFT p99, documents' TTFT p50) of one run."""
    run = replace(scenario, scheduler=replace(scenario.scheduler, scheduling_policy=scheduling_policy))
    trace = run_scenario(run)
    chat, doc = summarize(trace, priority=PRIORITY_INTERACTIVE), summarize(trace, priority=PRIORITY_BATCH)
    if chat.ttft_s.p99 is None or doc.ttft_s.p50 is None:
        raise ValueError("the workload needs finished chats and finished documents")
    return chat.ttft_s.p99, doc.ttft_s.p50


def priority_rows(scenario: Scenario = CLASSES, loads_qps: tuple[float, ...] = LOADS_QPS,
                  budget_tokens: int = LECTURE_BUDGET_TOKENS) -> tuple[PriorityRow, ...]:
    """One row per arrival rate, in the given order (metrics-only runs: TTFT needs no per-step detail)."""
    base = replace(scenario.with_policy(DECODE_FIRST, budget_tokens), record_detail=False)
    rows = []
    for qps in loads_qps:
        loaded = replace(base, workload=replace(base.workload, qps=qps))
        (chat_fcfs, doc_fcfs), (chat_prio, doc_prio) = _figures(loaded, "fcfs"), _figures(loaded, "priority")
        rows.append(PriorityRow(qps, chat_fcfs, chat_prio, doc_fcfs, doc_prio))
    return tuple(rows)


def cli_command(qps: float, scheduling_policy: str, scenario: Scenario = CLASSES,
                budget_tokens: int = LECTURE_BUDGET_TOKENS) -> str:
    """The `simulate` command that runs one of a row's two runs (the CLI's other defaults are the scenario's)."""
    w = scenario.workload
    return (f"python -m chunkviz simulate --workload {scenario.workload_preset} --num-requests {w.num_requests} "
            f"--qps {qps:g} --prompt-tokens {w.prompt_tokens} --output-tokens {w.output_tokens} --seed {w.seed} "
            f"--max-num-batched-tokens {budget_tokens} --scheduling-policy {scheduling_policy} --json")


def largest_gain(rows: tuple[PriorityRow, ...]) -> PriorityRow:
    """The row where priority cuts the chats' TTFT p99 most (the lesson's sentence reads it)."""
    return max(rows, key=lambda r: r.chat_gain_s)
