"""SGLang's scheduler (python/sglang/srt/managers/scheduler.py, schedule_policy.py PrefillAdder,
schedule_batch.py ScheduleBatch.retract_decode), prefill-first.

Invariants: max_new_tokens is the client's max_tokens (unset: max_req_len - input - 1), never the true output
length; a new request starts only while its input plus min(max_new_tokens, 4096) is below rem_total_tokens
(free KV tokens minus what running requests may still write: a decoding request's remaining output times
new_token_ratio, a prefilling one's whole output); new_token_ratio starts at 0.7, falls by (0.7 - 0.098) / 600 per
decode step down to 0.098, is reset when the engine idles, and is re-estimated after a retraction; the retraction
victim is the running request with the fewest output tokens (ties: the longest input), and retraction stops as
soon as the remaining requests' next decode fits; a NO_TOKEN refusal latches batch_is_full, and no new request is
tried until a running one finishes or is retracted. Read from sgl-project/sglang python/sglang/srt/managers/
schedule_batch.py (commit 000eaffa: retract_decode, check_decode_mem) and scheduler.py (get_new_batch_prefill,
update_running_batch). Under --scheduling-policy priority (SGLang's --enable-priority-scheduling, which turns
priority preemption on) batch_is_full is reset at every prefill attempt, and once the seats are full a waiting request
preempts the running ones it outranks by more than --priority-scheduling-preemption-threshold, only if that frees
enough of rem_total_tokens (preempt_to_schedule below).
"""

from __future__ import annotations

import math

from chunkviz.simulator.reserve_note import ReserveNote
from chunkviz.simulator.policies.reservation import context_limit_tokens, sglang_max_new_tokens
from chunkviz.simulator.sched_common import (Plan, SchedContext, admit_waiting, preempt, prefix_hit, requeue_last,
                                             schedule_running)
from chunkviz.simulator.sequence import SeqState

INIT_NEW_TOKEN_RATIO = 0.7  # SGLANG_INIT_NEW_TOKEN_RATIO (global_config)
MIN_NEW_TOKEN_RATIO = INIT_NEW_TOKEN_RATIO * 0.14  # SGLANG_MIN_NEW_TOKEN_RATIO_FACTOR
NEW_TOKEN_RATIO_DECAY = (INIT_NEW_TOKEN_RATIO - MIN_NEW_TOKEN_RATIO) / 600  # SGLANG_NEW_TOKEN_RATIO_DECAY_STEPS
CLIP_MAX_NEW_TOKENS = 4096  # SGLANG_CLIP_MAX_NEW_TOKENS_ESTIMATION
RETRACT_DECODE_STEPS = 20  # global_config.retract_decode_steps: the ratio re-estimate's per-request headroom
# policy_state keys: SGLang's running_batch.batch_is_full latch, and what tells update_running_batch the batch shrank.
BATCH_IS_FULL = "batch_is_full"
RUNNING_AFTER_LAST_PLAN = "running_after_last_plan"
SHRANK = "running_batch_shrank"


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
    ratio, limit = new_token_ratio(ctx), context_limit_tokens(ctx)  # (_max_new's limit, read once per call)
    offset = 0.0
    for seq in ctx.running:
        remaining = min(sglang_max_new_tokens(seq.request, limit) - seq.num_output_tokens, CLIP_MAX_NEW_TOKENS)
        offset += remaining * ratio if seq.is_decode_ready else remaining
    return ctx.kv.num_free_blocks() * ctx.kv.block_size - offset


def fits_rem_total(ctx: SchedContext, seq: SeqState, hit_tokens: int) -> bool:
    """PrefillAdder.add_one_req: refuse (NO_TOKEN) when input + min(max_new_tokens, 4096) >= rem_total_tokens."""
    total = seq.num_tokens - hit_tokens + min(_max_new(ctx, seq), CLIP_MAX_NEW_TOKENS)
    return total < rem_total_tokens(ctx)


def _fits_or_latch(ctx: SchedContext, seq: SeqState, hit_tokens: int) -> bool:
    """get_new_batch_prefill: a NO_TOKEN refusal from PrefillAdder.add_one_req sets running_batch.batch_is_full
    (without hierarchical cache) and breaks out of the waiting queue."""
    fits = fits_rem_total(ctx, seq, hit_tokens)
    if not fits:
        ctx.policy_state[BATCH_IS_FULL] = 1.0
    return fits


