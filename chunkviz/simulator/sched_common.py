"""Policy-free scheduling mechanics shared by every policy: allocation, preemption by recompute, admission.

Invariant: a sequence is in exactly one of waiting or running; a step's planned tokens never exceed the resolved
max_num_batched_tokens; running sequences plus the samples they will fork never exceed max_num_seqs; under the
priority scheduling policy the waiting queue stays sorted by each sequence's wait_key (so its head is served first).
"""

from __future__ import annotations

import bisect
from collections import deque
from dataclasses import dataclass, field
from typing import Callable

from chunkviz.config import SchedulerConfig
from chunkviz.simulator.events import Admitted, Preempted
from chunkviz.simulator.knobs import Knobs
from chunkviz.simulator.kv.manager import KvManager
from chunkviz.simulator.sequence import SeqState

VictimRule = Callable[[list[SeqState]], SeqState]
AdmitCheck = Callable[["SchedContext", SeqState, int], bool]  # (ctx, seq, prefix-hit tokens) -> may it start?
SkipCheck = Callable[["SchedContext", SeqState], bool]  # (ctx, seq) -> pass it over this step, serving those behind
# (ctx, plan, seq) -> the running sequences it preempted to seat seq (none: no room made); SGLang preempt_to_schedule
MakeRoom = Callable[["SchedContext", "Plan", SeqState], list[SeqState]]


@dataclass(slots=True)
class Plan:
    items: list[tuple[SeqState, int]] = field(default_factory=list)
    preempted: list[SeqState] = field(default_factory=list)
    rejected: list[tuple[SeqState, str]] = field(default_factory=list)
    unplanned_tokens: int = 0  # tokens planned for a sequence this step and taken back when it was preempted
    # The admission check that refused the head of the queue, with its arguments (check, seq, prefix-hit tokens), so
    # the step's decision can say why (decision.py reads the check's `explain`); never read by the engine.
    refused: tuple[AdmitCheck, SeqState, int] | None = None

    @property
    def num_tokens(self) -> int:
        return sum(n for _, n in self.items)


def newest_victim(running: list[SeqState]) -> SeqState:
    """vLLM V1 Scheduler.schedule preempts `self.running.pop()`: the most recently admitted runs last."""
    return running[-1]


def lowest_priority_victim(running: list[SeqState]) -> SeqState:
    """vLLM V1 Scheduler.schedule under --scheduling-policy priority: `max(self.running, key=lambda r: (r.priority,
    r.arrival_time))`, the first such in list order on a tie (vllm/v1/core/sched/scheduler.py, read at commit
    00024d31 of vllm-project/vllm)."""
    return max(running, key=lambda s: (s.request.priority, s.request.arrival_s))


@dataclass(slots=True)
class SchedContext:
    """What a policy may look at and change in one call."""

    running: list[SeqState]
    waiting: deque[SeqState]
    kv: KvManager
    scheduler: SchedulerConfig
    knobs: Knobs  # the resolved max_num_batched_tokens, max_num_seqs, threshold and traits of this run
    emit: Callable[[object], None]
    victim: VictimRule = newest_victim
    admit_counter: list[int] = field(default_factory=lambda: [0])  # a box: admission order survives across steps
    policy_state: dict[str, float] = field(default_factory=dict)  # e.g. SGLang's new_token_ratio
    forks_possible: bool = False  # some request forks samples after its prompt (V0-style parallel sampling)
    lean_kv: bool = False  # the kv manager is a LeanPrefixCache: SeqState.kv_cover_limit_tokens is kept
    by_priority: bool = False  # SchedulerConfig.scheduling_policy == "priority": waiting sorted by wait_key
    enqueue_counter: list[int] = field(default_factory=lambda: [0])  # a box: the order requests entered the queue
    priority_sign: int = 1  # -1: higher priority values first (SGLang's default, PolicyEntry.priority_higher_first)

    @property
    def max_num_batched_tokens(self) -> int:
        return self.knobs.max_num_batched_tokens


def cap_chunk(ctx: SchedContext, want_tokens: int) -> int:
    """vLLM's long_prefill_token_threshold: no prompt takes more than this many tokens of one step (0 = off; the
    resolved value is 0 for policies that do not chunk prompts)."""
    threshold = ctx.knobs.long_prefill_token_threshold
    return min(want_tokens, threshold) if threshold > 0 else want_tokens


