"""SGLang's scheduler (python/sglang/srt/managers/scheduler.py, schedule_policy.py PrefillAdder,
schedule_batch.py ScheduleBatch.retract_decode), prefill-first.

Invariants: max_new_tokens is the client's max_tokens (unset: max_req_len - input - 1), never the true output
length; a new request starts only while its input plus min(max_new_tokens, 4096) is below rem_total_tokens
(free KV tokens minus what running requests may still write: a decoding request's remaining output times
new_token_ratio, a prefilling one's whole output); new_token_ratio starts at 0.7, falls by (0.7 - 0.098) / 600 per
decode step down to 0.098, is reset when the engine idles, and is re-estimated after a retraction; the retraction
victim is the running request with the fewest output tokens (ties: the longest input).
"""

from __future__ import annotations

import math

from chunkviz.simulator.decision import ReserveNote
from chunkviz.simulator.policies.reservation import context_limit_tokens, sglang_max_new_tokens
from chunkviz.simulator.sched_common import (Plan, SchedContext, admit_waiting, preempt, schedule_running)
from chunkviz.simulator.sequence import SeqState

INIT_NEW_TOKEN_RATIO = 0.7  # SGLANG_INIT_NEW_TOKEN_RATIO (global_config)
MIN_NEW_TOKEN_RATIO = INIT_NEW_TOKEN_RATIO * 0.14  # SGLANG_MIN_NEW_TOKEN_RATIO_FACTOR
NEW_TOKEN_RATIO_DECAY = (INIT_NEW_TOKEN_RATIO - MIN_NEW_TOKEN_RATIO) / 600  # SGLANG_NEW_TOKEN_RATIO_DECAY_STEPS
CLIP_MAX_NEW_TOKENS = 4096  # SGLANG_CLIP_MAX_NEW_TOKENS_ESTIMATION
RETRACT_DECODE_STEPS = 20  # global_config.retract_decode_steps: headroom kept per request after a retraction


def new_token_ratio(ctx: SchedContext) -> float:
    return ctx.policy_state.setdefault("new_token_ratio", INIT_NEW_TOKEN_RATIO)


def fewest_outputs_victim(running: list[SeqState]) -> SeqState:
    """retract_decode sorts by (output tokens, -input tokens) descending and pops the end: fewest outputs, ties
    the longest input (the later in the batch on a full tie)."""
    best = running[0]
    for seq in running[1:]:
        if (seq.num_output_tokens, -seq.request.prompt_tokens) <= (best.num_output_tokens,
                                                                  -best.request.prompt_tokens):
            best = seq
    return best


def _max_new(ctx: SchedContext, seq: SeqState) -> int:
    """The request's max_new_tokens as SGLang holds it (the client's max_tokens; unset: reservation.py)."""
    return sglang_max_new_tokens(seq.request, context_limit_tokens(ctx))


def rem_total_tokens(ctx: SchedContext) -> float:
    """PrefillAdder.rem_total_tokens: free (and evictable) KV tokens minus the running requests' expected writes."""
    ratio = new_token_ratio(ctx)
    offset = 0.0
    for seq in ctx.running:
        remaining = min(_max_new(ctx, seq) - seq.num_output_tokens, CLIP_MAX_NEW_TOKENS)
        offset += remaining * ratio if seq.is_decode_ready else remaining
    return ctx.kv.num_free_blocks() * ctx.kv.block_size - offset


def fits_rem_total(ctx: SchedContext, seq: SeqState, hit_tokens: int) -> bool:
    """PrefillAdder.add_one_req: refuse (NO_TOKEN) when input + min(max_new_tokens, 4096) >= rem_total_tokens."""
    total = seq.num_tokens - hit_tokens + min(_max_new(ctx, seq), CLIP_MAX_NEW_TOKENS)
    return total < rem_total_tokens(ctx)


def explain_rem_total(ctx: SchedContext, seq: SeqState, hit_tokens: int) -> ReserveNote:
    """fits_rem_total's figures in tokens: what the request would reserve, and rem_total_tokens (rounded down)."""
    max_new = min(_max_new(ctx, seq), CLIP_MAX_NEW_TOKENS)
    return ReserveNote("prefill_adder", seq.request.request_id, seq.request.client_max_tokens, max_new,
                       seq.num_tokens + max_new, seq.num_tokens - hit_tokens + max_new,
                       math.floor(rem_total_tokens(ctx)))


fits_rem_total.explain = explain_rem_total  # the why-sentence's reading of a refusal (decision.py)


def schedule_sglang(ctx: SchedContext) -> Plan:
    """get_next_batch_to_run: a prefill batch if one can be formed (the unfinished chunked request first, then new
    requests through the PrefillAdder), else a decode batch; --enable-mixed-chunk adds the decodes to a prefill
    batch, their tokens taken from the same budget."""
    if not ctx.running:
        ctx.policy_state["new_token_ratio"] = INIT_NEW_TOKEN_RATIO  # idle engine: states re-initialised
    plan = Plan()
    decoding = [s for s in ctx.running if s.is_decode_ready]
    prefilling = [s for s in ctx.running if not s.is_decode_ready]
    mixed = ctx.scheduler.sglang_enable_mixed_chunk
    tokens_left = ctx.max_num_batched_tokens - (len(decoding) if mixed else 0)
    tokens_left = schedule_running(ctx, plan, tokens_left, prefilling)
    if tokens_left > 0 and not plan.preempted:
        admit_waiting(ctx, plan, tokens_left, allow_chunk=True, can_admit=fits_rem_total)
    if plan.items:
        if mixed:
            schedule_running(ctx, plan, len(decoding), [s for s in decoding if s in ctx.running])
        return plan
    return _decode_step(ctx, plan)


def _decode_step(ctx: SchedContext, plan: Plan) -> Plan:
    """update_running_batch: retract when the decodes' next tokens do not fit, else decay new_token_ratio."""
    if _blocks_short(ctx):
        _retract_decode(ctx, plan)
    else:
        ratio = new_token_ratio(ctx) - NEW_TOKEN_RATIO_DECAY
        ctx.policy_state["new_token_ratio"] = max(ratio, MIN_NEW_TOKEN_RATIO)
    schedule_running(ctx, plan, ctx.max_num_batched_tokens)
    return plan


def _blocks_short(ctx: SchedContext) -> bool:
    """check_decode_mem: is there a block for every decode whose next token starts a new one?"""
    kv = ctx.kv
    need = sum(1 for s in ctx.running if kv.blocks_for(s.num_tokens) > kv.num_table_blocks(s.key))
    return need > kv.num_free_blocks()


def _retract_decode(ctx: SchedContext, plan: Plan) -> None:
    """Retract at least one request, then until RETRACT_DECODE_STEPS free tokens per remaining request, never the
    last; retracted requests join the end of the waiting queue; new_token_ratio is re-estimated from the rest."""
    kv = ctx.kv
    first = True
    while len(ctx.running) > 1 and (first or kv.num_free_blocks() * kv.block_size
                                    < RETRACT_DECODE_STEPS * len(ctx.running)):
        first = False
        victim = fewest_outputs_victim(ctx.running)
        preempt(ctx, plan, victim)
        ctx.waiting.remove(victim)
        ctx.waiting.append(victim)
    decoded = sum(s.num_output_tokens for s in ctx.running)
    max_new = sum(_max_new(ctx, s) for s in ctx.running)
    if max_new:
        ctx.policy_state["new_token_ratio"] = min(1.0, (decoded + RETRACT_DECODE_STEPS * len(ctx.running)) / max_new)
