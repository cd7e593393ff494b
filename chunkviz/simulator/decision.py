"""Why a step looks the way it does: the scheduler's decision, recorded beside the step for explanations.

Invariant: computed from the plan and the queues right after planning, before the step is applied; it only reads
engine state, so recording it never changes a simulation's result. The reservation note (ReserveNote) is kept out
of the trace JSON, as Trace.knob_notes are, so traces written before it and after it are byte-identical.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from chunkviz.simulator.policies.registry import policy_entry
from chunkviz.simulator.policies.vllm import fits_full_sequence
from chunkviz.simulator.reserve_note import ReserveNote  # re-exported: analysis/why.py reads it from here
from chunkviz.simulator.sched_common import Plan, SchedContext, prefix_hit, seats_taken
from chunkviz.simulator.sequence import SeqState

MAX_WAITING_IDS = 8  # enough to name who waits; a long queue is summarised by StepRecord.num_waiting
WAIT_REASONS = ("", "budget", "seats", "memory", "no_chunking", "whole_prompt", "policy")
STALL_REASONS = ("", "prefill_first", "budget")


@dataclass(frozen=True, slots=True)
class StepDecision:
    max_num_batched_tokens: int  # the budget of this step
    waiting_ids: tuple[int, ...]  # first MAX_WAITING_IDS request ids still queued after planning, queue order
    wait_reason: str  # one of WAIT_REASONS: why the head of the queue was not admitted ("" = nobody waits)
    stall_reason: str  # one of STALL_REASONS: why decode-ready requests got no token ("" = none stalled)
    reserve: ReserveNote | None = field(default=None, compare=False, metadata={"json": False})


def _wait_reason(ctx: SchedContext, plan: Plan, head: SeqState) -> str:
    """The first rule in sched_common.admit_waiting that stopped the head of the queue."""
    left = ctx.max_num_batched_tokens - plan.num_tokens
    if plan.preempted:
        return "memory"  # vLLM V1 admits nothing in a step that had to preempt (Scheduler.schedule)
    if left <= 0:
        return "budget"
    if seats_taken(ctx) + head.seats_needed > ctx.knobs.max_num_seqs:  # admit_waiting's own count
        return "seats"
    need = head.num_tokens - head.num_computed_tokens
    if not ctx.knobs.chunks_prompts and need > left:
        return "no_chunking"  # head-of-line blocking: the whole prompt must fit what is left of the budget
    if ctx.kv.blocks_for(min(need, left)) > ctx.kv.num_free_blocks():
        return "memory"
    hit_tokens = len(prefix_hit(ctx, head)) * ctx.kv.block_size if _reads_full_sequence(ctx) else 0
    if _reads_full_sequence(ctx) and not fits_full_sequence(ctx, head, hit_tokens):
        return "whole_prompt"  # vLLM V1's scheduler_reserve_full_isl (policies/vllm.py): the first chunk would fit
    return "policy"  # the policy's own rule (e.g. static batching waits for the batch to drain)


def _reads_full_sequence(ctx: SchedContext) -> bool:
    """The policy models vLLM V1 (its registry entry names a --enable-chunked-prefill value) with the switch on."""
    entry = policy_entry(ctx.scheduler.policy)
    return entry.vllm_enable_chunked_prefill is not None and ctx.scheduler.scheduler_reserve_full_isl


def decide(ctx: SchedContext, plan: Plan, stalled: list[SeqState]) -> StepDecision:
    waiting_ids: list[int] = []
    for seq in ctx.waiting:  # bounded by MAX_WAITING_IDS distinct requests
        rid = seq.request.request_id
        if rid not in waiting_ids:
            waiting_ids.append(rid)
            if len(waiting_ids) == MAX_WAITING_IDS:
                break
    wait = _wait_reason(ctx, plan, ctx.waiting[0]) if ctx.waiting else ""
    stall = ""
    if stalled:
        # Decodes cost one token each, so if the plan holds none while decodes were ready, the policy chose to
        # prefill instead (monolithic, SGLang); if it holds some, the rest did not fit the budget.
        has_decode = any(seq.is_decode_ready for seq, _ in plan.items)
        stall = "budget" if has_decode else "prefill_first"
    return StepDecision(ctx.max_num_batched_tokens, tuple(waiting_ids), wait, stall, _reserve_note(ctx, plan))


def _reserve_note(ctx: SchedContext, plan: Plan) -> ReserveNote | None:
    """The refusing check's own explanation (its `explain` attribute, set beside it in its policy module), when the
    head of the queue is the request it refused and nothing was preempted (a preemption is the reason then)."""
    if plan.refused is None or plan.preempted or not ctx.waiting:
        return None
    check, seq, hit_tokens = plan.refused
    explain = getattr(check, "explain", None)
    return explain(ctx, seq, hit_tokens) if explain is not None and ctx.waiting[0] is seq else None
