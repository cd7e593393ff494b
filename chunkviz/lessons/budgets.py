"""Choosing the chunk size by per-class SLOs: a token-budget sweep on a workload of chats and documents.

Invariant: every point comes from a run of the same workload under decode-first chunking, differing only in the
budget; a budget "meets both" when the chats meet their SLOs and the documents meet theirs, judged by the rule
written in `meets`, and ties among budgets that meet both go to the lower document TTFT (then the smaller budget).
"""

from __future__ import annotations

from dataclasses import dataclass

from chunkviz.analysis.metrics import summarize
from chunkviz.analysis.scenario import Scenario, run_scenario
from chunkviz.lessons.chapters import CLASSES, DECODE_FIRST
from chunkviz.request import PRIORITY_BATCH, PRIORITY_INTERACTIVE

BUDGETS_TOKENS = (256, 512, 1024, 2048)


@dataclass(frozen=True, slots=True)
class ClassSlo:
    # Chats: the article's "online chat TTFT under 500 ms", and a token every 25 ms (40 tokens/s, faster than
    # anyone reads) at the 99th percentile. Documents: their first token within 300 ms at the median.
    chat_ttft_p90_s: float = 0.5
    chat_tbt_p99_s: float = 0.025
    doc_ttft_p50_s: float = 0.3


@dataclass(frozen=True, slots=True)
class BudgetPoint:
    budget_tokens: int
    chat_ttft_p90_s: float
    chat_tbt_p99_s: float
    doc_ttft_p50_s: float
    meets_chat: bool
    meets_doc: bool

    @property
    def meets_both(self) -> bool:
        return self.meets_chat and self.meets_doc


def _point(budget: int, scenario: Scenario, slo: ClassSlo) -> BudgetPoint:
    trace = run_scenario(scenario.with_policy(DECODE_FIRST, budget))
    chat, doc = summarize(trace, priority=PRIORITY_INTERACTIVE), summarize(trace, priority=PRIORITY_BATCH)
    if chat.ttft_s.p90 is None or chat.tbt_s.p99 is None or doc.ttft_s.p50 is None:
        raise ValueError("the workload needs finished chats (with two tokens or more) and finished documents")
    return BudgetPoint(budget, chat.ttft_s.p90, chat.tbt_s.p99, doc.ttft_s.p50,
                       meets_chat=chat.ttft_s.p90 <= slo.chat_ttft_p90_s and chat.tbt_s.p99 <= slo.chat_tbt_p99_s,
                       meets_doc=doc.ttft_s.p50 <= slo.doc_ttft_p50_s)


def sweep_budgets(scenario: Scenario = CLASSES, budgets_tokens: tuple[int, ...] = BUDGETS_TOKENS,
                  slo: ClassSlo = ClassSlo()) -> tuple[BudgetPoint, ...]:
    """One point per budget, in the given order."""
    return tuple(_point(b, scenario, slo) for b in budgets_tokens)


def budget_meeting_both(points: tuple[BudgetPoint, ...]) -> int | None:
    """The budget that meets both classes' SLOs (ties: lower document TTFT, then smaller budget); None if none."""
    good = [p for p in points if p.meets_both]
    if not good:
        return None
    return min(good, key=lambda p: (p.doc_ttft_p50_s, p.budget_tokens)).budget_tokens
