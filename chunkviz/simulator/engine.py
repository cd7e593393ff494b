"""The step loop: admit arrivals, plan a batch, cost it, advance the clock, apply; jump over idle time.

Invariant: the clock never moves backwards, every request ends finished or rejected with a reason, and the loop
runs at most `max_num_steps` engine steps (then SimulationLimitError names the limit).
"""

from __future__ import annotations

import math
from collections import deque
from typing import Sequence

from chunkviz.config import SimConfig
from chunkviz.simulator.apply import RunState, apply_plan, reject, scheduled_chunks, step_shape
from chunkviz.errors import InputError, SimulationLimitError
from chunkviz.simulator.decision import decide
from chunkviz.simulator.events import Arrived, DecodeStalled
from chunkviz.simulator import fast_forward, fast_kv
from chunkviz.simulator.kv.setup import MAX_GRID_BLOCKS, kv_bytes_per_token_per_gpu, make_kv_manager, num_gpu_blocks
from chunkviz.simulator.policies.memory import KvPool
from chunkviz.cost.profiled import make_step_coster
from chunkviz.cost.roofline import StepShape
from chunkviz.request import Request
from chunkviz.simulator.knobs import Knobs
from chunkviz.simulator.policies.registry import policy_entry
from chunkviz.simulator.policies.resolve import knob_notes, resolve_knobs, with_engine_block_size
from chunkviz.simulator.sched_common import SchedContext, add_waiting
from chunkviz.simulator.sequence import SeqState
from chunkviz.simulator.snapshot import take_snapshot
from chunkviz.simulator.trace import StepRecord, Trace

__all__ = ["simulate", "resolve_knobs", "knob_notes", "Knobs"]

MAX_NUM_REQUESTS = 200_000
# Detailed runs keep a snapshot per step; past this many steps they would need gigabytes, so they stop early.
MAX_DETAIL_STEPS = 50_000
# Each step's snapshot lists every waiting and running sequence, so memory grows with steps x queue length; about
# 3 M such entries (~100 bytes each with their block tables) keep a detailed trace near 300 MB (issue 16:
# `--trace-out` on 20,000 queued requests ran out of memory). Summed over the steps recorded.
MAX_DETAIL_SEQ_ENTRIES = 3_000_000
# A paged cache of up to MAX_GRID_BLOCKS blocks also lists every block ever touched in each snapshot
# (snapshot.py `_block_state`): one BlockView with its owners plus its block-table entry, measured at ~156 bytes
# (tracemalloc over the chapter 4 preset: 15,764 views in 2.46 MB). 2 M views keep them near 310 MB; a 4,096-block
# cache of 1-token blocks filled for 50,000 steps would have needed 200 M (issue 26: MemoryError at 1.5 GB).
MAX_DETAIL_BLOCK_VIEWS = 2_000_000


def _count_detail(counts: tuple[int, int], ctx: SchedContext, num_block_views: int) -> tuple[int, int]:
    """(queued-sequence entries, block views) recorded so far, this step's included; past a limit, stop the run
    before its snapshots outgrow memory."""
    num_entries, num_views = counts[0] + len(ctx.waiting) + len(ctx.running), counts[1] + num_block_views
    if num_entries > MAX_DETAIL_SEQ_ENTRIES:
        raise SimulationLimitError(
            f"a detailed run records every queued sequence at every step, and this one passed the limit of "
            f"{MAX_DETAIL_SEQ_ENTRIES:,} (steps x queued sequences); use fewer requests or a lower load, or run "
            "without the detailed trace (no --trace-out)")
    if num_views > MAX_DETAIL_BLOCK_VIEWS:
        raise SimulationLimitError(
            f"a detailed run lists every touched KV block at every step, and this one passed the limit of "
            f"{MAX_DETAIL_BLOCK_VIEWS:,} block views (steps x blocks, caches of up to {MAX_GRID_BLOCKS:,} blocks); "
            "use larger or fewer blocks (--block-size, --num-gpu-blocks), fewer requests, or run without the "
            "detailed trace (no --trace-out)")
    return num_entries, num_views


