"""TensorRT-LLM's in-flight batching (cpp/tensorrt_llm/batch_manager: CapacityScheduler, MicroBatchScheduler).

Invariants: requests in progress are scheduled before new ones; a step holds at most max_num_tokens tokens and
max_batch_size requests; without chunked context a prompt runs whole in one step or waits; under
guaranteed-no-evict a request starts only if the free blocks cover every running request's blocks to completion
(prompt + the client's max_tokens, not the true output: policies/reservation.py) plus its own (so nothing is ever paused), under max-utilization it starts when its next step fits and the newest
started request is paused (recomputed later) when memory runs out.
"""

from __future__ import annotations

from typing import Callable

from chunkviz.request import Request
from chunkviz.simulator.reserve_note import ReserveNote
from chunkviz.simulator.policies.reservation import context_limit_tokens, trtllm_total_tokens
from chunkviz.simulator.sched_common import Plan, SchedContext, SkipCheck, admit_waiting, schedule_running
from chunkviz.simulator.sequence import SeqState


def _completion_blocks(ctx: SchedContext, request: Request) -> int:
    """Blocks for prompt + max_tokens (the client's, or max_seq_len - prompt when unset:
    reservation.trtllm_total_tokens)."""
    return ctx.kv.blocks_for(trtllm_total_tokens(request, context_limit_tokens(ctx)))


def _blocks_to_completion(ctx: SchedContext, seq: SeqState) -> int:
    """GuaranteedNoEvictScheduler: blocks a request still needs to its completion, beyond those it holds."""
    return max(0, _completion_blocks(ctx, seq.request) - ctx.kv.num_table_blocks(seq.key))


def completion_reserve(ctx: SchedContext) -> Callable[[Request], int] | None:
    """For the fast path's absorption (registry fast_path_reserve): the blocks GUARANTEED_NO_EVICT sets aside for a
    request from its start to its end, _blocks_to_completion before it holds any; None under max-utilization, whose
    admission only needs the blocks of its step."""
    if ctx.scheduler.trtllm_capacity_policy != "guaranteed-no-evict":
        return None
    return lambda request: _completion_blocks(ctx, request)


def explain_to_completion(ctx: SchedContext, seq: SeqState, hit_tokens: int) -> ReserveNote:
    """GUARANTEED_NO_EVICT's arithmetic: the request's blocks to completion against the free blocks left once every
    running request's remaining blocks are set aside."""
    reserved = sum(_blocks_to_completion(ctx, s) for s in ctx.running)
    total = trtllm_total_tokens(seq.request, context_limit_tokens(ctx))
    own = ctx.kv.blocks_for(total) - hit_tokens // ctx.kv.block_size
    return ReserveNote("guaranteed_no_evict", seq.request.request_id, seq.request.client_max_tokens,
                       total - seq.request.prompt_tokens, total, own, ctx.kv.num_free_blocks() - reserved)


def fits_to_completion(ctx: SchedContext, seq: SeqState, hit_tokens: int) -> bool:
    """GUARANTEED_NO_EVICT: admit only what fits after every running request's remaining blocks are set aside."""
    note = explain_to_completion(ctx, seq, hit_tokens)
    return note.need <= note.available


fits_to_completion.explain = explain_to_completion  # the why-sentence's reading of a refusal (decision.py)


def _first_new_block_key(ctx: SchedContext, seq: SeqState) -> object | None:
    """kvCacheManager.cpp WindowBlockManager::findNewContextBlock: the key (with its whole prefix) of the first full
    block of the request's tokens that the reuse tree lacks, or None when every full block is there."""
    kv, block_size = ctx.kv, ctx.kv.block_size
    num_hit = len(kv.find_prefix_hit(seq.content, seq.num_tokens))  # full blocks only, the last token included
    if num_hit >= seq.num_tokens // block_size:
        return None
    return kv.block_key_at(seq.content, (num_hit + 1) * block_size)


def reuse_aware_skip(ctx: SchedContext) -> SkipCheck | None:
    """capacityScheduler.cpp `beneficialToSkip` (GuaranteedNoEvictScheduler and MaxUtilizationScheduler): with block
    reuse on, a request in its first context chunk whose first new block another context request of this step (or a
    chunked context still running: prefillWithChunkedContextsAlreadyExecuting) will produce is passed over this step
    (`continue`, those behind it are still served), to reuse that block once its context is stored; otherwise it
    contributes its own first new block. None when reuse is off (or the manager keeps no prefix keys)."""
    if not (ctx.kv.enable_prefix_caching and ctx.kv.tracks_content):
        return None
    contributed = {key for seq in ctx.running if not seq.is_decode_ready and seq.num_computed_tokens > 0
                   for key in (_first_new_block_key(ctx, seq),) if key is not None}

    def skip(ctx: SchedContext, seq: SeqState) -> bool:
        key = _first_new_block_key(ctx, seq)
        if key is None:
            return False
        if key in contributed:
            return True
        contributed.add(key)
        return False

    return skip


def schedule_trtllm(ctx: SchedContext) -> Plan:
    plan = Plan()
    # Chunked context splits a prompt into chunks of whole KV blocks (chunk unit = tokens_per_block), but the last.
    unit = ctx.kv.block_size
    tokens_left = schedule_running(ctx, plan, ctx.max_num_batched_tokens, chunk_unit_tokens=unit)
    if plan.preempted:  # max-utilization paused a request: nothing new starts in that step
        return plan
    guaranteed = ctx.scheduler.trtllm_capacity_policy == "guaranteed-no-evict"
    admit_waiting(ctx, plan, tokens_left, allow_chunk=ctx.knobs.chunks_prompts,
                  can_admit=fits_to_completion if guaranteed else None, chunk_unit_tokens=unit,
                  skip=reuse_aware_skip(ctx))
    return plan
