"""Arrivals absorbed into a fast-forward stretch under a prefill-first policy (SGLang): a prefill-only step between
two decode steps, in which every decode stalls.

Invariant: absorb() changes the run exactly as the exact loop's next plan and step would (schedule_sglang without
--enable-mixed-chunk: a prefill batch of the waiting requests, then apply_plan: each samples its first token at the
step's end), or, when that plan would do anything else, changes nothing but bring the policy's state up to the
stretch's decode steps (as the exact loop's would be at that plan) and returns False.

When the plan does just that: batch_is_full is not latched; under priority scheduling the waiting requests all
find seats (else SGLang's preempt_to_schedule may act, which only the exact loop does); every waiting request is fresh and admitted whole in
queue order within the budget and the seats (a prompt SGLang would cut into chunks is the exact loop's); the blocks
each will hold to its last token fit the stretch's slack; PrefillAdder admits each (policies/sglang.fits_rem_total,
replayed from the stretch's rows); and none can hit the prefix cache (fast_absorb.may_hit). The stretch's k counts
decode steps only: the batch's requests join as rows whose first decode is step k, their first token gaps their own
(Stretch.specials), and the step's place among the stretch's steps is recorded (Stretch.stalls).
"""

from __future__ import annotations

from chunkviz.simulator import fast_absorb, fast_kv
from chunkviz.simulator.apply import RunState
from chunkviz.simulator.fast_state import FastForward, Stretch
from chunkviz.simulator.policies import sglang
from chunkviz.simulator.policies.reservation import context_limit_tokens, sglang_max_new_tokens
from chunkviz.simulator.sequence import SeqState


def absorb(ff: FastForward, run: RunState, st: Stretch) -> bool:
    """The prefill batch of the module docstring; False when the plan would do anything else. With nothing waiting
    (the arrivals were rejected) there is nothing to do and the stretch goes on."""
    ctx = run.ctx
    if not ctx.waiting:
        return True
    if len(ff.step_seqs) > st.replay_from:  # the decode steps since the last replay (none: a SHRANK stays pending)
        ff.replay(ctx, ff.step_seqs[st.replay_from:])
        st.replay_from = len(ff.step_seqs)
    if ctx.policy_state.get(sglang.BATCH_IS_FULL, 0.0):
        return False  # get_new_batch_prefill forms no batch: the arrivals wait through decode steps
    if ctx.by_priority and st.n + sum(s.seats_needed for s in ctx.waiting) > ff.max_num_seqs:
        return False  # the seats fill: preempt_to_schedule may preempt rows, which is the exact loop's
    admitted = fast_absorb.admissions(ff, st, list(ctx.waiting), ff.budget_tokens)  # whole prompts only (see above)
    if admitted is None or not admitted[0] or not _prefill_adder_admits(ff, run, st, admitted[0]):
        return False
    if fast_absorb.may_hit(ff, st, admitted[0], False):
        return False
    _apply_prefill_step(ff, run, st, admitted[0])
    return True


def _prefill_adder_admits(ff: FastForward, run: RunState, st: Stretch, whole: list[SeqState]) -> bool:
    """PrefillAdder.add_one_req for each in turn (policies/sglang.fits_rem_total, no prefix hit): input +
    min(max_new_tokens, 4096) below rem_total_tokens, the free KV tokens less every running request's expected
    writes, summed in running order as rem_total_tokens sums them: a row's remaining output times new_token_ratio
    (its outputs at decode step k: computed0 + 1 - prompt + k - join_k), then each request admitted before it
    in this batch, whose blocks are taken and whose whole remaining output counts (it is not decoding yet)."""
    ctx, k, bs = run.ctx, st.k, ff.block_size
    ratio, limit = sglang.new_token_ratio(ctx), context_limit_tokens(ctx)
    offset, rows = 0.0, st.rows
    for i in fast_absorb.live_rows(st):
        seq, join_k, _, _, _, computed0 = rows[i]
        outputs = computed0 + 1 - seq.request.prompt_tokens + k - join_k
        offset += min(sglang_max_new_tokens(seq.request, limit) - outputs, sglang.CLIP_MAX_NEW_TOKENS) * ratio
    free = st.free
    for seq in whole:
        max_new = min(sglang_max_new_tokens(seq.request, limit), sglang.CLIP_MAX_NEW_TOKENS)
        if not seq.num_tokens + max_new < free * bs - offset:
            return False  # NO_TOKEN: it waits and batch_is_full latches, which the exact loop does
        free -= -(-seq.num_tokens // bs)
        offset += max_new
    return True


def _apply_prefill_step(ff: FastForward, run: RunState, st: Stretch, whole: list[SeqState]) -> None:
    """The prefill batch absorb() checked: schedule_sglang's plan-time state (a batch smaller than at the last
    plan marks a shrink for the next decode step; the running count after admission is remembered), the step
    priced from the prompts alone, each request admitted and sampling its first token at the step's end, becoming
    a row whose first decode is the stretch's next decode step k; the stretch's decodes stall (engine._stalled)."""
    state, k = run.ctx.policy_state, st.k
    if st.n < state.get(sglang.RUNNING_AFTER_LAST_PLAN, 0.0):
        state[sglang.SHRANK] = 1.0
    state[sglang.RUNNING_AFTER_LAST_PLAN] = float(st.n + len(whole))
    prompts = [seq.num_tokens for seq in whole]
    start_s = st.now_s
    fast_kv.flush_pending(st, k)  # the decode steps' pops come before this step's
    st.stalls.append(st.num_steps - st.first_step)
    pairs = sum(p * (p + 1) // 2 for p in prompts)  # a whole prompt of p tokens attends p(p + 1)/2 pairs, reads none
    num_active = st.n + len(run.ctx.waiting)  # running + waiting at planning, as the exact loop counts them
    fast_absorb.record_priced(ff, st, ff.coster.terms(sum(prompts), len(whole), pairs, 0, num_active))
    st.replay_from = len(ff.step_seqs)  # no decode step: never replayed
    run.num_stall_steps += 1
    done: list[SeqState] = []
    first_row = len(st.rows)
    fast_absorb.admit_whole(ff, run, st, whole, start_s, k, done)
    st.specials.extend((k, i, st.now_s) for i in range(first_row, len(st.rows)))
    fast_absorb.free_done(run, st, done)
    st.num_steps += 1