def _check_requests(requests: Sequence[Request]) -> list[Request]:
    if len(requests) > MAX_NUM_REQUESTS:
        raise InputError(f"{len(requests)} requests is over the limit of {MAX_NUM_REQUESTS}")
    ids = [r.request_id for r in requests]
    if len(set(ids)) != len(ids):
        raise InputError("request ids must be unique")
    return sorted(requests, key=lambda r: (r.arrival_s, r.request_id))


def _rejection_reason(config: SimConfig, run: RunState, request: Request) -> str | None:
    """Why a request can never be served by this engine, or None."""
    total = request.prompt_tokens + request.output_tokens
    knobs = run.ctx.knobs
    if total > config.model.max_model_len_tokens:
        return (f"prompt + output = {total} tokens exceeds the model's max length "
                f"{config.model.max_model_len_tokens}")
    if not knobs.chunks_prompts and not request.kv_transferred and request.prompt_tokens > knobs.max_num_batched_tokens:
        return (f"prompt of {request.prompt_tokens} tokens exceeds max_num_batched_tokens="
                f"{knobs.max_num_batched_tokens} and policy {config.scheduler.policy} does not chunk prompts "
                f"(the engine rejects it)")
    forks = config.scheduler.parallel_sampling == "v0-fork-cow"
    if forks and request.n_samples > knobs.max_num_seqs:
        return f"n={request.n_samples} samples exceed max_num_seqs={knobs.max_num_seqs}"
    kv = run.ctx.kv
    need = kv.blocks_for(total - 1)
    if forks:  # alone, the request holds its prompt once plus each sample's generated tail
        need += (request.n_samples - 1) * (kv.blocks_for(total - 1) - kv.blocks_for(request.prompt_tokens) + 1)
    if need > kv.num_total_blocks:
        return f"needs {need} KV blocks even alone, but the cache holds {kv.num_total_blocks}"
    return None


def kv_pool_of(config: SimConfig) -> KvPool:
    """The run's KV pool per GPU by its engine's memory rule (policies/memory.py); config's block size resolved."""
    return policy_entry(config.scheduler.policy).kv_pool(config)


def _context(config: SimConfig, pending: deque[Request], emit, pool: KvPool) -> SchedContext:
    """The scheduler's view of one run: queues, KV manager, resolved knobs and the policy's victim rule."""
    blocks = num_gpu_blocks(config, pool.pool_bytes, pool.knob)
    knobs = resolve_knobs(config, blocks)  # before the manager: it reads the resolved caching
    kv = make_kv_manager(config, list(pending), emit, knobs.prefix_caching, blocks)
    entry = policy_entry(config.scheduler.policy)
    by_priority = config.scheduler.scheduling_policy == "priority"
    victim = entry.priority_victim if by_priority and entry.priority_victim is not None else entry.victim
    # SGLang serves higher values first unless --schedule-low-priority-values-first (PolicyEntry.priority_higher_first)
    higher_first = entry.priority_higher_first and not config.scheduler.schedule_low_priority_values_first
    return SchedContext(running=[], waiting=deque(), kv=kv, scheduler=config.scheduler, knobs=knobs, emit=emit,
                        victim=victim, by_priority=by_priority, priority_sign=-1 if higher_first else 1,
                        lean_kv=fast_kv.is_lean(kv),
                        forks_possible=config.scheduler.parallel_sampling == "v0-fork-cow"
                        and any(r.n_samples > 1 for r in pending))


def _idle_plan(run: RunState, pending: deque[Request], now_s: float, num_idle_plans: int) -> float:
    """A plan with nothing to run: wait for the next arrival, or (safety net) reject a head that can never start
    on an idle engine. Returns the clock."""
    ctx = run.ctx
    if ctx.waiting and not ctx.running and num_idle_plans > 2:
        head = ctx.waiting.popleft()
        reject(run, head.request, "could not be scheduled even on an idle engine", now_s)
    elif pending and not ctx.running:
        now_s = max(now_s, pending[0].arrival_s)
    return now_s


