"""The step loop: admit arrivals, plan a batch, cost it, advance the clock, apply; jump over idle time.

Invariant: the clock never moves backwards, every request ends finished or rejected with a reason, and the loop
runs at most `max_num_steps` engine steps (then SimulationLimitError names the limit).
"""

from __future__ import annotations

from collections import deque
from typing import Sequence

from chunkviz.config import SimConfig
from chunkviz.simulator.apply import RunState, apply_plan, reject, shape_and_chunks
from chunkviz.errors import InputError, SimulationLimitError
from chunkviz.simulator.decision import decide
from chunkviz.simulator.events import Arrived, DecodeStalled
from chunkviz.simulator.kv.setup import make_kv_manager
from chunkviz.cost.profiled import make_step_coster
from chunkviz.request import Request
from chunkviz.simulator.sched_common import SchedContext
from chunkviz.simulator.scheduler import POLICIES
from chunkviz.simulator.sequence import SeqState
from chunkviz.simulator.snapshot import take_snapshot
from chunkviz.simulator.trace import StepRecord, Trace

MAX_NUM_REQUESTS = 200_000
# Detailed runs keep a snapshot per step; past this many steps they would need gigabytes, so they stop early.
MAX_DETAIL_STEPS = 50_000


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
    if total > config.model.max_model_len_tokens:
        return (f"prompt + output = {total} tokens exceeds the model's max length "
                f"{config.model.max_model_len_tokens}")
    if not config.scheduler.enable_chunked_prefill and request.prompt_tokens > run.ctx.budget_tokens:
        return (f"prompt of {request.prompt_tokens} tokens exceeds max_num_batched_tokens={run.ctx.budget_tokens} "
                f"and chunked prefill is off (vLLM rejects it)")
    if request.n_samples > config.scheduler.max_num_seqs:
        return f"n={request.n_samples} samples exceed max_num_seqs={config.scheduler.max_num_seqs}"
    kv = run.ctx.kv
    # Alone, the request holds its prompt once plus each sample's generated tail (prompt shared after the fork).
    prompt_blocks = kv.blocks_for(request.prompt_tokens)
    need = kv.blocks_for(total - 1) + (request.n_samples - 1) * (kv.blocks_for(total - 1) - prompt_blocks + 1)
    if need > kv.num_total_blocks:
        return f"needs {need} KV blocks even alone, but the cache holds {kv.num_total_blocks}"
    return None


def _reserves_prompt(config: SimConfig) -> bool:
    """Whether admission takes blocks for the whole prompt at once.

    SGLang's PrefillAdder admits a request only when its whole input fits in the KV pool (costmodel.md §2.4);
    without that, a chunked prompt that outgrows memory preempts itself while decodes wait, for ever.
    """
    return config.cache.allocation == "reserve" or config.scheduler.policy == "sglang"


def simulate(config: SimConfig, requests: Sequence[Request]) -> Trace:
    """Run the engine over `requests` (ids in arrival order) and return the full trace."""
    pending = deque(_check_requests(requests))
    events: list[object] = []
    emit = events.append if config.record_detail else (lambda event: None)
    kv = make_kv_manager(config, list(pending), emit)
    ctx = SchedContext(running=[], waiting=deque(), kv=kv, scheduler=config.scheduler,
                       budget_tokens=config.budget_tokens, reserve_prompt=_reserves_prompt(config),
                       emit=emit, admit_counter=[0])
    run = RunState(config=config, ctx=ctx)
    policy = POLICIES[config.scheduler.policy]
    cost_of = make_step_coster(config)
    records: list[StepRecord] = []
    now_s, num_idle_plans = 0.0, 0
    step_limit = min(config.max_num_steps, MAX_DETAIL_STEPS) if config.record_detail else config.max_num_steps
    guard = 2 * step_limit + 4 * len(pending) + 16
    for _ in range(guard):  # bounded; real steps are also capped below
        while pending and pending[0].arrival_s <= now_s:
            _arrive(config, run, pending.popleft(), emit, now_s)
        if not ctx.running and not ctx.waiting:
            if not pending:
                break
            now_s = pending[0].arrival_s  # idle: jump to the next arrival
            continue
        plan = policy(ctx)
        for seq, reason in plan.rejected:
            reject(run, seq.request, reason, now_s)
        if not plan.items:
            num_idle_plans += 1
            if ctx.waiting and not ctx.running and num_idle_plans > 2:
                # Safety net: nothing runs and the head still cannot start, so it never will.
                head = ctx.waiting.popleft()
                reject(run, head.request, "could not be scheduled even on an idle engine", now_s)
            elif pending and not ctx.running:
                now_s = max(now_s, pending[0].arrival_s)
            continue
        num_idle_plans = 0
        if run.num_steps >= step_limit:
            raise SimulationLimitError(f"simulation stopped at the limit of max_num_steps={step_limit} engine steps"
                                       f"{' (detailed runs)' if step_limit < config.max_num_steps else ''}; "
                                       f"use fewer requests or a larger budget")
        shape, chunks = shape_and_chunks(plan, config.record_detail)
        cost = cost_of(shape)
        start_s, now_s = now_s, now_s + cost.total_s
        stalled = _stalled(plan, ctx.running)
        decision = decide(ctx, plan, stalled) if config.record_detail else None
        if stalled:
            run.num_stall_steps += 1
            emit(DecodeStalled(tuple(sorted({s.request.request_id for s in stalled}))))
        apply_plan(run, plan, start_s, now_s)
        run.record_step(cost, len(stalled))
        if config.record_detail:
            records.append(StepRecord(
                step=run.num_steps - 1, start_s=start_s, duration_s=cost.total_s, chunks=chunks, cost=cost,
                events=tuple(events), num_waiting=len(ctx.waiting), num_running=len(ctx.running),
                num_used_blocks=kv.num_used_blocks(), num_stalled_decodes=len(stalled),
                snapshot=take_snapshot(ctx.waiting, ctx.running, kv), decision=decision))
            events.clear()
    else:
        raise SimulationLimitError(f"simulation loop exceeded its bound of {guard} iterations")
    return run.to_trace(tuple(records), now_s)


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
    seq = SeqState(request=request, token_times_s=[] if config.record_detail else None)
    run.seqs[request.request_id] = [seq]
    run.ctx.waiting.append(seq)
