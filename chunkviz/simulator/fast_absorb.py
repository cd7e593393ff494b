"""Arrivals absorbed into a fast-forward stretch: one mixed step of every decode plus the waiting prompts, whole.

Invariant: absorb() changes the run exactly as one step of the exact loop would (schedule_chunked, then apply_plan:
the decodes' tokens, every waiting request admitted in queue order with its whole prompt, each sampling its first
token at the step's end), or, when that step would do anything else, changes nothing and returns False.

When the exact step does just that: every waiting request is fresh (no output yet, never scheduled or preempted),
the seats and the budget left after the decodes hold all of their prompts in queue order (so none is chunked and
none is left waiting), the blocks they will hold to their last token fit the stretch's slack, and none can hit the
prefix cache. A hit is the exact loop's business: for one arrival the cache is looked up here; for several, each
must be unable to hit at all (the lean cache's prompts whose first block is private, or no prefix cache), since in
the exact step the later ones look up after the earlier ones cached their blocks.
vLLM's scheduler_reserve_full_isl (policies/vllm.fits_full_sequence) agrees with every such admission: each prompt
is its step's chunk, and the slack, never more than the free blocks, holds them all.
"""

from __future__ import annotations

import heapq
from chunkviz.cost.roofline import StepShape
from chunkviz.simulator import fast_kv
from chunkviz.simulator.apply import RunState
from chunkviz.simulator.fast_state import FastForward, Stretch
from chunkviz.simulator.sequence import SeqState