def explain_rem_total(ctx: SchedContext, seq: SeqState, hit_tokens: int) -> ReserveNote:
    """fits_rem_total's figures in tokens: what the request would reserve, and rem_total_tokens (rounded down)."""
    max_new = min(_max_new(ctx, seq), CLIP_MAX_NEW_TOKENS)
    return ReserveNote("prefill_adder", seq.request.request_id, seq.request.client_max_tokens, max_new,
                       seq.num_tokens + max_new, seq.num_tokens - hit_tokens + max_new,
                       math.floor(rem_total_tokens(ctx)))


fits_rem_total.explain = explain_rem_total  # the why-sentence's reading of a refusal (decision.py)
_fits_or_latch.explain = explain_rem_total  # the check schedule_sglang passes (the refusal also latches)


def _running_offset_tokens(ctx: SchedContext, seq: SeqState) -> float:
    """PrefillAdder._get_running_request_total_token_offset: min(max_new_tokens - outputs, 4096) * new_token_ratio."""
    return min(_max_new(ctx, seq) - seq.num_output_tokens, CLIP_MAX_NEW_TOKENS) * new_token_ratio(ctx)


def preempt_to_schedule(ctx: SchedContext, plan: Plan, seq: SeqState) -> list[SeqState]:
    """PrefillAdder.preempt_to_schedule (python/sglang/srt/managers/schedule_policy.py): the running batch's requests
    (decoding; not admitted or continued in this step: the chunked request and this step's admissions are not in
    running_batch) sorted lowest priority first, newest entry first on ties, key (priority * -priority_sign,
    -wait_queue_entry_time); walking it while the newcomer outranks each by more than the threshold ((new - running)
    * -priority_sign > threshold, else the walk stops), each one taken lowers the shortfall (input - prefix +
    min(max_new_tokens, 4096) - rem_total_tokens) by its token offset, stopping once it is <= 0. Only then are they
    preempted (released: their KV freed, recomputed later); else nothing happens and [] is returned."""
    threshold, sign = ctx.scheduler.priority_scheduling_preemption_threshold, ctx.priority_sign
    planned = {id(s) for s, _ in plan.items}
    valid = sorted((s for s in ctx.running if s.is_decode_ready and id(s) not in planned),
                   key=lambda s: (s.request.priority * -sign, -s.wait_key[1]))
    hit_tokens = len(prefix_hit(ctx, seq)) * ctx.kv.block_size
    shortfall = (seq.num_tokens - hit_tokens + min(_max_new(ctx, seq), CLIP_MAX_NEW_TOKENS)
                 - rem_total_tokens(ctx))
    victims: list[SeqState] = []
    for running in valid:  # bounded by the running batch
        if (seq.request.priority - running.request.priority) * -sign <= threshold:
            break
        victims.append(running)
        shortfall -= _running_offset_tokens(ctx, running)
        if shortfall <= 0:
            break
    if not victims or shortfall > 0:
        return []
    taken = {id(v) for v in victims}
    victims = [s for s in ctx.running if id(s) in taken]  # released in running-batch order (SGLang: a set's order)
    for victim in victims:
        preempt(ctx, plan, victim)
    return victims


def schedule_sglang(ctx: SchedContext) -> Plan:
    """get_next_batch_to_run: a prefill batch if one can be formed (the unfinished chunked request first, then new
    requests through the PrefillAdder, none while batch_is_full is latched), else a decode batch;
    --enable-mixed-chunk adds the decodes to a prefill batch, their tokens taken from the same budget."""
    state = ctx.policy_state
    if not ctx.running:
        state["new_token_ratio"] = INIT_NEW_TOKEN_RATIO  # idle engine: states re-initialised
        state[BATCH_IS_FULL] = 0.0  # update_running_batch: an emptied batch resets batch_is_full
    # _get_new_batch_prefill_raw: `if self.enable_priority_preemption: running_batch.batch_is_full = False` ("to try
    # preemption with a prefill adder"); enable_priority_preemption = enable_priority_scheduling and not
    # --disable-priority-preemption (scheduler.py __init__).
    preempts = ctx.by_priority
    if preempts:
        state[BATCH_IS_FULL] = 0.0
    if len(ctx.running) < state.get(RUNNING_AFTER_LAST_PLAN, 0.0):
        state[SHRANK] = 1.0  # someone finished: the next update_running_batch sees the batch shrink
    plan = Plan()
    decoding, prefilling = [], []
    for seq in ctx.running:  # one pass, each sequence's readiness read once (this runs every step)
        (decoding if seq.is_decode_ready else prefilling).append(seq)
    mixed = ctx.scheduler.sglang_enable_mixed_chunk
    tokens_left = ctx.max_num_batched_tokens - (len(decoding) if mixed else 0)
    tokens_left = schedule_running(ctx, plan, tokens_left, prefilling)
    # get_new_batch_prefill returns None while batch_is_full (a chunked request still continues, above) and its
    # waiting loop breaks on it, so no request is tried until a running one finishes or is retracted.
    if tokens_left > 0 and not plan.preempted and not state.get(BATCH_IS_FULL, 0.0):
        admit_waiting(ctx, plan, tokens_left, allow_chunk=True, can_admit=_fits_or_latch,
                      make_room=preempt_to_schedule if preempts else None)
    if plan.items:
        if mixed:
            schedule_running(ctx, plan, len(decoding), [s for s in decoding if s in ctx.running])
    else:
        plan = _decode_step(ctx, plan)
    state[RUNNING_AFTER_LAST_PLAN] = float(len(ctx.running))
    return plan