def _check_step_limit(run: RunState, step_limit: int, config: SimConfig) -> None:
    if run.num_steps >= step_limit:
        raise SimulationLimitError(f"simulation stopped at the limit of max_num_steps={step_limit} engine steps"
                                   f"{' (detailed runs)' if step_limit < config.max_num_steps else ''}; "
                                   f"use fewer requests or a larger budget")


def simulate(config: SimConfig, requests: Sequence[Request]) -> Trace:
    """Run the engine over `requests` (ids in arrival order) and return the full trace."""
    config = with_engine_block_size(config)  # block_size None -> the engine's own (vLLM 16, TensorRT-LLM 32)
    pending = deque(_check_requests(requests))
    events: list[object] = []
    emit = events.append if config.record_detail else (lambda event: None)
    pool = kv_pool_of(config)
    ctx = _context(config, pending, emit, pool)
    run = RunState(config=config, ctx=ctx)
    policy = policy_entry(config.scheduler.policy).schedule
    cost_of = make_step_coster(config, ctx.knobs.step_pricing)
    ff = fast_forward.make_fast_forward(config, ctx, cost_of)
    records: list[StepRecord] = []
    now_s, num_idle_plans, detail_counts = 0.0, 0, (0, 0)
    step_limit = min(config.max_num_steps, MAX_DETAIL_STEPS) if config.record_detail else config.max_num_steps
    guard = 2 * step_limit + 4 * len(pending) + 16

    def admit_due(t_s: float) -> float:
        """Admit the arrivals due by t_s (as the loop's head does); the next arrival time."""
        while pending and pending[0].arrival_s <= t_s:
            _arrive(config, run, pending.popleft(), emit, t_s)
        return pending[0].arrival_s if pending else math.inf
    for _ in range(guard):  # bounded; real steps are also capped below
        next_arrival_s = admit_due(now_s)
        if not ctx.running and not ctx.waiting:
            if not pending:
                break
            now_s = next_arrival_s  # idle: jump to the next arrival
            continue
        if ff is not None:  # steady decode-only stretch: same results, O(1) work per step
            ff_end_s = fast_forward.advance(ff, run, now_s, admit_due, step_limit)
            if ff_end_s is not None:
                now_s, num_idle_plans = ff_end_s, 0  # it ran steps, as the exact loop's non-idle plans would
                continue
        num_active = len(ctx.running) + len(ctx.waiting)  # the requests this plan's scheduling walks (host time)
        plan = policy(ctx)
        for seq, reason in plan.rejected:
            reject(run, seq.request, reason, now_s)
        if not plan.items:
            num_idle_plans += 1
            now_s = _idle_plan(run, pending, now_s, num_idle_plans)
            continue
        num_idle_plans = 0
        _check_step_limit(run, step_limit, config)
        now_s, record = _step(run, plan, cost_of, now_s, num_active)
        if config.record_detail:
            records.append(record(tuple(events)))
            events.clear()
            detail_counts = _count_detail(detail_counts, ctx, len(records[-1].snapshot.blocks))
    else:
        raise SimulationLimitError(f"simulation loop exceeded its bound of {guard} iterations")
    if ff is not None:
        fast_forward.finalize(ff, run)
    used_pool_bytes = pool.pool_bytes if config.cache.num_gpu_blocks is None else \
        round(ctx.kv.num_total_blocks * config.cache.block_size * kv_bytes_per_token_per_gpu(config))
    return run.to_trace(tuple(records), now_s, tuple(knob_notes(config, ctx.knobs, ctx.kv.num_total_blocks)),
                        used_pool_bytes)


