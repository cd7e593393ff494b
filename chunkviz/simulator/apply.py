"""Applying a planned step to live state, and turning live state into the frozen Trace at the end.

Invariant: a sequence samples a token exactly when all its tokens are in the KV cache; a request's results are
written once, when its last sequence finishes or it is rejected.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from chunkviz.config import SimConfig
from chunkviz.simulator.float_array import FloatArray, GapRuns, expand_runs
from chunkviz.simulator.events import ChunkScheduled, Finished, FirstToken, Forked, Rejected
from chunkviz.request import Request
from chunkviz.simulator.sched_common import Plan, SchedContext
from chunkviz.simulator.sequence import SeqState
from chunkviz.simulator.trace import RequestResult, ScheduledChunk, Trace


@dataclass(slots=True)
class RunState:
    config: SimConfig
    ctx: SchedContext
    seqs: dict[int, list[SeqState]] = field(default_factory=dict)
    requests: dict[int, Request] = field(default_factory=dict)
    first_token_s: dict[int, float] = field(default_factory=dict)
    finish_s: dict[int, float] = field(default_factory=dict)
    rejected: dict[int, str] = field(default_factory=dict)
    tbt_gaps_s: list[float] = field(default_factory=list)
    step_durations_s: list[float] = field(default_factory=list)
    step_mfu: list[float] | np.ndarray = field(default_factory=list)  # an array once fast_forward.finalize ran
    step_mbu: list[float] | np.ndarray = field(default_factory=list)
    num_steps: int = 0
    num_stall_steps: int = 0
    peak_blocks_used: int = 0
    busy_s: float = 0.0
    gap_runs: GapRuns | None = None  # token gaps of fast-forwarded steps (fast_forward.finalize)
    num_fast_forwarded_steps: int = 0

    def register(self, request: Request) -> None:
        self.requests[request.request_id] = request

    def record_step(self, total_s: float, mfu: float, mbu: float) -> None:
        self.num_steps += 1
        self.busy_s += total_s
        self.step_durations_s.append(total_s)
        self.step_mfu.append(mfu)
        self.step_mbu.append(mbu)
        self.peak_blocks_used = max(self.peak_blocks_used, self.ctx.kv.num_used_blocks())

    def to_trace(self, records: tuple, end_s: float, knob_notes: tuple[str, ...] = (),
                 kv_pool_bytes: int = 0) -> Trace:
        kv = self.ctx.kv
        return Trace(
            policy=self.config.scheduler.policy, budget_tokens=self.ctx.max_num_batched_tokens,
            max_num_seqs=self.ctx.knobs.max_num_seqs, prefix_caching=self.ctx.knobs.prefix_caching,
            num_gpu_blocks=kv.num_total_blocks, block_size=kv.block_size, kv_pool_bytes=kv_pool_bytes,
            steps=records, requests=tuple(map(self._result, sorted(self.requests))),
            num_steps=self.num_steps, makespan_s=end_s, busy_s=self.busy_s, tbt_gaps_s=self._gaps(),
            step_durations_s=self._per_step(self.step_durations_s), step_mfu=self._per_step(self.step_mfu),
            step_mbu=self._per_step(self.step_mbu), peak_blocks_used=self.peak_blocks_used,
            blocks_in_use_at_end=kv.num_used_blocks(),
            num_evicted_blocks=kv.num_evicted_blocks, num_stall_steps=self.num_stall_steps,
            fast_forwarded_steps=self.num_fast_forwarded_steps, knob_notes=knob_notes,
        )

    def _gaps(self) -> Any:
        """A tuple in detailed runs (as before); metrics-only runs keep millions of gaps, so a numpy-backed one."""
        if self.config.record_detail:
            return tuple(self.tbt_gaps_s)
        return FloatArray.adopt(expand_runs(self.tbt_gaps_s, self.gap_runs))  # a fresh array: no copy

    def _per_step(self, values: list[float] | np.ndarray) -> Any:
        """A per-step series as _gaps keeps token gaps: a tuple in detailed runs, numpy-backed otherwise (a large
        run has ~400k steps, and the metrics read them as arrays; fast_forward.finalize leaves MFU/MBU as arrays)."""
        if self.config.record_detail:
            return tuple(values)
        return FloatArray.adopt(values if isinstance(values, np.ndarray) else np.array(values, dtype=np.float64))

    def _result(self, rid: int) -> RequestResult:
        r, seqs = self.requests[rid], self.seqs.get(rid, [])
        times = None
        if self.config.record_detail:
            times = tuple(tuple(s.token_times_s or ()) for s in seqs)
        (first_sched, generated, preemptions, hit, query, hit_readmitted, query_readmitted,
         max_gap) = _over_samples(seqs)
        return RequestResult(
            request_id=rid, arrival_s=r.arrival_s, prompt_tokens=r.prompt_tokens, output_tokens=r.output_tokens,
            priority=r.priority, n_samples=r.n_samples, first_scheduled_s=first_sched,
            first_token_s=self.first_token_s.get(rid), finish_s=self.finish_s.get(rid),
            num_generated_tokens=generated, num_preemptions=preemptions, prefix_hit_tokens=hit,
            prefix_query_tokens=query, prefix_hit_tokens_readmitted=hit_readmitted,
            prefix_query_tokens_readmitted=query_readmitted, max_tbt_s=max_gap,
            rejected_reason=self.rejected.get(rid), token_times_s=times, max_tokens=r.max_tokens,
        )


def _over_samples(seqs: list[SeqState]) -> tuple:
    """A request's figures over its sequences: first scheduled (earliest), generated tokens, preemptions, prefix hit
    and query tokens (first admissions, then re-admissions; summed), longest token gap."""
    if len(seqs) == 1:  # the common case, read straight off (no generators: this runs once per request)
        s = seqs[0]
        return (s.first_scheduled_s, s.num_output_tokens, s.num_preemptions, s.prefix_hit_tokens,
                s.prefix_query_tokens, s.prefix_hit_tokens_readmitted, s.prefix_query_tokens_readmitted, s.max_gap_s)
    first_sched = [s.first_scheduled_s for s in seqs if s.first_scheduled_s is not None]
    return (min(first_sched) if first_sched else None, sum(s.num_output_tokens for s in seqs),
            sum(s.num_preemptions for s in seqs), sum(s.prefix_hit_tokens for s in seqs),
            sum(s.prefix_query_tokens for s in seqs), sum(s.prefix_hit_tokens_readmitted for s in seqs),
            sum(s.prefix_query_tokens_readmitted for s in seqs),
            max((s.max_gap_s for s in seqs if s.max_gap_s is not None), default=None))


def reject(run: RunState, request: Request, reason: str, now_s: float) -> None:
    """Drop every sequence of the request and remember why."""
    rid = request.request_id
    for seq in run.seqs.get(rid, []):
        if seq in run.ctx.running:
            run.ctx.running.remove(seq)
        if seq in run.ctx.waiting:
            run.ctx.waiting.remove(seq)
        run.ctx.kv.free(seq.key)
    run.rejected[rid] = reason
    run.ctx.emit(Rejected(rid, reason))


def step_shape(items: list[tuple[SeqState, int]]) -> tuple[int, int, int, int]:
    """StepShape's four numbers (tokens, sequences, attention pairs, KV read tokens) of the planned items: a chunk
    of n tokens after p computed ones attends n·p + n(n + 1)/2 pairs and reads p."""
    tokens = pairs = kv_read = 0
    for seq, n in items:
        p = seq.num_computed_tokens
        tokens += n
        pairs += p + 1 if n == 1 else n * p + n * (n + 1) // 2  # a decode's pairs without the multiplications
        kv_read += p
    return tokens, len(items), pairs, kv_read


def scheduled_chunks(items: list[tuple[SeqState, int]]) -> tuple[ScheduledChunk, ...]:
    """What each sequence got this step, for a detailed run's StepRecord (read before the plan is applied)."""
    return tuple(ScheduledChunk(seq.request.request_id, seq.sample_index, n, seq.num_computed_tokens,
                                "decode" if seq.is_decode_ready and n == 1 else "prefill")
                 for seq, n in items)


