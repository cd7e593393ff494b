"""vLLM's three schedulers: V1 with chunked prefill (`chunked`), V1 with it off (`vllm-nochunk`), and V0's
prefill-first default (`monolithic`, Orca-style).

Invariant: V1 policies schedule running sequences before waiting ones and never admit in a step that preempted;
with scheduler_reserve_full_isl (vLLM's default) a waiting request starts only if the free blocks hold its whole
prompt, not just this step's chunk; the V0 policy never mixes a prefill and a decode in one step.
"""

from __future__ import annotations

from chunkviz.simulator.sched_common import (AdmitCheck, Plan, SchedContext, admit_waiting, prefix_hit,
                                             schedule_running)
from chunkviz.simulator.sequence import SeqState


def fits_full_sequence(ctx: SchedContext, seq: SeqState, hit_tokens: int) -> bool:
    """vLLM V1 KVCacheManager.allocate_slots(full_sequence_must_fit=scheduler_reserve_full_isl), called for WAITING
    requests only in Scheduler.schedule (vllm-project/vllm vllm/v1/core/kv_cache_manager.py, commit 003df296;
    PR #37307, default True since March 2026): the blocks for min(request.num_tokens, max_model_len) (the prompt,
    plus the outputs so far for a preempted request), less the prefix-cache hit, must be free; else the request
    waits and, as any failed allocation there, stops admission for the step. vLLM's scheduler watermark (0 by
    default) is not modelled."""
    kv = ctx.kv
    full_tokens = min(seq.num_tokens, ctx.knobs.max_model_len_tokens)
    free = kv.num_free_blocks()
    if hit_tokens:  # cached blocks nobody holds sit in the free queue: taking them uses up free blocks too
        free -= kv.num_unheld(prefix_hit(ctx, seq))
    return kv.blocks_for(full_tokens) - hit_tokens // kv.block_size <= free


def _v1_admission_check(ctx: SchedContext) -> AdmitCheck | None:
    return fits_full_sequence if ctx.scheduler.scheduler_reserve_full_isl else None


def schedule_chunked(ctx: SchedContext) -> Plan:
    """vLLM V1 Scheduler.schedule: running sequences first in list order (a decode costs 1 token, a partial
    prefill continues), then waiting requests FCFS, the last one chunked to fill the tokens left."""
    plan = Plan()
    tokens_left = schedule_running(ctx, plan, ctx.max_num_batched_tokens)
    if not plan.preempted:  # V1 admits nothing in a step that had to preempt
        admit_waiting(ctx, plan, tokens_left, allow_chunk=True, can_admit=_v1_admission_check(ctx))
    return plan


def schedule_vllm_nochunk(ctx: SchedContext) -> Plan:
    """vLLM V1 with enable_chunked_prefill=False: the same running-first loop, so a whole prompt rides in the
    same step as the decodes; a prompt that does not fit the tokens left waits, and so does every prompt behind
    it (Scheduler.schedule: "If chunked_prefill is disabled, we can stop the scheduling here")."""
    plan = Plan()
    tokens_left = schedule_running(ctx, plan, ctx.max_num_batched_tokens)
    if not plan.preempted:  # a whole prompt is allocated anyway: the full-ISL check agrees (kept for re-admissions)
        admit_waiting(ctx, plan, tokens_left, allow_chunk=False, can_admit=_v1_admission_check(ctx))
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
