"""Arrivals absorbed into a fast-forward stretch: mixed steps of every decode plus prompts, whole or chunked.

Invariant: absorb() changes the run exactly as one step of the exact loop would (policies/vllm.schedule_chunked or
schedule_vllm_nochunk, or policies/trtllm.schedule_trtllm, then apply_plan:
the decodes' tokens, the chunk of the prompt being prefilled, the waiting requests admitted in queue order, each
whose prompt is done sampling its first token at the step's end), or, when that step would do anything else,
changes nothing and returns False.

When the exact step does just that: every request admitted is fresh (no output yet, never scheduled or preempted);
the seats and the budget left after the decodes (and after the prompt being prefilled, which runs before the waiting
ones) hold the admitted prompts whole in queue order, but the last one, which under a policy that chunks prompts
(vLLM V1's chunked prefill) may be cut to the tokens left and is then prefilled over the next steps, one chunk a step,
each step's tokens left going to it (a policy that does not chunk makes a prompt that does not fit wait: the exact
loop's step); nobody is left waiting unless such a prompt is being prefilled; the blocks every admitted request will
hold to its last token fit the stretch's slack; the policy's reservation to completion, where it has one
(TensorRT-LLM's GUARANTEED_NO_EVICT), admits each; and none can hit the prefix cache. A hit is the exact loop's
business: for one arrival, with no prompt being prefilled, the cache is looked up here; otherwise each must be unable
to hit at all (the lean cache's prompts whose first block is private, or no prefix cache), since in the exact step
the later ones look up after the earlier ones (and the prompt being prefilled) cached their blocks.
vLLM's scheduler_reserve_full_isl (policies/vllm.fits_full_sequence) agrees with every such admission: the slack,
never more than the free blocks left for the step's later allocations, holds every admitted prompt whole.
The admission checks and the bookkeeping of an admitted request (admissions, may_hit, record_priced, admit_whole,
free_done, live_rows) are shared with SGLang's prefill-only steps (fast_prefill.py).
"""

from __future__ import annotations

import heapq

from chunkviz.simulator import fast_kv
from chunkviz.simulator.apply import RunState
from chunkviz.simulator.fast_state import FastForward, Stretch
from chunkviz.simulator.sched_common import allocate
from chunkviz.simulator.sequence import SeqState


def absorb(ff: FastForward, run: RunState, st: Stretch) -> bool:
    """The mixed step of the module docstring; False (nothing changed) when the exact loop would step otherwise.
    With nothing waiting and nothing being prefilled (the arrivals were rejected) there is nothing to do and the
    stretch goes on."""
    waiting, prefill = run.ctx.waiting, st.prefill
    if not waiting and prefill is None:
        return True
    tokens_left, chunk = ff.budget_tokens - st.n, 0
    if prefill is not None:  # running, after every decode: schedule_running gives it the tokens left
        chunk = min(prefill.num_tokens - prefill.num_computed_tokens, tokens_left)
        if chunk <= 0:
            return False
        tokens_left -= chunk
    whole, chunked, new_chunk = [], None, 0
    if waiting and tokens_left > 0:  # admit_waiting
        admitted = admissions(ff, st, list(waiting), tokens_left)
        if admitted is None:
            return False
        whole, chunked, new_chunk = admitted
        if may_hit(ff, st, whole + ([chunked] if chunked is not None else []), prefill is not None):
            return False
    elif waiting and prefill is None:
        return False  # the decodes take the whole budget: the waiting ones wait, which no stretch step models
    _mixed_step(ff, run, st, chunk, whole, chunked, new_chunk)
    return True


