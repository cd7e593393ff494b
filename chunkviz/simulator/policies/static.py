"""Static batching, the baseline before continuous batching (Orca, OSDI '22, §2).

Invariant: a batch is admitted only when the previous one has fully drained.
"""

from __future__ import annotations

from chunkviz.simulator.sched_common import Plan, SchedContext, admit_waiting, schedule_running


def schedule_static(ctx: SchedContext) -> Plan:
    plan = Plan()
    if not ctx.running:
        admit_waiting(ctx, plan, ctx.max_num_batched_tokens, allow_chunk=False)
        return plan
    schedule_running(ctx, plan, ctx.max_num_batched_tokens)
    return plan