def _step(run: RunState, plan, cost_of, now_s: float, num_active: int):
    """Price and apply one planned step (`num_active`: running + waiting requests when it was planned); returns its
    end time and, for detailed runs, a builder of its StepRecord from the step's events. The decision is taken
    before the plan is applied (it reads the queues as planned)."""
    ctx = run.ctx
    if not run.config.record_detail:  # metrics-only runs (the hot path): the price's three figures, no objects
        terms = cost_of.terms(*step_shape(plan.items), num_active)
        end_s = now_s + terms[5]
        _count_stalls(run, _stalled(plan, ctx.running))
        apply_plan(run, plan, now_s, end_s)
        run.record_step(terms[5], terms[8], terms[9])  # StepCost's total_s, mfu, mbu
        return end_s, None
    chunks = scheduled_chunks(plan.items)
    cost = cost_of(StepShape(*step_shape(plan.items)), num_active)
    start_s, end_s = now_s, now_s + cost.total_s
    stalled = _stalled(plan, ctx.running)
    decision = decide(ctx, plan, stalled)
    _count_stalls(run, stalled)
    apply_plan(run, plan, start_s, end_s)
    run.record_step(cost.total_s, cost.mfu, cost.mbu)

    def record(events: tuple) -> StepRecord:
        kv = ctx.kv
        return StepRecord(
            step=run.num_steps - 1, start_s=start_s, duration_s=cost.total_s, chunks=chunks, cost=cost,
            events=events, num_waiting=len(ctx.waiting), num_running=len(ctx.running),
            num_used_blocks=kv.num_used_blocks(), num_stalled_decodes=len(stalled),
            snapshot=take_snapshot(ctx.waiting, ctx.running, kv), decision=decision)
    return end_s, record


def _count_stalls(run: RunState, stalled: list[SeqState]) -> None:
    if stalled:
        run.num_stall_steps += 1
        run.ctx.emit(DecodeStalled(tuple(sorted({s.request.request_id for s in stalled}))))


def _stalled(plan, running: list[SeqState]) -> list[SeqState]:
    """Decode-ready sequences that stay running but got no token this step (planning changes no progress, so
    readiness is the same as before the step; preempted sequences have left `running`)."""
    if len(plan.items) >= len(running):
        return []  # everyone running was scheduled: the common pure-decode step
    scheduled = {id(s) for s, _ in plan.items}
    return [s for s in running if id(s) not in scheduled and s.is_decode_ready]


def _arrive(config: SimConfig, run: RunState, request: Request, emit, now_s: float) -> None:
    emit(Arrived(request.request_id, request.prompt_tokens, request.output_tokens))
    run.register(request)
    reason = _rejection_reason(config, run, request)
    if reason is not None:
        reject(run, request, reason, now_s)
        return
    run.seqs[request.request_id] = seqs = _sequences(config, request)
    if request.kv_transferred and not _first_token_from_decode(config):  # it came with the KV (deployment.py)
        run.first_token_s[request.request_id] = request.arrival_s
    for seq in seqs:
        add_waiting(run.ctx, seq)


def _first_token_from_decode(config: SimConfig) -> bool:
    return policy_entry(config.scheduler.policy).pd_first_token_from_decode


def _sequences(config: SimConfig, request: Request) -> list[SeqState]:
    """vLLM V1 parallel sampling (ParentRequest / v1 engine processor): n child requests that each run on their
    own and share full prompt blocks only through the prefix cache; V0 (and the PagedAttention paper): one
    sequence that forks n - 1 samples after the prompt and shares every block with copy-on-write."""
    detail = config.record_detail
    n = request.n_samples
    if request.kv_transferred and _first_token_from_decode(config):
        # vLLM: the prompt's KV is here but the decode side's first step recomputes its last token and samples the
        # client's token 1 (PolicyEntry.pd_first_token_from_decode); every output token is the decode side's.
        return [SeqState(request=request, kv_transferred_tokens=request.prompt_tokens - 1,
                         token_times_s=[] if detail else None)]
    if request.kv_transferred:  # prompt in the cache and first token sampled elsewhere: it waits to decode
        return [SeqState(request=request, num_output_tokens=1, kv_transferred_tokens=request.prompt_tokens,
                         last_token_s=request.arrival_s, token_times_s=[request.arrival_s] if detail else None)]
    if n > 1 and config.scheduler.parallel_sampling == "v1-children":
        return [SeqState(request=request, sample_index=i, token_times_s=[] if detail else None) for i in range(n)]
    return [SeqState(request=request, token_times_s=[] if detail else None, num_forks_pending=n - 1)]
