"""Fast forward: steady decode-only stretches advanced with O(1) work per step, results identical to the exact loop.

Invariant: a run with fast forwarding produces the same Trace (every float bit for bit) as the exact step loop;
only `Trace.fast_forwarded_steps` tells them apart.

When it applies (checked at the top of a loop iteration, after arrivals were admitted): nothing waits, every
running sequence is decode-ready, all of them fit the token budget, and the blocks they still need up to their last
token fit in the free blocks. Then, until the next arrival is due, no policy in ALLOWED_POLICIES does anything but
give each running sequence one decode token (checked for each: chunked and monolithic find no waiting request,
static has a running batch), nobody can be preempted and nobody is admitted. So the state is a few aggregates:
  - n running sequences and their summed context (the step's StepShape is (n, n, context + n, context)),
  - when each one finishes (all join at the stretch's first step, so a sorted list serves as the heap),
  - how many of them cross a block boundary at each step (a counter per step modulo block_size).
Each step is priced with the very float operations of roofline.StepCoster.__call__, in the same order, so the clock
is bit-identical. Token gaps of a step are one run (value, count): from the second step on every sequence's
previous token came at the previous step's end. MFU and MBU are filled in afterwards with numpy (the same IEEE
operations element-wise). The exact path is used for everything else: detailed runs, prefix caching and parallel
sampling (the paged manager), long_prefill_token_threshold, measured cost profiles, policies not in the allow-list
(SGLang's ratio dynamics, ...), and any state where memory might run short.
"""

from __future__ import annotations

import itertools
import operator
from dataclasses import dataclass, field

import numpy as np

from chunkviz.config import SimConfig
from chunkviz.cost.roofline import ATTENTION_EFFICIENCY, StepCoster, StepShape
from chunkviz.simulator.apply import RunState
from chunkviz.simulator.kv.counting import CountingKvManager

# Policies whose plan, with nothing waiting and every running sequence decode-ready within the budget, is exactly
# "one token to each running sequence, in list order". A new policy joins only after checking that (and the
# equality tests in tests/test_fast_forward.py) — e.g. SGLang's new_token_ratio changes every step, so it is out.
ALLOWED_POLICIES: frozenset[str] = frozenset({"chunked", "monolithic", "static"})


@dataclass(slots=True)
class FastForward:
    """Constants of the roofline for decode-only steps, and what the stretches leave for the trace."""

    coster: StepCoster
    block_size: int
    stretches: list[tuple[int, int, int]] = field(default_factory=list)  # (first step, steps, gap position)
    step_seqs: list[int] = field(default_factory=list)  # n of each fast step
    step_context: list[int] = field(default_factory=list)  # summed context (kv_read_tokens) of each fast step
    gap_values_s: list[float] = field(default_factory=list)  # the shared token gap of each non-first fast step
    by_n: dict[int, tuple[float, float, float]] = field(default_factory=dict)

    @property
    def num_steps(self) -> int:
        return len(self.step_seqs)

    def fixed_terms(self, n: int) -> tuple[float, float, float]:
        """(dense_s, lm_head_s, communication_s) of a step of n decodes: StepCoster's terms that ignore context."""
        terms = self.by_n.get(n)
        if terms is None:
            cost = self.coster(StepShape(n, n, n, 0))
            terms = self.by_n[n] = (cost.dense_s, cost.lm_head_s, cost.communication_s)
        return terms


def make_fast_forward(config: SimConfig, kv: object, coster: object) -> FastForward | None:
    """A FastForward when this run may use it, else None (the exact path does everything)."""
    if (not getattr(config, "fast_forward", True) or config.record_detail or config.cost_profile is not None
            or config.scheduler.policy not in ALLOWED_POLICIES
            or config.scheduler.long_prefill_token_threshold != 0
            or type(kv) is not CountingKvManager or type(coster) is not StepCoster):
        return None
    return FastForward(coster=coster, block_size=kv.block_size)


