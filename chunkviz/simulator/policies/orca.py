"""Orca's iteration-level scheduling (Yu et al., OSDI '22, §4 "Selective batching", Algorithm 1), as Sarathi-Serve
implements it (sarathi/core/scheduler/orca_scheduler.py `OrcaScheduler._schedule`, OrcaBlockSpaceManager).

Invariants: a step is one hybrid batch: every running request's next decode, then whole new prompts FCFS (never
chunked); a request starts only if max_model_len tokens of KV can be set aside for it beside every running
request's own max_model_len (Orca's n_slots reservation; OrcaBlockSpaceManager.can_allocate allocates
max_model_len blocks), so memory never runs out mid-generation and a running decode is never paused.
"""

from __future__ import annotations

from chunkviz.simulator.reserve_note import ReserveNote
from chunkviz.simulator.policies.reservation import context_limit_tokens
from chunkviz.simulator.sched_common import Plan, SchedContext, admit_waiting, schedule_running
from chunkviz.simulator.sequence import SeqState


def _max_len_blocks(ctx: SchedContext) -> int:
    return ctx.kv.blocks_for(context_limit_tokens(ctx))  # max_model_len, capped at the cache (reservation.py)


def fits_max_model_len(ctx: SchedContext, seq: SeqState, hit_tokens: int) -> bool:
    """OrcaBlockSpaceManager.can_allocate: the free blocks cover max_model_len for this request after every running
    request's reservation to max_model_len (what it already holds counts towards it)."""
    per_request = _max_len_blocks(ctx)
    reserved = sum(max(0, per_request - ctx.kv.num_table_blocks(s.key)) for s in ctx.running)
    own = per_request * seq.seats_needed - hit_tokens // ctx.kv.block_size  # each sample of n reserves its own
    return own <= ctx.kv.num_free_blocks() - reserved


def explain_max_model_len(ctx: SchedContext, seq: SeqState, hit_tokens: int) -> ReserveNote:
    """fits_max_model_len's figures, in blocks (the same arithmetic)."""
    per_request = _max_len_blocks(ctx)
    reserved = sum(max(0, per_request - ctx.kv.num_table_blocks(s.key)) for s in ctx.running)
    own = per_request * seq.seats_needed - hit_tokens // ctx.kv.block_size
    limit = context_limit_tokens(ctx)
    return ReserveNote("max_model_len", seq.request.request_id, None, limit - seq.request.prompt_tokens, limit, own,
                       ctx.kv.num_free_blocks() - reserved)


fits_max_model_len.explain = explain_max_model_len  # the why-sentence's reading of a refusal (decision.py)


def schedule_orca(ctx: SchedContext) -> Plan:
    """OrcaScheduler._schedule: the running requests (all decoding: prompts run whole) first, then waiting requests
    while their reservation fits and max_num_seqs allows; no token budget binds but the knob's (the default is
    max_num_seqs * max_model_len, OrcaSchedulerConfig.get_max_num_batched_tokens)."""
    plan = Plan()
    tokens_left = schedule_running(ctx, plan, ctx.max_num_batched_tokens)
    if not plan.preempted:
        admit_waiting(ctx, plan, tokens_left, allow_chunk=False, can_admit=fits_max_model_len)
    return plan
