"""The KV stage's run data in a compact per-step encoding: block states, block tables and the free-queue head as
deltas against the previous step, plus the step's changes and caption items, all JSON-ready lists of ints.

Invariant: pure; replaying the deltas from the all-free state (every block: owner -1, ref 0, not cached, 0 tokens)
gives exactly each step's snapshot (tests/test_kv_stage.py replays them); the run's data is sent once, so its size
grows with what changes, not with steps × blocks.
"""

from __future__ import annotations

from chunkviz.lessons.kv_stage import CHANGE_KINDS, StepChanges, steps_with, trace_changes
from chunkviz.simulator.trace import Snapshot, Trace

BLOCK_FIELDS = ("block", "owner", "sample", "ref", "cached", "filled")  # one changed block = 6 ints in "blocks"
EMPTY_BLOCK = (-1, 0, 0, 0, 0)  # owner, sample, ref, cached, filled of a block never handed out
JUMP_KINDS = ("hit", "cow", "evict", "preempt")  # the stage's bookmarks: next step with one of these


def _block_state(snap: Snapshot | None) -> dict[int, tuple[int, int, int, int, int]]:
    """block id -> (oldest owner's request or -1, its sample, ref count, cached 0/1, tokens filled)."""
    if snap is None:
        return {}
    return {b.block_id: ((b.owners[0][0], b.owners[0][1]) if b.owners else (-1, 0))
            + (b.ref_count, int(b.key is not None), b.num_filled_tokens) for b in snap.blocks}


def block_deltas(trace: Trace) -> list[list[int]]:
    """Per step, the blocks whose state differs from the step before, flattened as BLOCK_FIELDS."""
    out, before = [], {}
    for record in trace.steps:
        now = _block_state(record.snapshot)
        delta = []
        for block_id in sorted(set(now) | set(before)):
            state = now.get(block_id, EMPTY_BLOCK)
            if state != before.get(block_id, EMPTY_BLOCK):
                delta += [block_id, *state]
        out.append(delta)
        before = now
    return out


def table_deltas(trace: Trace) -> list[list]:
    """Per step, [request, sample, [physical ids in logical order]] for each table that changed, and
    [request, sample, None] for each table that is gone."""
    out, before = [], {}
    for record in trace.steps:
        tables = record.snapshot.block_tables if record.snapshot is not None else ()
        now = {(rid, sample): list(ids) for rid, sample, ids in tables}
        delta = [[rid, sample, ids] for (rid, sample), ids in now.items() if before.get((rid, sample)) != ids]
        delta += [[rid, sample, None] for rid, sample in before if (rid, sample) not in now]
        out.append(sorted(delta, key=lambda row: (row[0], row[1])))
        before = now
    return out


def free_head_deltas(trace: Trace) -> list[list[int] | None]:
    """Per step, the free queue's head (next reused first), or None where it equals the step before."""
    out: list[list[int] | None] = []
    before: list[int] | None = None
    for record in trace.steps:
        head = list(record.snapshot.free_queue_head) if record.snapshot is not None else []
        out.append(None if head == before else head)
        before = head
    return out


def _change_codes(changes: StepChanges) -> list[int]:
    """[block, bitmask of CHANGE_KINDS, ...]: bit k set when the block had CHANGE_KINDS[k] in this step."""
    flat = []
    for c in changes.changes:
        flat += [c.block_id, sum(1 << CHANGE_KINDS.index(k) for k in c.kinds)]
    return flat


def _caption_rows(changes: StepChanges) -> list[dict]:
    rows = []
    for item in changes.captions:
        row = {"k": item.kind, "r": item.request_id, "s": item.sample_index, "b": list(item.block_ids)}
        extra = {"tok": item.hit_tokens, "from": item.from_block, "for": item.for_request, "cached": item.num_cached,
                 "kept": item.num_kept, "rej": int(item.rejected)}
        row.update({k: v for k, v in extra.items() if v})  # 0 and None are left out: the data stays small
        rows.append(row)
    return rows


def stage_columns(trace: Trace) -> dict:
    """Everything per step the KV stage draws, without texts (the UI adds those in its language)."""
    changes = trace_changes(trace)
    steps = trace.steps
    return {"num_blocks": trace.num_gpu_blocks, "block_size": trace.block_size,
            "step": [r.step for r in steps], "end_ms": [round((r.start_s + r.duration_s) * 1e3, 4) for r in steps],
            "used": [r.num_used_blocks for r in steps],
            "dur_ms": [round(r.duration_s * 1e3, 3) for r in steps],
            "dec": [sum(c.num_tokens for c in r.chunks if c.phase == "decode") for r in steps],
            "pre": [sum(c.num_tokens for c in r.chunks if c.phase == "prefill") for r in steps],
            "blocks": block_deltas(trace), "tables": table_deltas(trace),
            "free_head": free_head_deltas(trace), "changes": [_change_codes(c) for c in changes],
            "captions": [_caption_rows(c) for c in changes],
            "jumps": {kind: list(steps_with(changes, kind)) for kind in JUMP_KINDS}}