def _entry(run: RunState, block_size: int) -> list[tuple[int, int, int]] | None:
    """Per running sequence (first allocation offset, finish offset, blocks held), or None if not steady."""
    ctx = run.ctx
    running, kv = ctx.running, ctx.kv
    if ctx.waiting or not running or len(running) > ctx.max_num_batched_tokens:
        return None
    newest = running[-1]  # admissions append, so a prompt still being prefilled is usually last: check it first
    if newest.num_output_tokens == 0 or newest.num_computed_tokens != newest.num_tokens - 1:
        return None
    held_by_seq = kv.num_seq_blocks
    need, rows = 0, []
    for seq in running:
        computed = seq.num_computed_tokens
        if seq.num_output_tokens == 0 or computed != seq.num_tokens - 1:
            return None  # a prefill (or recompute) is in progress
        held = held_by_seq.get(seq.key, 0)
        alloc_offset = held * block_size - computed
        if held * block_size != seq.kv_capacity_tokens or not 0 <= alloc_offset < block_size:
            return None
        request = seq.request
        # Its last decode computes token prompt + output - 1 (the final sampled token is never computed).
        final_blocks = -(-(request.prompt_tokens + request.output_tokens - 1) // block_size)
        if final_blocks > held:
            need += final_blocks - held
        rows.append((alloc_offset, request.output_tokens - seq.num_output_tokens - 1, held))
    if need > kv.num_free_blocks():
        return None  # memory could run short: preemption is the exact path's business
    return rows


def advance(ff: FastForward, run: RunState, now_s: float, next_arrival_s: float, step_limit: int) -> float | None:
    """Run steady steps until the next arrival is due, everyone finished or the step limit; the new clock, or None
    if the state is not steady (then nothing changed)."""
    if now_s >= next_arrival_s or run.num_steps >= step_limit:
        return None
    rows = _entry(run, ff.block_size)
    if rows is None:
        return None
    first_step = run.num_steps
    ends_s = _loop(ff, run, rows, now_s, next_arrival_s, step_limit)
    # From the second step on, every sequence's previous token came at the previous step's end: one shared gap per
    # step (the subtraction the exact loop does), and each sequence's largest is a running maximum of them.
    shared_gaps_s = list(map(operator.sub, ends_s[1:], ends_s))
    ff.gap_values_s.extend(shared_gaps_s)
    prefix_max_s = list(itertools.accumulate(shared_gaps_s, max))
    _materialize(ff, run, rows, ends_s, prefix_max_s)
    ff.stretches.append((first_step, len(ends_s), len(run.tbt_gaps_s)))
    return ends_s[-1]


def _loop(ff: FastForward, run: RunState, rows: list[tuple[int, int, int]], now_s: float, next_arrival_s: float,
          step_limit: int) -> list[float]:
    """The clock-only loop; returns each step's end time.

    One function with local names on purpose: it runs hundreds of thousands of times per large run. It mirrors
    StepCoster.__call__ and _roofline_s term by term for a shape (n, n, context + n, context).
    """
    c, bs = ff.coster, ff.block_size
    tp, gpu, overhead_s = c.tp, c.gpu, c.cost.step_overhead_s
    peak_eff = gpu.peak_flops_per_s * ATTENTION_EFFICIENCY
    hbm_mbu = gpu.hbm_bytes_per_s * c.cost.mbu
    per_pair, kv_bytes = c.attn_flops_per_pair, c.kv_bytes_per_token
    allocs_at = [0] * bs  # sequences that take a new block at steps k ≡ r (mod block_size)
    for offset, _, _ in rows:
        allocs_at[offset] += 1
    finishes = sorted(range(len(rows)), key=lambda i: rows[i][1])  # finish offsets, earliest first
    finish_k = [rows[i][1] for i in finishes] + [-1]
    running, kv = run.ctx.running, run.ctx.kv
    free, total_blocks, peak = kv.num_free_blocks(), kv.num_total_blocks, run.peak_blocks_used
    n, context = len(running), sum(s.num_computed_tokens for s in running)
    durations = run.step_durations_s
    step_seqs, step_context = ff.step_seqs, ff.step_context
    ends_s: list[float] = []
    busy_s, num_steps, k, next_finish = run.busy_s, run.num_steps, 0, 0
    fixed_n, (dense_s, head_s, comm_s) = n, ff.fixed_terms(n)
    while n and now_s < next_arrival_s and num_steps < step_limit:  # bounded by the step limit
        free -= allocs_at[k % bs]
        pairs = context + n
        attn_flops = per_pair * pairs / tp
        compute_s = attn_flops / peak_eff if attn_flops > 0 else 0.0
        memory_s = float(pairs * kv_bytes) / tp / hbm_mbu
        total_s = dense_s + (compute_s if compute_s > memory_s else memory_s) + head_s + comm_s + overhead_s
        now_s = now_s + total_s
        busy_s += total_s
        durations.append(total_s)  # MFU and MBU are left to finalize (vectorised)
        step_seqs.append(n)
        step_context.append(context)
        ends_s.append(now_s)
        context += n
        while finish_k[next_finish] == k:
            i = finishes[next_finish]
            final_computed = running[i].num_computed_tokens + k + 1
            held = -(-final_computed // bs)
            free += held if held > rows[i][2] else rows[i][2]
            allocs_at[rows[i][0]] -= 1
            context -= final_computed
            n -= 1
            next_finish += 1
        if total_blocks - free > peak:
            peak = total_blocks - free
        num_steps += 1
        k += 1
        if n != fixed_n and n:
            fixed_n, (dense_s, head_s, comm_s) = n, ff.fixed_terms(n)
    kv._num_free = free  # the counting manager's own arithmetic, replayed above
    run.busy_s, run.num_steps, run.peak_blocks_used = busy_s, num_steps, peak
    return ends_s


def _materialize(ff: FastForward, run: RunState, rows: list[tuple[int, int, int]], ends_s: list[float],
                 prefix_max_s: list[float]) -> None:
    """Write the stretch's outcome back into each SeqState, the KV counter and the results, as the exact loop would."""
    bs, num_steps = ff.block_size, len(ends_s)
    held_by_seq, gaps, live = run.ctx.kv.num_seq_blocks, run.tbt_gaps_s, []
    for seq, (_, finish_k, held) in zip(run.ctx.running, rows):
        gap_s = ends_s[0] - seq.last_token_s  # the first step's gaps differ per sequence, in running order
        gaps.append(gap_s)
        top_s = seq.max_gap_s
        if top_s is None or gap_s > top_s:
            top_s = gap_s
        last_k = finish_k if finish_k < num_steps else num_steps - 1
        if last_k and prefix_max_s[last_k - 1] > top_s:
            top_s = prefix_max_s[last_k - 1]
        seq.max_gap_s = top_s
        seq.num_computed_tokens += last_k + 1
        seq.num_output_tokens += last_k + 1
        seq.num_tokens += last_k + 1
        seq.last_token_s = ends_s[last_k]
        if finish_k < num_steps:
            held_by_seq.pop(seq.key, None)
            run.finish_s[seq.request.request_id] = ends_s[finish_k]
            continue
        needed = -(-seq.num_computed_tokens // bs)
        if needed > held:
            held = needed
        held_by_seq[seq.key] = held
        seq.kv_capacity_tokens = held * bs
        live.append(seq)
    run.ctx.running[:] = live


def finalize(ff: FastForward, run: RunState) -> None:
    """Fill the fast steps' MFU and MBU (numpy, the same IEEE operations as StepCost) and hand the gap runs over."""
    if not ff.stretches:
        return
    c = ff.coster
    firsts = np.array([first for first, _, _ in ff.stretches], dtype=np.int64)
    counts = np.array([count for _, count, _ in ff.stretches], dtype=np.int64)
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
    run.step_mfu, run.step_mbu = mfu.tolist(), mbu.tolist()
    run.gap_runs = _gap_runs(ff)
    run.num_fast_forwarded_steps = ff.num_steps



def _gap_runs(ff: FastForward) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(position in the exact gap list, gap, copies) of every non-first fast step, in step order, as arrays."""
    first = np.zeros(len(ff.step_seqs), dtype=bool)
    first[[start for start, _, _ in _fast_offsets(ff)]] = True
    counts = np.array(ff.step_seqs, dtype=np.int64)[~first]
    positions = np.repeat(np.array([p for _, _, p in ff.stretches], dtype=np.int64),
                          [count - 1 for _, count, _ in ff.stretches])
    return positions, np.array(ff.gap_values_s, dtype=np.float64), counts


def _fast_offsets(ff: FastForward) -> list[tuple[int, int, int]]:
    """Each stretch's offset into the fast-step lists, with its length and gap position."""
    out, offset = [], 0
    for _, count, position in ff.stretches:
        out.append((offset, count, position))
        offset += count
    return out