def absorb(ff: FastForward, run: RunState, st: Stretch) -> bool:
    """The mixed step of the module docstring; False (nothing changed) when the exact loop would step otherwise.
    With nothing waiting (the arrivals were rejected) there is nothing to do and the stretch goes on."""
    waiting = run.ctx.waiting
    if not waiting:
        return True
    joiners = _fitting(ff, st, list(waiting))
    if joiners is None or _may_hit(ff, st, joiners):
        return False
    bs, kv, k = ff.block_size, st.kv, st.k
    prompts = [seq.num_tokens for seq in joiners]
    cost = ff.coster(StepShape(st.n + sum(prompts), st.n + len(joiners),
                               st.context + st.n + sum(p * (p + 1) // 2 for p in prompts), st.context))
    start_s = st.now_s
    if kv is not None:  # the decodes' blocks first, as schedule_running
        if fast_kv.is_lean(kv):
            fast_kv.flush_pending(st, k + 1)
        else:
            fast_kv.step_ops(kv, st.rows, st.bucket_rows, k)
    st.free -= st.allocs_at[k % bs]
    st.now_s = start_s + cost.total_s
    st.busy_s += cost.total_s
    st.durations.append(cost.total_s)
    ff.step_seqs.append(st.n)
    ff.step_context.append(st.context)
    ff.mixed_costs.append((len(st.durations) - 1, cost.mfu, cost.mbu))
    st.ends_s.append(st.now_s)
    st.context += st.n
    done = []  # joiners whose only token is their first
    for seq in joiners:  # admit_waiting's order: each allocates (and caches) before the next one's turn
        if not _join(ff, run, st, seq, start_s):
            done.append(seq)
    _finish_due(ff, st, k)
    if kv is not None:
        for seq in done:  # apply._finish, after the decodes that finished (the joiners' items come last)
            kv.free(seq.key)
    if st.total_blocks - st.free > st.peak:
        st.peak = st.total_blocks - st.free
    st.num_steps += 1
    st.k = k + 1
    return True


def _fitting(ff: FastForward, st: Stretch, waiting: list[SeqState]) -> list[SeqState] | None:
    """The waiting requests if every one is fresh and all of them fit whole, in queue order; else None."""
    tokens_left, seats, slack, bs = ff.budget_tokens - st.n, st.n, st.slack, ff.block_size
    for seq in waiting:
        prompt = seq.num_tokens
        if (seq.num_output_tokens or seq.first_scheduled_s is not None or seq.num_preemptions
                or seats + seq.seats_needed > ff.max_num_seqs or prompt > tokens_left):
            return None  # a re-admission, no seat, or a prompt that would be chunked (or left waiting)
        slack -= -(-(prompt + seq.request.output_tokens - 1) // bs)
        if slack < 0:
            return None  # it would fit now but could run short later
        tokens_left -= prompt
        seats += seq.seats_needed
    return waiting


def _may_hit(ff: FastForward, st: Stretch, joiners: list[SeqState]) -> bool:
    """Could the exact step find a prefix hit for one of them (see the module docstring)?"""
    kv = st.kv
    if kv is None or not kv.enable_prefix_caching:
        return False
    if fast_kv.is_lean(kv) and not any(kv.may_hit(seq.content) for seq in joiners):
        return False  # first blocks private: nobody else can have cached them
    if len(joiners) > 1:
        return True
    seq = joiners[0]
    # There the lookup runs after this step's decodes took their blocks (admit_waiting follows schedule_running);
    # here before, with the same answer when no hit is found: the decodes only evict keys or key deeper blocks (a
    # chain key with a parent never equals a first block's key), unless one fills its block 0, whose key might be
    # this prompt's first: then the exact loop steps.
    fast_kv.flush_pending(st, st.k)  # the lookup reads the cache as the steps so far left it
    return bool(kv.find_prefix_hit(seq.content, seq.num_tokens - 1)
                or fast_kv.fills_first_block(st.rows, st.bucket_rows, st.k, ff.block_size))


def _join(ff: FastForward, run: RunState, st: Stretch, seq: SeqState, start_s: float) -> bool:
    """Admit one joiner in the step that ends at st.now_s and make it a row of the stretch; False when its first
    token is its last (it finishes in this step)."""
    bs, k, prompt, output = ff.block_size, st.k, seq.num_tokens, seq.request.output_tokens
    blocks = -(-prompt // bs)
    _admit(run, seq, start_s, st.now_s, blocks, bs)
    st.free -= blocks
    if output <= 1:
        st.free += blocks  # given back at the step's end (its blocks are freed after the decodes that finished)
        return False
    st.slack -= -(-(prompt + output - 1) // bs)
    row_index = len(st.rows)
    bucket = (k + 1 + blocks * bs - prompt) % bs
    st.rows.append((seq, k + 1, bucket, k + output - 1, blocks, prompt))
    st.allocs_at[bucket] += 1
    if st.kv is not None:
        st.bucket_rows[bucket].append(row_index)
    heapq.heappush(st.finishes, (k + output - 1, row_index))
    st.context += prompt
    st.n += 1
    return True


def _finish_due(ff: FastForward, st: Stretch, k: int) -> None:
    """The running sequences whose last token comes at step k (the steady loop does the same inline)."""
    bs, finishes = ff.block_size, st.finishes
    while finishes and finishes[0][0] == k:
        _, i = heapq.heappop(finishes)
        seq, join_k, bucket, _, held0, computed0 = st.rows[i]
        final_computed = computed0 + k - join_k + 1
        held = max(held0, -(-final_computed // bs))
        if st.kv is not None:  # blocks shared through a prefix hit stay with their other holders
            st.bucket_rows[bucket].remove(i)
            held = fast_kv.release(st.kv, seq, computed0, final_computed)
        st.free += held
        st.slack += held
        st.allocs_at[bucket] -= 1
        st.context -= final_computed
        st.n -= 1


def _admit(run: RunState, seq: SeqState, start_s: float, end_s: float, blocks: int, block_size: int) -> None:
    """admit_waiting + apply_plan + _sample_token for a fresh request whose whole prompt ran in one step."""
    ctx = run.ctx
    ctx.waiting.popleft()
    ctx.admit_counter[0] += 1
    seq.admit_seq_no = ctx.admit_counter[0]
    seq.prefix_query_tokens += seq.num_tokens  # no prefix hit here (absorb checked): a query without a hit
    kv = ctx.kv
    if fast_kv.is_paged(kv):  # sched_common.allocate (cache_blocks at scheduling), then apply's on_computed
        kv.allocate(seq.key, 0, seq.num_tokens)
        if kv.enable_prefix_caching:
            kv.cache_blocks(seq.key, seq.content, seq.num_tokens)
        kv.on_computed(seq.key, seq.content, 0, seq.num_tokens)
    else:
        kv.num_seq_blocks[seq.key] = blocks
    seq.kv_capacity_tokens = blocks * block_size
    seq.num_computed_tokens = seq.num_tokens
    seq.first_scheduled_s = start_s
    seq.num_output_tokens += 1
    seq.num_tokens += 1
    seq.last_token_s = end_s
    rid = seq.request.request_id
    run.first_token_s[rid] = end_s
    if seq.num_output_tokens >= seq.request.output_tokens:
        if not fast_kv.is_paged(kv):
            kv.num_seq_blocks.pop(seq.key)  # (a paged joiner is freed by absorb, after the decodes that finished)
        run.finish_s[rid] = end_s
    # a joiner enters ctx.running when _materialize rebuilds the list from the rows (joiners last)
