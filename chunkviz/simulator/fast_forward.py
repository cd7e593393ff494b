"""Fast forward: steady decode-only stretches advanced with O(1) work per step, results identical to the exact loop.

Invariant: a run with fast forwarding produces the same Trace (every float bit for bit) as the exact step loop;
only `Trace.fast_forwarded_steps` tells them apart.

When it applies (checked at the top of a loop iteration, after arrivals were admitted): nothing waits, every
running sequence is decode-ready, all of them fit the token budget, and the blocks they still need up to their last
token fit in the free blocks. Then, until the next arrival is due, no policy whose registry entry sets `fast_path`
does anything but give each running sequence one decode token (checked for each: the vLLM schedulers, Sarathi and
TensorRT-LLM find no waiting request, static has a running batch, SGLang forms no prefill batch and decodes all: its
own state, new_token_ratio and the batch_is_full latch, is replayed per step by the entry's `fast_path_replay` at
the stretch's end), nobody can be preempted and nobody is admitted. So the
state is a few aggregates:
  - n running sequences and their summed context (the step's StepShape is (n, n, context + n, context)),
  - when each one finishes (a heap of finish steps),
  - how many of them cross a block boundary at each step (a counter per step modulo block_size),
  - the slack: free blocks minus the blocks the running sequences will still take up to their last token.
Under a policy whose entry sets `fast_path_absorbs_arrivals` (vLLM V1 and TensorRT-LLM: running requests first,
then waiting ones), the waiting arrivals are absorbed too when their prompts fit the budget left after the decodes,
the free seats, the slack and the policy's own admission check (fast_absorb.py): that mixed step (decodes + the
prompts) is priced with the StepCoster's arithmetic (StepCoster.terms), each request whose prompt is done samples its
first token at the step's end and joins the aggregates. Under SGLang (prefill first, `fast_path_prefill_first`) the
admissions form a prefill-only step of their own (fast_prefill.py), between two decode steps, in which every
decode stalls; the stretch's k then counts decode steps only (the rows, ends_s and the block buckets are indexed by
it), and its prefill-only steps are recorded in Stretch.stalls.
The rules replayed are chunkviz's own: policies/vllm.schedule_chunked, sched_common.schedule_running /
admit_waiting / allocate, apply.apply_plan / _after_sample / _finish, apply.RunState.record_step; they follow vLLM V1's
Scheduler.schedule (vllm/v1/core/sched/scheduler.py: running requests first, then waiting ones within the budget).
Each step is priced with the very float operations of roofline.StepCoster.__call__, in the same order, so the clock
is bit-identical, host time included (step_pricing: the decode batch's CUDA-graph mode and padding come from the
coster itself through fixed_terms, and the exposed host time is the same launches + max(0, work − gpu)). Token gaps
of a step are one run (value, count): from the second decode step on every sequence's previous token came at the previous decode step's
end, but a joiner's from a prefill-only step, whose first gap is its own (an exact gap among the runs). MFU and
MBU are filled in afterwards with numpy (the same IEEE operations element-wise). With the paged manager (prefix
caching, vLLM V1 parallel samples) the stretch also does the few block operations of each step in the exact loop's
order (fast_kv.py; on the lean prefix cache in bulk at each read of the cache), and absorbs only arrivals
without a prefix hit. The exact path is used for everything else:
detailed runs, V0-style forked samples (copy-on-write), long_prefill_token_threshold, measured cost profiles,
policies whose entry leaves `fast_path` off (Orca), and any state where memory might run
short.
"""

from __future__ import annotations

import heapq
import itertools
import math
import operator
from typing import Callable

import numpy as np

from chunkviz.config import SimConfig
from chunkviz.cost.roofline import ATTENTION_EFFICIENCY, StepCoster
from chunkviz.simulator import fast_absorb, fast_kv, fast_prefill
from chunkviz.simulator.apply import RunState
from chunkviz.simulator.fast_state import FastForward, Row, Stretch
from chunkviz.simulator.kv.counting import CountingKvManager
from chunkviz.simulator.policies.registry import policy_entry
from chunkviz.simulator.sched_common import SchedContext