def allocate(ctx: SchedContext, seq: SeqState, num_new_tokens: int, hit_ids: list[int] = ()) -> bool:
    target = seq.num_computed_tokens + num_new_tokens
    if ctx.lean_kv and target == seq.num_tokens and num_new_tokens == 1 and not hit_ids:
        # A decode (or a prompt's last token) on the lean manager: the calls below in one (grow_one); reserve_prompt
        # changes nothing, the target being num_tokens already.
        limit = ctx.kv.grow_one(seq.key, seq.content, seq.num_computed_tokens)
        if limit < 0:
            return False
        block_size = ctx.kv.block_size
        seq.kv_capacity_tokens = max(seq.kv_capacity_tokens, -(-target // block_size) * block_size)
        seq.kv_cover_limit_tokens = limit
        return True
    if ctx.knobs.reserve_prompt and not seq.is_decode_ready:
        # v0 / Sarathi / SGLang: a prompt's blocks (and a recompute's) are all reserved when it is first scheduled.
        target = max(target, seq.num_tokens)
    kv = ctx.kv
    ok = kv.allocate(seq.key, seq.num_computed_tokens, target, hit_ids)
    if ok:  # whole blocks: the capacity reaches the end of the last block allocated
        block_size = kv.block_size
        seq.kv_capacity_tokens = max(seq.kv_capacity_tokens, -(-target // block_size) * block_size)
        # vLLM V1 allocate_slots -> cache_blocks: keys exist from scheduling on; TensorRT-LLM keys a context's blocks
        # when it is done (apply.apply_plan, Knobs.store_context_blocks_at_end), a decode's as vLLM does.
        if kv.enable_prefix_caching and (seq.is_decode_ready or not ctx.knobs.store_context_blocks_at_end):
            kv.cache_blocks(seq.key, seq.content, seq.num_computed_tokens + num_new_tokens)
        if ctx.lean_kv:
            seq.kv_cover_limit_tokens = kv.cover_limit(seq.key)
    return ok


def add_waiting(ctx: SchedContext, seq: SeqState) -> None:
    """A sequence joins the waiting queue: at its end (FCFS), or under the priority policy at its place by
    (priority, order of entry), which for arrivals is vLLM's heap order ("ordered by (priority, arrival_time)",
    vllm/v1/core/sched/request_queue.py PriorityRequestQueue, commit 0097c7ed; equal arrival times keep the
    engine's arrival order here) and SGLang's sort (schedule_policy.py SchedulePolicy._sort_by_priority_and_fcfs:
    (priority * priority_sign, wait_queue_entry_time), higher values first by default)."""
    ctx.enqueue_counter[0] += 1
    if not ctx.by_priority:
        ctx.waiting.append(seq)
        return
    seq.wait_key = (ctx.priority_sign * seq.request.priority, ctx.enqueue_counter[0])
    _insort_waiting(ctx, seq)


def requeue_last(ctx: SchedContext, seq: SeqState) -> None:
    """A waiting sequence goes to the back of the queue as a new entry (SGLang re-queues a retracted request with a
    new wait_queue_entry_time); under the priority policy, the back of its own priority class."""
    ctx.waiting.remove(seq)
    add_waiting(ctx, seq)


def _insort_waiting(ctx: SchedContext, seq: SeqState) -> None:
    # bisect on the deque: log n lookups, then one insertion (deque.insert); the queue is sorted by wait_key.
    index = bisect.bisect_right(ctx.waiting, seq.wait_key, key=lambda s: s.wait_key)
    ctx.waiting.insert(index, seq)


def preempt(ctx: SchedContext, plan: Plan, victim: SeqState) -> None:
    """Recompute preemption: free the KV, forget progress, go back to the head of the queue (vLLM V1
    Scheduler._preempt_request prepends to waiting); under the priority policy `prepend_request` is a heap push, so
    the victim goes back to its place by its first entry (request_queue.py PriorityRequestQueue.prepend_request)."""
    ctx.running.remove(victim)
    # A victim planned earlier in this step (SGLang's mixed batches; vLLM's priority victim) loses those tokens too.
    planned = [n for s, n in plan.items if s is victim]
    if planned:
        plan.unplanned_tokens += sum(planned)
        plan.items[:] = [(s, n) for s, n in plan.items if s is not victim]
    if ctx.lean_kv:  # it will look its own cached blocks up when it comes back
        ctx.kv.expose_own_keys(victim.key)
    freed = ctx.kv.free(victim.key)
    victim.num_computed_tokens = 0
    victim.kv_capacity_tokens = 0
    victim.kv_cover_limit_tokens = 0
    victim.kv_transferred_tokens = 0  # the received KV went with the blocks: recomputed here, as vLLM's decode side
    victim.num_preemptions += 1
    if ctx.by_priority:
        _insort_waiting(ctx, victim)
    else:
        ctx.waiting.appendleft(victim)
    plan.preempted.append(victim)
    ctx.emit(Preempted(victim.request.request_id, victim.sample_index, freed))


def allocate_or_preempt(ctx: SchedContext, plan: Plan, seq: SeqState, num_new_tokens: int) -> bool:
    """Allocate for a running sequence, preempting the policy's victim until it fits; False if seq itself went."""
    while not allocate(ctx, seq, num_new_tokens):  # bounded: each pass removes one running sequence
        victim = ctx.victim(ctx.running)
        preempt(ctx, plan, victim)
        if victim is seq:
            return False
    return True


def schedule_running(ctx: SchedContext, plan: Plan, tokens_left: int,
                     seqs: list[SeqState] | None = None, chunk_unit_tokens: int = 1) -> int:
    """Give running sequences (or `seqs`, a sublist) their tokens in list order (decodes cost 1); a partial
    prefill chunk is cut to a multiple of chunk_unit_tokens; returns the step's tokens left."""
    index, running, items = 0, ctx.running if seqs is None else seqs, plan.items
    # cap_chunk's rule, inlined: this loop runs once per running sequence per step in 20k-request runs.
    threshold = ctx.knobs.long_prefill_token_threshold or tokens_left
    # Metrics-only runs count blocks without identities: a sequence whose blocks already cover this step's tokens
    # needs no allocation call at all (the common decode), which keeps 20k-request runs fast. Paged runs always
    # call allocate, which may have to copy a shared block first.
    fast = hasattr(ctx.kv, "num_seq_blocks")
    # The paged manager asks whether the step would change any block (a copy, a newly full block to key); a
    # sequence whose whole target (num_tokens, covering reserve_prompt's) lies within its capacity and changes none
    # skips allocate, which would then only re-set the same capacity.
    paged_covers = None if fast else ctx.kv.covers
    lean = ctx.lean_kv  # the lean manager's answer is kept on the sequence (kv_cover_limit_tokens)
    while index < len(running) and tokens_left > 0:  # bounded: index grows or the list shrinks
        seq = running[index]
        if seqs is not None and seq not in ctx.running:  # preempted earlier in this loop (only possible when iterating a sublist)
            index += 1
            continue
        remaining = seq.num_tokens - seq.num_computed_tokens
        # min(remaining, threshold, tokens_left), with a decode's answer (1: both others are positive) up front
        want = 1 if remaining == 1 else min(remaining, threshold, tokens_left)
        if chunk_unit_tokens > 1 and want < remaining:
            want -= want % chunk_unit_tokens
            if want == 0:
                index += 1
                continue
        if fast:
            covered = seq.num_computed_tokens + want <= seq.kv_capacity_tokens
        elif lean:
            covered = (seq.num_tokens <= seq.kv_capacity_tokens
                       and seq.num_computed_tokens + want <= seq.kv_cover_limit_tokens)
        else:
            covered = (seq.num_tokens <= seq.kv_capacity_tokens
                       and paged_covers(seq.key, seq.num_computed_tokens, seq.num_computed_tokens + want))
        if not covered:
            unplanned = plan.unplanned_tokens
            if not allocate_or_preempt(ctx, plan, seq, want):
                if seqs is None:
                    break
                continue
            if ctx.by_priority and seqs is None and plan.unplanned_tokens != unplanned:
                # vLLM's priority victim may have been scheduled earlier in this step: its tokens go back to the
                # budget and the loop's index steps back (Scheduler.schedule: `token_budget += ...; req_index -= 1`).
                tokens_left += plan.unplanned_tokens - unplanned
                index = running.index(seq)
        items.append((seq, want))
        tokens_left -= want
        index += 1
    return tokens_left


def seats_taken(ctx: SchedContext) -> int:
    """Running sequences plus the samples a running V0-style parent will still fork (vLLM V0 counts a group's
    get_max_num_running_seqs() against max_num_seqs at admission)."""
    if not ctx.forks_possible:  # the common case costs nothing per step
        return len(ctx.running)
    return len(ctx.running) + sum(s.num_forks_pending for s in ctx.running)


def admit_one(ctx: SchedContext, plan: Plan, seq: SeqState, num_new_tokens: int, hit_ids: list[int]) -> bool:
    """Move the head of the queue to running with `num_new_tokens` scheduled; False (nothing changed) if its
    blocks do not fit. Waiting requests never preempt running ones."""
    hit_tokens = len(hit_ids) * ctx.kv.block_size
    # A transferred prompt is already computed (vLLM: the connector's tokens count as computed before scheduling).
    seq.num_computed_tokens = max(hit_tokens, seq.kv_transferred_tokens)
    if not allocate(ctx, seq, num_new_tokens, hit_ids):
        seq.num_computed_tokens = 0
        return False
    if seq.kv_transferred_tokens > hit_tokens and ctx.kv.tracks_content:
        # The connector wrote the prompt's KV into the blocks (vLLM caches them on receipt,
        # Scheduler._update_waiting_for_remote_kv -> cache_blocks).
        ctx.kv.on_computed(seq.key, seq.content, hit_tokens, seq.kv_transferred_tokens)
    ctx.waiting.popleft()
    ctx.running.append(seq)
    ctx.admit_counter[0] += 1
    seq.admit_seq_no = ctx.admit_counter[0]
    # vLLM records prefix-cache statistics only when caching is on: KVCacheManager.get_computed_blocks returns before
    # touching prefix_cache_stats when `not self.enable_caching` (vllm/v1/core/kv_cache_manager.py), so a run with
    # caching off reports no lookups at all, not lookups that all missed.
    if ctx.kv.enable_prefix_caching:
        if seq.num_preemptions:  # vLLM counts preempted re-admissions apart (PrefixCacheStats.preempted_*)
            seq.prefix_hit_tokens_readmitted += hit_tokens
            seq.prefix_query_tokens_readmitted += seq.num_tokens
        else:
            seq.prefix_hit_tokens += hit_tokens
            seq.prefix_query_tokens += seq.num_tokens
    ctx.emit(Admitted(seq.request.request_id, seq.sample_index, hit_tokens))
    plan.items.append((seq, num_new_tokens))
    return True


def prefix_hit(ctx: SchedContext, seq: SeqState) -> list[int]:
    """Cached blocks for the head of the queue; the hit is capped at num_tokens - 1 so the last prompt token is
    computed and yields logits (vLLM KVCacheManager.get_computed_blocks, SGLang match_prefix)."""
    return ctx.kv.find_prefix_hit(seq.content, seq.num_tokens - 1)


def admit_waiting(ctx: SchedContext, plan: Plan, tokens_left: int, allow_chunk: bool,
                  can_admit: AdmitCheck | None = None, chunk_unit_tokens: int = 1, skip: SkipCheck | None = None,
                  make_room: MakeRoom | None = None) -> int:
    """Admit waiting sequences FCFS; the last may be chunked (to a multiple of chunk_unit_tokens) to fill the
    step when allow_chunk; a sequence `skip` passes over stays waiting at its place and the ones behind it are
    served; once the seats are full, each further head is admitted only if `make_room` preempts running sequences
    for it (those re-enter the queue after this step's admissions, as new entries); returns the step's tokens left."""
    skipped: list[SeqState] = []
    made_room: list[SeqState] = []
    try:
        return _admit_waiting(ctx, plan, tokens_left, allow_chunk, can_admit, chunk_unit_tokens, skip, skipped,
                              make_room, made_room)
    finally:
        ctx.waiting.extendleft(reversed(skipped))  # back at the head, in their order
        for victim in made_room:  # SGLang re-queues adder.preempt_list after the loop (_add_request_to_queue)
            add_waiting(ctx, victim)


def _admit_waiting(ctx: SchedContext, plan: Plan, tokens_left: int, allow_chunk: bool, can_admit: AdmitCheck | None,
                   chunk_unit_tokens: int, skip: SkipCheck | None, skipped: list[SeqState],
                   make_room: MakeRoom | None = None, made_room: list[SeqState] | None = None) -> int:
    seats, full = seats_taken(ctx), False
    while ctx.waiting and tokens_left > 0:  # bounded: each pass admits, skips or rejects the head, or breaks
        seq = ctx.waiting[0]
        if full or seats + seq.seats_needed > ctx.knobs.max_num_seqs:
            # SGLang: batch_is_full, once set in the loop, stays set, so every later request must make its own room
            full = True
            victims = make_room(ctx, plan, seq) if make_room is not None else []
            if not victims:
                break
            for victim in victims:  # held out of this step's queue (preempt put them back in it)
                ctx.waiting.remove(victim)
            made_room.extend(victims)
            seats = seats_taken(ctx)
            if seats + seq.seats_needed > ctx.knobs.max_num_seqs:
                break
        if skip is not None and skip(ctx, seq):
            skipped.append(ctx.waiting.popleft())
            continue
        hit_ids = prefix_hit(ctx, seq)
        hit_tokens = len(hit_ids) * ctx.kv.block_size
        want = cap_chunk(ctx, seq.num_tokens - max(hit_tokens, seq.kv_transferred_tokens))
        if want > tokens_left and not allow_chunk:
            if not plan.items and want > ctx.max_num_batched_tokens:
                ctx.waiting.popleft()
                plan.rejected.append((seq, f"needs {want} tokens in one step but max_num_batched_tokens is "
                                           f"{ctx.max_num_batched_tokens} and the policy does not chunk prompts"))
                continue
            break  # head-of-line blocking (vLLM V1: "If chunked_prefill is disabled, we can stop the scheduling")
        if can_admit is not None and not can_admit(ctx, seq, hit_tokens):
            plan.refused = (can_admit, seq, hit_tokens)
            break
        if want > tokens_left:
            want = tokens_left - tokens_left % chunk_unit_tokens
            if want <= 0:
                break
        seats_before = seq.seats_needed
        if not admit_one(ctx, plan, seq, want, hit_ids):
            break
        seats += seats_before
        tokens_left -= want
    return tokens_left
