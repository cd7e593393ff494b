"""What changed in the KV cache at each step, for the KV stage: which blocks were allocated, hit, copied on write,
evicted, freed or shared by a fork, and the caption items that say which and why.

Invariant: pure and deterministic (a function of the trace alone); one StepChanges per trace step, in order; every
block id named comes from that step's events, and a block's change kinds follow CHANGE_KINDS order. The rules are
the block manager's (chunkviz/simulator/kv/blocks.py): lazy eviction inside _pop_free_block (so an Evicted event
is followed by the Allocated or CopyOnWrite event of the sequence that reused the block), free() releasing a table
tail first and emitting Freed, and sched_common.preempt() emitting Preempted right after that Freed.
"""

from __future__ import annotations

from dataclasses import dataclass

from chunkviz.simulator.trace import Snapshot, StepRecord, Trace

# Codes in the stage's payload are indices into this tuple (stable: the JS legend is ordered by it).
CHANGE_KINDS: tuple[str, ...] = ("alloc", "hit", "cow", "evict", "free", "unref", "preempt", "fork")
# Caption order: what a learner should read first when a step is busy (as ui/explain.py ranks its sentences).
CAPTION_RANK: dict[str, int] = {"preempt": 0, "cow": 1, "hit": 2, "evict": 3, "fork": 4, "alloc": 5, "free": 6,
                                "none": 9}
SeqKey = tuple[int, int]


@dataclass(frozen=True, slots=True)
class BlockChange:
    block_id: int
    kinds: tuple[str, ...]  # in CHANGE_KINDS order; a reused evicted block is ("alloc", "evict")


@dataclass(frozen=True, slots=True)
class CaptionItem:
    """One clause of a step's caption: a kind, whose sequence, which blocks, and the fields its sentence needs."""

    kind: str  # a CAPTION_RANK key
    request_id: int | None
    sample_index: int
    block_ids: tuple[int, ...]
    hit_tokens: int = 0  # "hit": prompt tokens whose KV was found in the cache
    from_block: int | None = None  # "cow": the shared block the sample was about to write into
    for_request: int | None = None  # "evict": the request whose allocation reused the evicted blocks
    num_cached: int = 0  # "free"/"preempt": freed blocks that keep their prefix key (reusable until evicted)
    num_kept: int = 0  # "free"/"preempt": blocks still held by another table, so not freed yet
    rejected: bool = False  # "free": the request was rejected (apply.reject frees its blocks), not finished


@dataclass(frozen=True, slots=True)
class StepChanges:
    changes: tuple[BlockChange, ...]  # by block id
    captions: tuple[CaptionItem, ...]  # most important first; ("none",) on a step that changed no block


def _replay(record: StepRecord, before: Snapshot | None) -> tuple[dict[int, frozenset[int]], dict[int, tuple]]:
    """Replays the step's events on the ref counts and tables after the step before, as the block manager applied
    them: for each Freed event (by position) the blocks whose last reference it dropped (they joined the free
    queue, even if reused later in the same step), and for each Forked event the parent's table it shared."""
    refs = {b.block_id: b.ref_count for b in before.blocks} if before is not None else {}
    tables = {(r, s): list(ids) for r, s, ids in before.block_tables} if before is not None else {}
    released: dict[int, frozenset[int]] = {}
    forked: dict[int, tuple] = {}
    for n, e in enumerate(record.events):
        if e.kind in ("Allocated", "PrefixHit"):  # allocate(): hits are taken first, then new blocks from the head
            for b in e.block_ids:
                refs[b] = 1 if e.kind == "Allocated" else refs.get(b, 0) + 1
            tables.setdefault((e.request_id, e.sample_index), []).extend(e.block_ids)
        elif e.kind == "CopyOnWrite":
            refs[e.from_block], refs[e.to_block] = refs.get(e.from_block, 1) - 1, 1
            table = tables.get((e.request_id, e.sample_index), [])
            if e.from_block in table:
                table[table.index(e.from_block)] = e.to_block
        elif e.kind == "Forked":  # BlockManager.fork: every sample 1..n-1 shares the parent's whole table
            parent = tables.get((e.request_id, 0), [])
            forked[n] = tuple(parent)
            for b in parent:
                refs[b] = refs.get(b, 0) + e.num_samples - 1
            for sample in range(1, e.num_samples):
                tables[(e.request_id, sample)] = list(parent)
        elif e.kind == "Freed":
            released[n] = frozenset(b for b in e.block_ids if refs.get(b, 0) <= 1)
            for b in e.block_ids:
                refs[b] = refs.get(b, 0) - 1
            tables.pop((e.request_id, e.sample_index), None)
    return released, forked