def _mixed_step(ff: FastForward, run: RunState, st: Stretch, chunk: int, whole: list[SeqState],
                chunked: SeqState | None, new_chunk: int) -> None:
    """Price and apply the step absorb() checked: the decodes, `chunk` tokens of the prompt being prefilled, the
    `whole` prompts, and the first `new_chunk` tokens of `chunked`, in that (the plan's) order."""
    bs, kv, k, prefill = ff.block_size, st.kv, st.k, st.prefill
    computed0 = prefill.num_computed_tokens if prefill is not None else 0
    prompts = [seq.num_tokens for seq in whole]
    tokens = st.n + chunk + sum(prompts) + new_chunk
    # apply.shape_and_chunks: a chunk of c tokens after p computed ones attends c·p + c(c + 1)/2 pairs, reads p
    pairs = (st.context + st.n + chunk * computed0 + chunk * (chunk + 1) // 2
             + sum(p * (p + 1) // 2 for p in prompts) + new_chunk * (new_chunk + 1) // 2)
    num_seqs = st.n + (prefill is not None) + len(whole) + (chunked is not None)
    start_s = st.now_s
    if kv is not None:  # the decodes' blocks first, as schedule_running
        if fast_kv.is_lean(kv):
            fast_kv.flush_pending(st, k + 1)
        else:
            fast_kv.step_ops(kv, st.rows, st.bucket_rows, k)
    st.free -= st.allocs_at[k % bs]
    num_active = st.n + (prefill is not None) + len(run.ctx.waiting)  # as the exact loop counts them at planning
    record_priced(ff, st, ff.coster.terms(tokens, num_seqs, pairs, st.context + computed0, num_active))
    st.ends_s.append(st.now_s)
    st.context += st.n
    done = []  # requests whose only token is their first: freed after the decodes that finished, in plan order
    if prefill is not None:
        _allocate_chunk(run, st, prefill, chunk)
        if prefill.num_computed_tokens == prefill.num_tokens:
            st.prefill = None
            if not _sample_first(ff, run, st, prefill, fast_kv.held_blocks(run.ctx.kv, prefill), k + 1):
                done.append(prefill)
    admit_whole(ff, run, st, whole, start_s, k + 1, done)
    if chunked is not None:
        _start_prefill(ff, run, st, chunked, new_chunk, start_s)
    _finish_due(ff, st, k)
    free_done(run, st, done)
    st.num_steps += 1
    st.k = k + 1


def record_priced(ff: FastForward, st: Stretch, terms: tuple[float, ...]) -> None:
    """A priced step (StepCoster.terms) into the stretch's lists, its MFU and MBU kept apart (finalize's arithmetic
    is a decode step's)."""
    total_s = terms[5]
    st.now_s += total_s
    st.busy_s += total_s
    st.durations.append(total_s)
    ff.step_seqs.append(st.n)
    ff.step_context.append(st.context)
    ff.mixed_costs.append((len(st.durations) - 1, terms[8], terms[9]))


def admit_whole(ff: FastForward, run: RunState, st: Stretch, whole: list[SeqState], start_s: float, join_k: int,
                 done: list[SeqState]) -> None:
    """admit_waiting's order: each allocates (and caches) its whole prompt before the next one's turn, and samples
    its first token at the step's end; one whose only token that was joins `done`."""
    bs = ff.block_size
    for seq in whole:
        blocks = -(-seq.num_tokens // bs)
        _admit(run, seq, start_s, blocks, bs)
        st.free -= blocks
        st.slack -= -(-(seq.num_tokens + seq.request.output_tokens - 1) // bs)
        if not _sample_first(ff, run, st, seq, blocks, join_k):
            done.append(seq)


def free_done(run: RunState, st: Stretch, done: list[SeqState]) -> None:
    """Free the requests that finished with their first token (after the step's finished decodes, in plan order),
    then read the peak as record_step does."""
    kv = st.kv
    for seq in done:
        held = fast_kv.held_blocks(run.ctx.kv, seq)
        st.free += held
        st.slack += held
        if kv is not None:
            kv.free(seq.key)
        else:
            run.ctx.kv.num_seq_blocks.pop(seq.key)
    if st.total_blocks - st.free > st.peak:
        st.peak = st.total_blocks - st.free


def admissions(ff: FastForward, st: Stretch, waiting: list[SeqState],
                tokens_left: int) -> tuple[list[SeqState], SeqState | None, int] | None:
    """(whole prompts, the chunked last one or None, its chunk) as admit_waiting admits them with `tokens_left`;
    None when the step would do anything else (see the module docstring)."""
    seats = st.n + (st.prefill is not None)
    slack, bs, whole = st.slack, ff.block_size, []
    reserve = ff.reserve
    unreserved = _unreserved_blocks(ff, st) if reserve is not None else 0
    for seq in waiting:
        prompt = seq.num_tokens
        if (seq.num_output_tokens or seq.first_scheduled_s is not None or seq.num_preemptions
                or seq.kv_transferred_tokens or seats + seq.seats_needed > ff.max_num_seqs):
            return None  # a re-admission, a decode side's transferred prompt (its KV came over a link), or no seat
        slack -= -(-(prompt + seq.request.output_tokens - 1) // bs)
        if slack < 0:
            return None  # it would fit now but could run short later
        if reserve is not None:  # fits_to_completion, no prefix hit: its blocks to completion against the rest
            unreserved -= reserve(seq.request)
            if unreserved < 0:
                return None  # it would wait
        seats += seq.seats_needed
        if prompt > tokens_left:
            if not ff.chunks_admissions:
                return None  # a whole prompt that does not fit waits (head-of-line), as everyone behind it
            return whole, seq, tokens_left  # chunked to the tokens left; anyone behind it waits for its prefill
        whole.append(seq)
        tokens_left -= prompt
        if not tokens_left and len(whole) < len(waiting):
            return None  # the rest would wait, with no prompt being prefilled to explain it
    return whole, None, 0


def _unreserved_blocks(ff: FastForward, st: Stretch) -> int:
    """TensorRT-LLM's GUARANTEED_NO_EVICT at step st.k's admissions (policies/trtllm.fits_to_completion, with no
    prefix hit): the free blocks once the step's decodes took theirs, less every running request's blocks to
    completion beyond those it holds. A row's decode at step k writes its token computed0 + k - join_k; rows that
    finished before step k were freed. (Absorbing policies with this check do not chunk: no prompt is being
    prefilled.) Each admission then takes its own blocks to completion off it: what it allocates now and what it
    still sets aside."""
    k, bs, reserve, rows = st.k, ff.block_size, ff.reserve, st.rows
    unreserved = st.free - st.allocs_at[k % bs]
    for i in live_rows(st):
        seq, join_k, _, _, held0, computed0 = rows[i]
        held = -(-(computed0 + k - join_k + 1) // bs)
        left = reserve(seq.request) - (held if held > held0 else held0)
        if left > 0:
            unreserved -= left
    return unreserved


def live_rows(st: Stretch) -> list[int]:
    """The rows still running at step st.k's plan (a row finishing at step k still is), in running order; the ones
    that finished are pruned here, so a check reading them costs the running count, not the stretch's rows."""
    rows, k = st.rows, st.k
    st.live = [i for i in st.live if rows[i][3] >= k]
    return st.live


def may_hit(ff: FastForward, st: Stretch, candidates: list[SeqState], prefilling: bool) -> bool:
    """Could the exact step find a prefix hit for one of them (see the module docstring)?"""
    kv = st.kv
    if kv is None or not kv.enable_prefix_caching:
        return False
    if fast_kv.is_lean(kv) and not any(kv.may_hit(seq.content) for seq in candidates):
        return False  # first blocks private: nobody else can have cached them
    if len(candidates) > 1 or prefilling:
        return True
    seq = candidates[0]
    # There the lookup runs after this step's decodes took their blocks (admit_waiting follows schedule_running);
    # here before, with the same answer when no hit is found: the decodes only evict keys or key deeper blocks (a
    # chain key with a parent never equals a first block's key), unless one fills its block 0, whose key might be
    # this prompt's first: then the exact loop steps.
    fast_kv.flush_pending(st, st.k)  # the lookup reads the cache as the steps so far left it
    return bool(kv.find_prefix_hit(seq.content, seq.num_tokens - 1)
                or fast_kv.fills_first_block(st.rows, st.bucket_rows, st.k, ff.block_size))


def _allocate_chunk(run: RunState, st: Stretch, seq: SeqState, chunk: int) -> None:
    """sched_common.allocate for `chunk` more tokens of a prompt being prefilled, then apply_plan's on_computed."""
    kv = run.ctx.kv
    if st.kv is None:  # the counting manager's count is replayed at the stretch's end: bring it up to date first
        kv._num_free = st.free
    free_before = kv.num_free_blocks()
    if not allocate(run.ctx, seq, chunk):  # the slack reserved its blocks at its admission
        raise AssertionError("fast path: a prefill chunk's blocks were not there")
    st.free -= free_before - kv.num_free_blocks()
    old = seq.num_computed_tokens
    if kv.tracks_content and (not run.ctx.lean_kv or old + chunk > seq.kv_cover_limit_tokens):
        kv.on_computed(seq.key, seq.content, old, old + chunk)
    seq.num_computed_tokens = old + chunk


def _start_prefill(ff: FastForward, run: RunState, st: Stretch, seq: SeqState, chunk: int, start_s: float) -> None:
    """admit_one for the chunked last admission: its first `chunk` tokens run in this step, the rest in the next."""
    _dequeue(run, seq, start_s)
    st.slack -= -(-(seq.num_tokens + seq.request.output_tokens - 1) // ff.block_size)
    _allocate_chunk(run, st, seq, chunk)
    st.prefill = seq


def _sample_first(ff: FastForward, run: RunState, st: Stretch, seq: SeqState, blocks: int, join_k: int) -> bool:
    """A prompt whose last token ran in this step samples its first token at the step's end and, unless that was
    its only one (False: it finishes in this step), becomes a row of the stretch whose first decode is step join_k
    (the next decode step)."""
    bs, prompt, output = ff.block_size, seq.num_tokens, seq.request.output_tokens
    seq.num_output_tokens += 1
    seq.num_tokens += 1
    seq.last_token_s = st.now_s
    rid = seq.request.request_id
    run.first_token_s[rid] = st.now_s
    if output <= 1:
        run.finish_s[rid] = st.now_s
        return False
    row_index = len(st.rows)
    st.live.append(row_index)
    bucket = (join_k + blocks * bs - prompt) % bs  # its token `prompt` starts a block at join_k + blocks·bs - prompt
    finish_k = join_k + output - 2  # output - 1 decodes, from step join_k
    st.rows.append((seq, join_k, bucket, finish_k, blocks, prompt))
    st.allocs_at[bucket] += 1
    if st.kv is not None:
        st.bucket_rows[bucket].append(row_index)
    heapq.heappush(st.finishes, (finish_k, row_index))
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


def _admit(run: RunState, seq: SeqState, start_s: float, blocks: int, block_size: int) -> None:
    """admit_waiting + apply_plan for a fresh request whose whole prompt runs in this step (_sample_first follows)."""
    _dequeue(run, seq, start_s)
    kv = run.ctx.kv
    if fast_kv.is_paged(kv):  # sched_common.allocate (cache_blocks at scheduling), then apply's on_computed
        kv.allocate(seq.key, 0, seq.num_tokens)
        if kv.enable_prefix_caching:
            kv.cache_blocks(seq.key, seq.content, seq.num_tokens)
        kv.on_computed(seq.key, seq.content, 0, seq.num_tokens)
    else:
        kv.num_seq_blocks[seq.key] = blocks
    seq.kv_capacity_tokens = blocks * block_size
    seq.num_computed_tokens = seq.num_tokens
    # a joiner enters ctx.running when _materialize rebuilds the list from the rows (joiners last)


def _dequeue(run: RunState, seq: SeqState, start_s: float) -> None:
    """admit_one's bookkeeping for the head of the queue, scheduled from start_s: admission order, and a prefix
    query without a hit (absorb checked there is none)."""
    ctx = run.ctx
    ctx.waiting.popleft()
    ctx.admit_counter[0] += 1
    seq.admit_seq_no = ctx.admit_counter[0]
    if ctx.kv.enable_prefix_caching:  # statistics only with caching on (sched_common.admit_one)
        seq.prefix_query_tokens += seq.num_tokens
    seq.first_scheduled_s = start_s
