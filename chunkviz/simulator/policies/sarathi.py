"""Sarathi-Serve's stall-free batching (Agrawal et al., OSDI '24, Algorithm 1; sarathi-serve
SarathiScheduler._schedule).

Invariant: a step holds every running decode first, then the unfinished (partial) prefills, then new prompts, the
last chunked to fill the tokens left; a prompt's blocks are reserved at admission (its V0-style block manager).
"""

from __future__ import annotations

from chunkviz.simulator.sched_common import Plan, SchedContext, admit_waiting, schedule_running


def schedule_sarathi(ctx: SchedContext) -> Plan:
    plan = Plan()
    decodes = [s for s in ctx.running if s.is_decode_ready]
    partial = [s for s in ctx.running if not s.is_decode_ready]
    tokens_left = schedule_running(ctx, plan, ctx.max_num_batched_tokens, decodes)
    tokens_left = schedule_running(ctx, plan, tokens_left, partial)
    if not plan.preempted:
        admit_waiting(ctx, plan, tokens_left, allow_chunk=True)
    return plan