def _freed_items(record: StepRecord, released: dict[int, frozenset[int]], marks: dict[int, set[str]]) -> list:
    """Freed events become 'free' or 'preempt' items; blocks another table still holds only lose a reference."""
    preempted = {(e.request_id, e.sample_index) for e in record.events if e.kind == "Preempted"}
    rejected = {e.request_id for e in record.events if e.kind == "Rejected"}
    evicted_at = {e.block_id: n for n, e in enumerate(record.events) if e.kind == "Evicted"}
    keyed = {b.block_id for b in record.snapshot.blocks if b.key is not None} if record.snapshot else set()
    items = []
    for n, e in enumerate(record.events):
        if e.kind != "Freed":
            continue
        kind = "preempt" if (e.request_id, e.sample_index) in preempted else "free"
        freed = released[n]
        for b in e.block_ids:
            marks.setdefault(b, set()).add(kind if b in freed else "unref")
        items.append(CaptionItem(kind, e.request_id, e.sample_index, tuple(e.block_ids),
                                 # a key dies only when its block is reused (lazy eviction), maybe later on
                                 num_cached=sum(1 for b in freed if b in keyed or evicted_at.get(b, -1) > n),
                                 num_kept=len(e.block_ids) - len(freed), rejected=e.request_id in rejected))
    return items


def _evict_items(record: StepRecord, marks: dict[int, set[str]]) -> list[CaptionItem]:
    """Consecutive evictions grouped by the sequence whose next allocation (or copy) reused those blocks."""
    items, pending = [], []
    for e in record.events:
        if e.kind == "Evicted":
            pending.append(e.block_id)
            marks.setdefault(e.block_id, set()).add("evict")
        elif e.kind in ("Allocated", "CopyOnWrite") and pending:
            items.append(CaptionItem("evict", None, 0, tuple(pending), for_request=e.request_id))
            pending = []
    if pending:  # not expected (an eviction always serves an allocation), but never dropped silently
        items.append(CaptionItem("evict", None, 0, tuple(pending)))
    return items


def _seq_items(record: StepRecord, forked: dict[int, tuple], marks: dict[int, set[str]]) -> list[CaptionItem]:
    """Allocations (merged per sequence), prefix hits, copies on write and forks."""
    items: list[CaptionItem] = []
    allocated: dict[SeqKey, list[int]] = {}
    for n, e in enumerate(record.events):
        if e.kind == "Allocated":
            allocated.setdefault((e.request_id, e.sample_index), []).extend(e.block_ids)
        elif e.kind == "PrefixHit":
            items.append(CaptionItem("hit", e.request_id, e.sample_index, tuple(e.block_ids), hit_tokens=e.hit_tokens))
            for b in e.block_ids:
                marks.setdefault(b, set()).add("hit")
        elif e.kind == "CopyOnWrite":
            items.append(CaptionItem("cow", e.request_id, e.sample_index, (e.to_block,), from_block=e.from_block))
            marks.setdefault(e.to_block, set()).add("cow")
        elif e.kind == "Forked":
            items.append(CaptionItem("fork", e.request_id, 0, forked[n]))
            for b in forked[n]:
                marks.setdefault(b, set()).add("fork")
    for (rid, sample), ids in allocated.items():
        items.append(CaptionItem("alloc", rid, sample, tuple(ids)))
        for b in ids:
            marks.setdefault(b, set()).add("alloc")
    return items


def step_changes(record: StepRecord, before: Snapshot | None) -> StepChanges:
    """What `record` changed, given the snapshot after the step before (None before the first step)."""
    released, forked = _replay(record, before)
    marks: dict[int, set[str]] = {}
    items = (_seq_items(record, forked, marks) + _evict_items(record, marks)
             + _freed_items(record, released, marks))
    items.sort(key=lambda i: CAPTION_RANK[i.kind])  # stable: events keep their order within a kind
    changes = tuple(BlockChange(b, tuple(k for k in CHANGE_KINDS if k in marks[b])) for b in sorted(marks))
    return StepChanges(changes, tuple(items) or (CaptionItem("none", None, 0, ()),))


def trace_changes(trace: Trace) -> tuple[StepChanges, ...]:
    """One StepChanges per step of a detailed trace (a metrics-only trace has no steps, so none)."""
    befores = (None,) + tuple(r.snapshot for r in trace.steps[:-1])
    return tuple(step_changes(record, before) for record, before in zip(trace.steps, befores))


def steps_with(changes: tuple[StepChanges, ...], kind: str) -> tuple[int, ...]:
    """Indices of the steps with a caption item of `kind` (the stage's bookmarks), ascending."""
    return tuple(i for i, c in enumerate(changes) if any(item.kind == kind for item in c.captions))
