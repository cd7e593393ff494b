"""Scheduling policies: one function each, one registry entry each; all share sched_common's mechanics.

Invariant: a policy plans one step and never schedules more than `budget_tokens` tokens in it.
"""

from __future__ import annotations

from typing import Callable

from chunkviz.simulator.sched_common import (Plan, SchedContext, admit_waiting, allocate_or_preempt, cap_chunk,
                                   schedule_running)


def schedule_chunked(ctx: SchedContext) -> Plan:
    """vLLM v1 / Sarathi stall-free batching: running sequences first (a decode costs 1 token, a partial prefill
    continues), then waiting requests FCFS with the last one chunked to fill what is left of the budget."""
    plan = Plan()
    budget = schedule_running(ctx, plan, ctx.budget_tokens)
    if not plan.preempted:  # vLLM admits nothing in a step that had to preempt
        admit_waiting(ctx, plan, budget, allow_chunk=True)
    return plan


def schedule_monolithic(ctx: SchedContext) -> Plan:
    """vLLM without chunking (V0 default): whole prompts first; a step that prefills runs no decodes."""
    plan = Plan()
    admit_waiting(ctx, plan, ctx.budget_tokens, allow_chunk=False)
    if plan.items:
        return plan  # every running decode stalls behind this prefill step
    schedule_running(ctx, plan, ctx.budget_tokens)
    return plan


def schedule_sglang(ctx: SchedContext) -> Plan:
    """SGLang: prefill has priority. An unfinished chunked prompt continues first, then new prompts; decodes wait
    unless --enable-mixed-chunk folds them into the prefill batch (their tokens come out of the same budget)."""
    plan = Plan()
    prefilling = [s for s in ctx.running if not s.is_decode_ready]
    decoding = [s for s in ctx.running if s.is_decode_ready]
    has_prefill_work = bool(prefilling) or bool(ctx.waiting)
    if not has_prefill_work:
        schedule_running(ctx, plan, ctx.budget_tokens)
        return plan
    mixed = ctx.scheduler.sglang_enable_mixed_chunk
    budget = ctx.budget_tokens - (len(decoding) if mixed else 0)
    for seq in prefilling:  # at most one partial prompt exists: the last one admitted
        if budget <= 0:
            break
        want = min(cap_chunk(ctx, seq.num_tokens - seq.num_computed_tokens), budget)
        if not allocate_or_preempt(ctx, plan, seq, want):
            return plan
        plan.items.append((seq, want))
        budget -= want
    if budget > 0:
        admit_waiting(ctx, plan, budget, allow_chunk=True)
    if not plan.items:
        schedule_running(ctx, plan, ctx.budget_tokens)  # nothing could be prefilled: decode instead of idling
        return plan
    if mixed:
        for seq in decoding:
            if seq in ctx.running and allocate_or_preempt(ctx, plan, seq, 1):
                plan.items.append((seq, 1))
    return plan


def schedule_static(ctx: SchedContext) -> Plan:
    """Static batching (before continuous batching): admit a batch only when the previous one has fully drained."""
    plan = Plan()
    if not ctx.running:
        admit_waiting(ctx, plan, ctx.budget_tokens, allow_chunk=False)
        return plan
    schedule_running(ctx, plan, ctx.budget_tokens)
    return plan


POLICIES: dict[str, Callable[[SchedContext], Plan]] = {
    "monolithic": schedule_monolithic,
    "chunked": schedule_chunked,
    "sglang": schedule_sglang,
    "static": schedule_static,
}