def apply_plan(run: RunState, plan: Plan, start_s: float, end_s: float) -> None:
    ctx, detail = run.ctx, run.config.record_detail
    # Only the paged manager tracks filled slots and prefix keys; the counting one has nothing to record.
    on_computed = ctx.kv.on_computed if ctx.kv.tracks_content else None
    lean = ctx.lean_kv  # below a sequence's cover limit on_computed would change nothing (LeanPrefixCache)
    store_at_end = ctx.knobs.store_context_blocks_at_end
    add_gap = run.tbt_gaps_s.append
    for seq, n in plan.items:  # applying changes running (a finish, a fork), never the plan
        old = seq.num_computed_tokens
        if detail:
            phase = "decode" if seq.is_decode_ready and n == 1 else "prefill"
            ctx.emit(ChunkScheduled(seq.request.request_id, seq.sample_index, n, old, phase))
        if on_computed is not None and (not lean or old + n > seq.kv_cover_limit_tokens):
            # A context still running keeps its blocks out of the prefix cache (storeContextBlocks at its end).
            on_computed(seq.key, seq.content, old, old + n,
                        not store_at_end or old + n >= seq.num_tokens)
        seq.num_computed_tokens = old + n
        if seq.first_scheduled_s is None:
            seq.first_scheduled_s = start_s
        if seq.num_computed_tokens != seq.num_tokens:
            continue
        # All its tokens are in the KV cache: it samples one at the step's end. The common case (a decode's next
        # token) is done here, inline, since it runs once per sequence per step; _after_sample does the rest.
        seq.num_output_tokens += 1
        seq.num_tokens += 1
        last_s = seq.last_token_s
        seq.last_token_s = end_s
        if last_s is not None:
            gap_s = end_s - last_s
            add_gap(gap_s)
            if seq.max_gap_s is None or gap_s > seq.max_gap_s:
                seq.max_gap_s = gap_s
        if last_s is None or seq.token_times_s is not None or seq.num_output_tokens >= seq.request.output_tokens:
            _after_sample(run, seq, end_s, last_s is None)


