"""vLLM's three schedulers: V1 with chunked prefill (`chunked`), V1 with it off (`vllm-nochunk`), and V0's
prefill-first default (`monolithic`, Orca-style).

Invariant: V1 policies schedule running sequences before waiting ones and never admit in a step that preempted;
the V0 policy never mixes a prefill and a decode in one step.
"""

from __future__ import annotations

from chunkviz.simulator.sched_common import Plan, SchedContext, admit_waiting, schedule_running


def schedule_chunked(ctx: SchedContext) -> Plan:
    """vLLM V1 Scheduler.schedule: running sequences first in list order (a decode costs 1 token, a partial
    prefill continues), then waiting requests FCFS, the last one chunked to fill the tokens left."""
    plan = Plan()
    tokens_left = schedule_running(ctx, plan, ctx.max_num_batched_tokens)
    if not plan.preempted:  # V1 admits nothing in a step that had to preempt
        admit_waiting(ctx, plan, tokens_left, allow_chunk=True)
    return plan


def schedule_vllm_nochunk(ctx: SchedContext) -> Plan:
    """vLLM V1 with enable_chunked_prefill=False: the same running-first loop, so a whole prompt rides in the
    same step as the decodes; a prompt that does not fit the tokens left waits, and so does every prompt behind
    it (Scheduler.schedule: "If chunked_prefill is disabled, we can stop the scheduling here")."""
    plan = Plan()
    tokens_left = schedule_running(ctx, plan, ctx.max_num_batched_tokens)
    if not plan.preempted:
        admit_waiting(ctx, plan, tokens_left, allow_chunk=False)
    return plan


def schedule_monolithic(ctx: SchedContext) -> Plan:
    """vLLM V0 Scheduler._schedule_default (Orca-style prefill-first): whole prompts first; a step that prefills
    runs no decodes (`if len(prefills.seq_groups) == 0: _schedule_running`), so every decode stalls behind it."""
    plan = Plan()
    admit_waiting(ctx, plan, ctx.max_num_batched_tokens, allow_chunk=False)
    if plan.items:
        return plan
    schedule_running(ctx, plan, ctx.max_num_batched_tokens)
    return plan
