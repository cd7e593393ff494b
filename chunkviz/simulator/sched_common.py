"""Policy-free scheduling mechanics shared by every policy: allocation, preemption by recompute, admission.

Invariant: a sequence is in exactly one of waiting or running; a step's planned tokens never exceed the budget.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Callable

from chunkviz.config import SchedulerConfig
from chunkviz.simulator.events import Admitted, Preempted
from chunkviz.simulator.kv.manager import KvManager
from chunkviz.simulator.sequence import SeqState


@dataclass(slots=True)
class Plan:
    items: list[tuple[SeqState, int]] = field(default_factory=list)
    preempted: list[SeqState] = field(default_factory=list)
    rejected: list[tuple[SeqState, str]] = field(default_factory=list)

    @property
    def num_tokens(self) -> int:
        return sum(n for _, n in self.items)


@dataclass(slots=True)
class SchedContext:
    """What a policy may look at and change in one call."""

    running: list[SeqState]
    waiting: deque[SeqState]
    kv: KvManager
    scheduler: SchedulerConfig
    budget_tokens: int
    reserve_prompt: bool
    emit: Callable[[object], None]
    admit_counter: list[int]  # one-element box so admission order survives across steps


def cap_chunk(ctx: SchedContext, want_tokens: int) -> int:
    """vLLM's long_prefill_token_threshold: no prompt takes more than this many tokens of one step."""
    threshold = ctx.scheduler.long_prefill_token_threshold
    return min(want_tokens, threshold) if threshold > 0 else want_tokens


def allocate(ctx: SchedContext, seq: SeqState, num_new_tokens: int, hit_ids: list[int] = ()) -> bool:
    target = seq.num_computed_tokens + num_new_tokens
    if ctx.reserve_prompt and not seq.is_decode_ready:
        # v0 / Sarathi: a prompt's blocks (and a recompute's) are all reserved when it is first scheduled.
        target = max(target, seq.num_tokens)
    ok = ctx.kv.allocate(seq.key, seq.num_computed_tokens, target, hit_ids)
    if ok:  # whole blocks: the capacity reaches the end of the last block allocated
        block_size = ctx.kv.block_size
        seq.kv_capacity_tokens = max(seq.kv_capacity_tokens, -(-target // block_size) * block_size)
    return ok


def preempt(ctx: SchedContext, plan: Plan, victim: SeqState) -> None:
    """Recompute preemption (vLLM v1): free the KV, forget progress, go back to the head of the queue."""
    ctx.running.remove(victim)
    # A victim planned earlier in this step (possible in SGLang's mixed batches) loses those tokens too.
    plan.items[:] = [(s, n) for s, n in plan.items if s is not victim]
    freed = ctx.kv.free(victim.key)
    victim.num_computed_tokens = 0
    victim.kv_capacity_tokens = 0
    victim.num_preemptions += 1
    ctx.waiting.appendleft(victim)
    plan.preempted.append(victim)
    ctx.emit(Preempted(victim.request.request_id, victim.sample_index, freed))


def allocate_or_preempt(ctx: SchedContext, plan: Plan, seq: SeqState, num_new_tokens: int) -> bool:
    """Allocate for a running sequence, preempting the most recently admitted until it fits; False if seq itself went."""
    while not allocate(ctx, seq, num_new_tokens):  # bounded: each pass removes one running sequence
        victim = ctx.running[-1]
        preempt(ctx, plan, victim)
        if victim is seq:
            return False
    return True


def schedule_running(ctx: SchedContext, plan: Plan, budget: int) -> int:
    """Give running sequences their tokens in list order (decodes cost 1); returns the budget left."""
    index, running, items = 0, ctx.running, plan.items
    # cap_chunk's rule, inlined: this loop runs once per running sequence per step in 20k-request runs.
    threshold = ctx.scheduler.long_prefill_token_threshold or budget
    # Metrics-only runs count blocks without identities: a sequence whose blocks already cover this step's tokens
    # needs no allocation call at all (the common decode), which keeps 20k-request runs fast. Paged runs always
    # call allocate, which may have to copy a shared block first.
    fast = hasattr(ctx.kv, "num_seq_blocks")
    while index < len(running) and budget > 0:  # bounded: index grows or the list shrinks
        seq = running[index]
        want = min(seq.num_tokens - seq.num_computed_tokens, threshold, budget)
        covered = fast and seq.num_computed_tokens + want <= seq.kv_capacity_tokens
        if not covered and not allocate_or_preempt(ctx, plan, seq, want):
            break
        items.append((seq, want))
        budget -= want
        index += 1
    return budget


def admit_waiting(ctx: SchedContext, plan: Plan, budget: int, allow_chunk: bool) -> int:
    """Admit waiting sequences FCFS; the last may be chunked to fill the budget when allow_chunk; returns budget left."""
    while ctx.waiting and budget > 0:
        seq = ctx.waiting[0]
        if len(ctx.running) + seq.seats_needed > ctx.scheduler.max_num_seqs:
            break
        # The hit is capped at num_tokens - 1 so the last prompt token is computed and yields logits (vLLM, SGLang).
        hit_ids = ctx.kv.find_prefix_hit(seq.content, seq.num_tokens - 1)
        hit_tokens = len(hit_ids) * ctx.kv.block_size
        want = cap_chunk(ctx, seq.num_tokens - hit_tokens)
        if want > budget and not allow_chunk:
            if not plan.items and want > ctx.budget_tokens:
                ctx.waiting.popleft()
                plan.rejected.append((seq, f"needs {want} tokens in one step but max_num_batched_tokens is "
                                           f"{ctx.budget_tokens} and chunked prefill is off"))
                continue
            break  # head-of-line blocking, as vLLM without chunking
        want = min(want, budget)
        seq.num_computed_tokens = hit_tokens
        if not allocate(ctx, seq, want, hit_ids):
            seq.num_computed_tokens = 0
            break  # waiting requests never preempt running ones
        ctx.waiting.popleft()
        ctx.running.append(seq)
        ctx.admit_counter[0] += 1
        seq.admit_seq_no = ctx.admit_counter[0]
        seq.prefix_hit_tokens += hit_tokens
        seq.prefix_query_tokens += seq.num_tokens
        ctx.emit(Admitted(seq.request.request_id, seq.sample_index, hit_tokens))
        plan.items.append((seq, want))
        budget -= want
    return budget