def _after_sample(run: RunState, seq: SeqState, now_s: float, first: bool) -> None:
    """The rest of sampling a token at now_s (its count, time and gap are done): the token's time in a detailed
    run, a request's first token (and the samples it forks), and finishing at the last one."""
    if seq.token_times_s is not None:
        seq.token_times_s.append(now_s)
    if first:
        rid = seq.request.request_id
        if rid not in run.first_token_s:
            run.first_token_s[rid] = now_s
            run.ctx.emit(FirstToken(rid, now_s - seq.request.arrival_s))
        if seq.num_forks_pending:
            for child in _fork(run, seq, now_s):
                if child.num_output_tokens >= child.request.output_tokens:
                    _finish(run, child, now_s)
    if seq.num_output_tokens >= seq.request.output_tokens:
        _finish(run, seq, now_s)


def _fork(run: RunState, parent: SeqState, now_s: float) -> list[SeqState]:
    """V0 parallel sampling: the prompt's KV is shared by n sequences, each with its own first token."""
    children = []
    parent.num_forks_pending = 0
    index = run.ctx.running.index(parent)
    for sample in range(1, parent.request.n_samples):
        child = SeqState(request=parent.request, sample_index=sample, num_output_tokens=1,
                         num_computed_tokens=parent.num_computed_tokens, admit_seq_no=parent.admit_seq_no,
                         first_scheduled_s=parent.first_scheduled_s, last_token_s=now_s,
                         token_times_s=[now_s] if parent.token_times_s is not None else None)
        run.ctx.kv.fork(parent.key, child.key)
        run.ctx.running.insert(index + sample, child)
        children.append(child)
    run.seqs[parent.request.request_id].extend(children)
    run.ctx.emit(Forked(parent.request.request_id, parent.request.n_samples,
                        run.ctx.kv.num_table_blocks(parent.key)))
    return children


def _finish(run: RunState, seq: SeqState, now_s: float) -> None:
    run.ctx.running.remove(seq)
    run.ctx.kv.free(seq.key)
    run.ctx.emit(Finished(seq.request.request_id, seq.sample_index, now_s - seq.request.arrival_s))
    rid = seq.request.request_id
    if all(s.num_output_tokens >= s.request.output_tokens for s in run.seqs[rid]):
        run.finish_s[rid] = now_s