def _decode_step(ctx: SchedContext, plan: Plan) -> Plan:
    """update_running_batch: retract when the decodes' next tokens do not fit, else decay new_token_ratio; a batch
    that shrank (finished or retracted requests) resets batch_is_full (`if batch.batch_size() < initial_bs`)."""
    if _blocks_short(ctx):
        _retract_decode(ctx, plan)
        ctx.policy_state[SHRANK] = 1.0
    else:
        ratio = new_token_ratio(ctx) - NEW_TOKEN_RATIO_DECAY
        ctx.policy_state["new_token_ratio"] = max(ratio, MIN_NEW_TOKEN_RATIO)
    if ctx.policy_state.pop(SHRANK, 0.0):
        ctx.policy_state[BATCH_IS_FULL] = 0.0
    schedule_running(ctx, plan, ctx.max_num_batched_tokens)
    return plan


def _blocks_short(ctx: SchedContext) -> bool:
    """check_decode_mem: is there a block for every decode whose next token starts a new one?"""
    kv = ctx.kv
    need = sum(1 for s in ctx.running if kv.blocks_for(s.num_tokens) > kv.num_table_blocks(s.key))
    return need > kv.num_free_blocks()


def _retract_decode(ctx: SchedContext, plan: Plan) -> None:
    """ScheduleBatch.retract_decode: retract at least one request, then until the remaining requests' next decode
    fits (`while first_iter or not self.check_decode_mem(selected_indices=sorted_indices)`), never the last;
    retracted requests join the end of the waiting queue; new_token_ratio is re-estimated from the rest as
    (decoded + RETRACT_DECODE_STEPS per request) / max_new_tokens."""
    first = True
    while len(ctx.running) > 1 and (first or _blocks_short(ctx)):  # bounded: each pass removes one request
        first = False
        victim = fewest_outputs_victim(ctx.running)
        preempt(ctx, plan, victim)
        requeue_last(ctx, victim)  # re-queued as a new entry (_add_request_to_queue(req, is_retracted=True))
    decoded = sum(s.num_output_tokens for s in ctx.running)
    max_new = sum(_max_new(ctx, s) for s in ctx.running)
    if max_new:
        ctx.policy_state["new_token_ratio"] = min(1.0, (decoded + RETRACT_DECODE_STEPS * len(ctx.running)) / max_new)


def replay_decode_steps(ctx: SchedContext, num_running: list[int]) -> None:
    """What schedule_sglang's state does over a fast-forwarded stretch of decode-only steps (fast_forward.py), given
    each step's running count at planning time: nothing waits and every decode's next block fits (the stretch's
    slack), so each step is `_decode_step` without a retraction. Per step, as the exact loop: a batch smaller than
    the last plan's sets SHRANK, new_token_ratio decays once (one subtraction per step, never in closed form, so the
    float is bit-identical), a popped SHRANK clears batch_is_full, and the running count is remembered. Nobody is
    admitted in these steps, so neither the ratio nor the latch is read in them (an absorbed prefill batch reads
    both after the decode steps before it were replayed: fast_prefill.py, which calls this piecewise, never with no
    step, so a SHRANK its plan marked stays pending for the next decode step); an idle engine's reset stays with the
    exact loop (a stretch ends when its last request finishes)."""
    state = ctx.policy_state
    last = state.get(RUNNING_AFTER_LAST_PLAN, 0.0)
    shrank = state.pop(SHRANK, 0.0)
    for n in num_running:  # bounded by the stretch's steps
        if n < last:
            shrank = 1.0
        last = float(n)
    if shrank:
        state[BATCH_IS_FULL] = 0.0
    state[RUNNING_AFTER_LAST_PLAN] = last
    ratio = new_token_ratio(ctx)
    for _ in num_running:  # bounded by the stretch's steps; stops once the floor is reached
        if ratio == MIN_NEW_TOKEN_RATIO:
            break
        ratio = max(ratio - NEW_TOKEN_RATIO_DECAY, MIN_NEW_TOKEN_RATIO)
    state["new_token_ratio"] = ratio