def make_fast_forward(config: SimConfig, ctx: SchedContext, coster: object) -> FastForward | None:
    """A FastForward when this run may use it, else None (the exact path does everything)."""
    entry = policy_entry(config.scheduler.policy)  # the policy's traits: may its steady stretches be replayed?
    kv, knobs = ctx.kv, ctx.knobs
    if (not config.fast_forward or config.record_detail or config.cost_profile is not None or not entry.fast_path
            or config.scheduler.long_prefill_token_threshold != 0
            or type(kv) is not CountingKvManager and not fast_kv.is_paged(kv) or type(coster) is not StepCoster):
        return None
    prefill_first = entry.fast_path_prefill_first
    return FastForward(coster=coster, block_size=kv.block_size, absorbs_arrivals=entry.absorbs(config.scheduler),
                       chunks_admissions=knobs.chunks_prompts and not prefill_first, prefill_first=prefill_first,
                       reserve=entry.fast_path_reserve(ctx) if entry.fast_path_reserve is not None else None,
                       max_num_seqs=knobs.max_num_seqs, budget_tokens=knobs.max_num_batched_tokens,
                       paged=fast_kv.is_paged(kv), replay=entry.fast_path_replay)


def _entry(run: RunState, block_size: int) -> tuple[list[Row], int] | None:
    """The running sequences as rows, and the slack; None if the state is not steady."""
    ctx = run.ctx
    running, kv = ctx.running, ctx.kv
    if ctx.waiting or not running or len(running) > ctx.max_num_batched_tokens or ctx.forks_possible:
        return None
    newest = running[-1]  # admissions append, so a prompt still being prefilled is usually last: check it first
    if newest.num_output_tokens == 0 or newest.num_computed_tokens != newest.num_tokens - 1:
        return None
    paged = fast_kv.is_paged(kv)
    need, rows = 0, []
    for seq in running:
        computed = seq.num_computed_tokens
        if seq.num_output_tokens == 0 or computed != seq.num_tokens - 1:
            return None  # a prefill (or recompute) is in progress
        held = fast_kv.held_blocks(kv, seq)
        alloc_offset = held * block_size - computed
        if held * block_size != seq.kv_capacity_tokens or not 0 <= alloc_offset < block_size:
            return None
        if paged and not fast_kv.steady_seq(kv, seq, held):
            return None
        request = seq.request
        # Its last decode computes token prompt + output - 1 (the final sampled token is never computed).
        final_blocks = -(-(request.prompt_tokens + request.output_tokens - 1) // block_size)
        if final_blocks > held:
            need += final_blocks - held
        rows.append((seq, 0, alloc_offset, request.output_tokens - seq.num_output_tokens - 1, held, computed))
    if need > kv.num_free_blocks():
        return None  # memory could run short: preemption is the exact path's business
    return rows, kv.num_free_blocks() - need


def advance(ff: FastForward, run: RunState, now_s: float, admit_due: Callable[[float], float],
            step_limit: int) -> float | None:
    """Run steady steps (and, under chunked, absorb arrivals) until the state stops being steady, everyone
    finished or the step limit; the new clock, or None if the state is not steady (then nothing changed).
    `admit_due(now_s)` admits the arrivals due by now_s into the waiting queue and returns the next arrival time."""
    next_arrival_s = admit_due(now_s)
    if now_s >= next_arrival_s or run.num_steps >= step_limit:
        return None
    entry = _entry(run, ff.block_size)
    if entry is None:
        return None
    st = _start(ff, run, *entry, now_s)
    while True:  # bounded: every pass runs at least one step, and steps are capped by step_limit
        # While a prompt is chunked, or someone waits, every step is a mixed one (fast_absorb's) or none at all.
        if st.prefill is None and not run.ctx.waiting:
            _steady(ff, st, next_arrival_s, step_limit)
            if not st.n or not ff.absorbs_arrivals:
                break
        if st.num_steps >= step_limit:
            break
        next_arrival_s = admit_due(st.now_s)
        if not (fast_prefill.absorb if ff.prefill_first else fast_absorb.absorb)(ff, run, st):
            break
    _finish_stretch(ff, run, st)
    return st.now_s


def _start(ff: FastForward, run: RunState, rows: list[Row], slack: int, now_s: float) -> Stretch:
    allocs_at = [0] * ff.block_size  # sequences that take a new block at steps k ≡ r (mod block_size)
    for row in rows:
        allocs_at[row[2]] += 1
    finishes = [(row[3], i) for i, row in enumerate(rows)]
    heapq.heapify(finishes)
    kv = run.ctx.kv
    bucket_rows: list[list[int]] = [[] for _ in range(ff.block_size)] if ff.paged else []
    for i, row in enumerate(rows if ff.paged else ()):
        bucket_rows[row[2]].append(i)
    return Stretch(rows=rows, slack=slack, free=kv.num_free_blocks(), peak=run.peak_blocks_used, now_s=now_s,
                    busy_s=run.busy_s, num_steps=run.num_steps, n=len(rows),
                    context=sum(row[5] for row in rows), allocs_at=allocs_at, finishes=finishes,
                    total_blocks=kv.num_total_blocks, durations=run.step_durations_s,
                    kv=kv if ff.paged else None, bucket_rows=bucket_rows, replay_from=len(ff.step_seqs),
                    first_step=run.num_steps, live=list(range(len(rows))))


def _steady(ff: FastForward, st: Stretch, next_arrival_s: float, step_limit: int) -> None:
    """The clock-only loop over decode-only steps.

    One function with local names on purpose: it runs hundreds of thousands of times per large run. It mirrors
    StepCoster.__call__ and _roofline_s term by term for a shape (n, n, context + n, context).
    """
    c, bs = ff.coster, ff.block_size
    tp, gpu, overlap = c.tp, c.gpu, c.overlap
    peak_eff = gpu.peak_flops_per_s * ATTENTION_EFFICIENCY
    hbm_mbu = gpu.hbm_bytes_per_s * c.cost.mbu
    per_pair, kv_bytes = c.attn_flops_per_pair, c.kv_bytes_per_token
    rows, allocs_at, finishes = st.rows, st.allocs_at, st.finishes
    free, total_blocks, peak, slack = st.free, st.total_blocks, st.peak, st.slack
    n, context, now_s, busy_s, num_steps, k = st.n, st.context, st.now_s, st.busy_s, st.num_steps, st.k
    # the four lists the loop appends to, as bound methods (one attribute lookup fewer each, per step)
    add_duration, add_seqs, add_context, add_end = (st.durations.append, ff.step_seqs.append,
                                                    ff.step_context.append, st.ends_s.append)
    next_finish = finishes[0][0] if finishes else -1
    dense_s, head_s, comm_s, work_s, launch_s = ff.fixed_terms(n) if n else (0.0, 0.0, 0.0, 0.0, 0.0)
    kv, bucket_rows = st.kv, st.bucket_rows  # paged: the block operations of the few sequences that change one
    # The lean manager's operations wait until something reads the cache (a finisher's free, an arrival's lookup,
    # the stretch's end) and are then applied in bulk (fast_kv.lean_flush); BlockManager's run step by step.
    step_ops, lean, done_k = fast_kv.step_ops, fast_kv.is_lean(kv), st.ops_done_k
    while n and now_s < next_arrival_s and num_steps < step_limit:  # bounded by the step limit
        allocated = allocs_at[k % bs]
        if kv is not None and not lean and (allocated or allocs_at[(k + 1) % bs]):
            step_ops(kv, rows, bucket_rows, k)
        free -= allocated
        pairs = context + n
        attn_flops = per_pair * pairs / tp
        compute_s = attn_flops / peak_eff if attn_flops > 0 else 0.0
        memory_s = float(pairs * kv_bytes) / tp / hbm_mbu
        gpu_s = dense_s + (compute_s if compute_s > memory_s else memory_s) + head_s + comm_s
        # step_pricing.exposed_s, inlined: the launches, and with overlap only the CPU work the GPU's does not cover.
        total_s = gpu_s + (launch_s + (work_s - gpu_s if work_s > gpu_s else 0.0) if overlap else launch_s + work_s)
        now_s = now_s + total_s
        busy_s += total_s
        add_duration(total_s)  # MFU and MBU are left to finalize (vectorised)
        add_seqs(n)
        add_context(context)
        add_end(now_s)
        context += n
        while next_finish == k:
            _, i = heapq.heappop(finishes)
            seq, join_k, bucket, _, held0, computed0 = rows[i]
            final_computed = computed0 + k - join_k + 1
            held = -(-final_computed // bs)
            held = held if held > held0 else held0
            if kv is not None:  # blocks shared through a prefix hit stay with their other holders
                if lean and done_k <= k:
                    fast_kv.lean_flush(kv, rows, bucket_rows, done_k, k + 1)
                    done_k = k + 1
                bucket_rows[bucket].remove(i)
                held = fast_kv.release(kv, seq, computed0, final_computed)
            free += held
            slack += held
            allocs_at[bucket] -= 1
            context -= final_computed
            n -= 1
            next_finish = finishes[0][0] if finishes else -1
            if n:
                dense_s, head_s, comm_s, work_s, launch_s = ff.fixed_terms(n)
        # The peak is read after the step's frees (as record_step does); only a step that allocated can raise it.
        if allocated and total_blocks - free > peak:
            peak = total_blocks - free
        num_steps += 1
        k += 1
    st.free, st.peak, st.slack, st.n, st.context = free, peak, slack, n, context
    st.now_s, st.busy_s, st.num_steps, st.k, st.ops_done_k = now_s, busy_s, num_steps, k, done_k


def _finish_stretch(ff: FastForward, run: RunState, st: Stretch) -> None:
    """Shared gaps, then every sequence's state, the KV counter and the run's totals, as the exact loop left them."""
    ends_s = st.ends_s
    fast_kv.flush_pending(st, st.k)
    # From the second decode step on, every decoding sequence's previous token came at the previous decode step's end
    # (a prefill-only step between them stalls them all): one shared gap per step (the subtraction the exact loop
    # does); entry sequences take a running maximum of them, a joiner from a prefill-only step its own first gap.
    shared_gaps_s = list(map(operator.sub, ends_s[1:], ends_s))
    ff.gap_values_s.extend(shared_gaps_s)
    prefix_max_s = list(itertools.accumulate(shared_gaps_s, max))
    first_gaps_s = _materialize(ff, run, st, shared_gaps_s, prefix_max_s)
    position = len(run.tbt_gaps_s)  # the runs go after the entry sequences' first gaps ...
    run.tbt_gaps_s.extend(gap_s for _, gap_s in first_gaps_s)  # ... and around the joiners' own first gaps
    ff.stretches.append((st.first_step, st.num_steps - st.first_step, position, st.stalls,
                         [k for k, _ in first_gaps_s]))
    if ff.replay is not None:  # e.g. SGLang's new_token_ratio, decayed once per decode step as its exact loop does
        ff.replay(run.ctx, ff.step_seqs[st.replay_from:])
    if st.kv is None:
        run.ctx.kv._num_free = st.free  # the counting manager's own arithmetic, replayed
    else:  # the paged manager did the operations themselves; the arithmetic (peak, slack) must have followed them
        assert st.kv.num_free_blocks() == st.free, "fast path: free-block count out of step with the paged manager"
    run.busy_s, run.num_steps, run.peak_blocks_used = st.busy_s, st.num_steps, st.peak


def _materialize(ff: FastForward, run: RunState, st: Stretch, shared_gaps_s: list[float],
                 prefix_max_s: list[float]) -> list[tuple[int, float]]:
    """Write the stretch's outcome back into each SeqState and the results; running = survivors, joiners last.
    Returns the own first gaps of the joiners from prefill-only steps that decoded, as (decode step, gap), in the
    exact loop's order."""
    bs, num_steps, ends_s = ff.block_size, len(st.ends_s), st.ends_s
    kv, gaps, live = st.kv, run.tbt_gaps_s, []
    held_by_seq = run.ctx.kv.num_seq_blocks if kv is None else None
    first_gaps_s = [(k, ends_s[k] - end_s, i) for k, i, end_s in st.specials if k < num_steps]
    joiner_tops_s = iter(_joiner_top_gaps_s(st.rows, num_steps, shared_gaps_s, first_gaps_s))
    for seq, join_k, _, finish_k, held, computed0 in st.rows:
        last_k = finish_k if finish_k < num_steps else num_steps - 1
        top_s = seq.max_gap_s
        if join_k == 0:  # entry sequences: the first step's gaps differ per sequence, in running order
            gap_s = ends_s[0] - seq.last_token_s
            gaps.append(gap_s)
            if top_s is None or gap_s > top_s:
                top_s = gap_s
            if last_k and prefix_max_s[last_k - 1] > top_s:
                top_s = prefix_max_s[last_k - 1]
        elif last_k >= join_k:  # joiners: shared gaps of steps join_k .. last_k
            top_s = next(joiner_tops_s)
        seq.max_gap_s = top_s
        done = last_k - join_k + 1
        if done > 0:
            seq.num_computed_tokens += done
            seq.num_output_tokens += done
            seq.num_tokens += done
            seq.last_token_s = ends_s[last_k]
        if finish_k < num_steps:
            if kv is None:
                held_by_seq.pop(seq.key, None)  # (a paged sequence was freed when it finished)
            run.finish_s[seq.request.request_id] = ends_s[finish_k]
            continue
        if kv is None:
            needed = -(-seq.num_computed_tokens // bs)
            if needed > held:
                held = needed
            held_by_seq[seq.key] = held
        else:
            fast_kv.settle_filled(kv, seq, computed0, seq.num_computed_tokens)
            held = len(kv.tables[seq.key])
        seq.kv_capacity_tokens = held * bs
        live.append(seq)
    if st.prefill is not None:  # a prompt still being chunked: admitted after every row (it took the rest of the budget)
        live.append(st.prefill)
    run.ctx.running[:] = live
    return [(k, gap_s) for k, gap_s, _ in first_gaps_s]


def _joiner_top_gaps_s(rows: list, num_steps: int, shared_gaps_s: list[float],
                       first_gaps_s: list[tuple[int, float, int]]) -> list[float]:
    """The longest gap of every joiner that decoded in the stretch, in row order: max(shared_gaps_s[join_k - 1:
    last_k]), or for a joiner from a prefill-only step the larger of its own first gap (first_gaps_s: (decode step,
    gap, row)) and max(shared_gaps_s[join_k:last_k]). A slice and max per joiner cost ~4M element copies in the 20k
    run, so the spans' maxima come from one numpy pass (_spans_max)."""
    own_s = {i: gap_s for _, gap_s, i in first_gaps_s}
    lo, hi, tops = [], [], []
    for i, (_, join_k, _, finish_k, _, _) in enumerate(rows):
        last_k = finish_k if finish_k < num_steps else num_steps - 1
        if join_k and last_k >= join_k:
            start = join_k if i in own_s else join_k - 1
            tops.append(own_s.get(i, -math.inf))
            lo.append(start if last_k > start else -1)  # -1: no shared gap, its own first one only
            hi.append(last_k)
    if not tops:
        return []
    return [top_s if top_s >= span_s else span_s for top_s, span_s in zip(tops, _spans_max(lo, hi, shared_gaps_s))]


def _spans_max(lo: list[int], hi: list[int], values_s: list[float]) -> list[float]:
    """max(values_s[lo_i:hi_i]) of each span, -inf for a span marked empty (lo_i = -1), in one numpy pass:
    np.maximum.reduceat over the spans' ends interleaved [lo0, hi0, lo1, hi1, ...] reduces each span at the even
    places; with the spans sorted by lo, the odd places' spans [hi_i, lo_i+1) lie in disjoint [lo_i, lo_i+1), so the
    pass is linear. A maximum is exact, so the floats are the slices' own."""
    lo_arr, hi_arr = np.array(lo, dtype=np.int64), np.array(hi, dtype=np.int64)
    out = np.full(len(lo), -np.inf)
    present = np.flatnonzero(lo_arr >= 0)
    if present.size:
        order = present[np.argsort(lo_arr[present], kind="stable")]
        spans = np.empty(2 * order.size, dtype=np.int64)
        spans[0::2], spans[1::2] = lo_arr[order], hi_arr[order]
        # a -inf sentinel: a span may end at the last gap, and reduceat's places must index into the array
        values = np.array(values_s + [-np.inf], dtype=np.float64)
        out[order] = np.maximum.reduceat(values, spans)[0::2]
    return out.tolist()


def finalize(ff: FastForward, run: RunState) -> None:
    """Fill the fast steps' MFU and MBU (numpy, the same IEEE operations as StepCost) and hand the gap runs over."""
    if not ff.stretches:
        return
    c = ff.coster
    firsts = np.array([stretch[0] for stretch in ff.stretches], dtype=np.int64)
    counts = np.array([stretch[1] for stretch in ff.stretches], dtype=np.int64)
    offsets = np.cumsum(counts) - counts
    # Global step index of every fast step: its stretch's first step plus its place inside the stretch.
    index = np.repeat(firsts - offsets, counts) + np.arange(int(counts.sum()), dtype=np.int64)
    n = np.array(ff.step_seqs, dtype=np.int64)
    pairs = np.array(ff.step_context, dtype=np.int64) + n
    total_s = np.array(run.step_durations_s, dtype=np.float64)[index]
    flops = 2.0 * n * c.dense_params + c.attn_flops_per_pair * pairs + 2.0 * n * c.head_params
    bytes_ = c.dense_bytes + (pairs * c.kv_bytes_per_token).astype(np.float64) + c.head_bytes
    is_exact = np.ones(len(run.step_durations_s), dtype=bool)
    is_exact[index] = False
    mfu, mbu = np.empty(is_exact.size, dtype=np.float64), np.empty(is_exact.size, dtype=np.float64)
    mfu[is_exact], mbu[is_exact] = run.step_mfu, run.step_mbu  # the exact steps' own StepCost values
    mfu[index] = flops / (total_s * c.gpu.peak_flops_per_s * c.tp)
    mbu[index] = bytes_ / (total_s * c.gpu.hbm_bytes_per_s * c.tp)
    for step, step_mfu, step_mbu in ff.mixed_costs:  # mixed steps were priced by the StepCoster itself
        mfu[step], mbu[step] = step_mfu, step_mbu
    run.step_mfu, run.step_mbu = mfu, mbu  # arrays: the trace keeps them numpy-backed (RunState._per_step)
    run.gap_runs = _gap_runs(ff)
    run.num_fast_forwarded_steps = ff.num_steps



def _gap_runs(ff: FastForward) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(position in the exact gap list, gap, copies) of every fast decode step but each stretch's first, in step
    order, as arrays. A stretch's runs go at its gap position, moved past the joiners' own first gaps of earlier
    steps; a step's copies are its decodes less those joiners (prefill-only steps have no run)."""
    keep = np.ones(len(ff.step_seqs), dtype=bool)
    counts = np.array(ff.step_seqs, dtype=np.int64)
    num_runs = [count - len(stalls) - 1 for _, count, _, stalls, _ in ff.stretches]
    positions = np.repeat(np.array([stretch[2] for stretch in ff.stretches], dtype=np.int64), num_runs)
    offset = first_run = 0
    for (_, count, position, stalls, own_ks), runs in zip(ff.stretches, num_runs):
        keep[offset] = False  # a stretch's first step: its gaps are the entry sequences' own (exact ones)
        if stalls:  # SGLang's prefill-only steps: no run; joiners' own first gaps among the runs
            decode_places = np.delete(np.arange(count, dtype=np.int64), stalls)  # decode step k's place in the stretch
            keep[offset + np.asarray(stalls, dtype=np.int64)] = False
            own = np.asarray(own_ks, dtype=np.int64)
            positions[first_run:first_run + runs] += np.searchsorted(own, np.arange(1, runs + 1), side="left")
            np.subtract.at(counts, offset + decode_places[own], 1)
        offset += count
        first_run += runs
    return positions, np.array(ff.gap_values_s, dtype=np.float64), counts[keep]
