"""Builds the frozen Snapshot of engine state after a step (for playback).

Invariant: a snapshot is a copy; nothing in it refers to live engine objects.
"""

from __future__ import annotations

from itertools import islice
from typing import Sequence

from chunkviz.simulator.kv.blocks import BlockManager
from chunkviz.simulator.kv.setup import MAX_GRID_BLOCKS
from chunkviz.simulator.sequence import SeqState
from chunkviz.simulator.trace import BlockView, Snapshot

FREE_QUEUE_HEAD_LEN = 32


def take_snapshot(waiting: Sequence[SeqState], running: Sequence[SeqState], kv: object) -> Snapshot:
    progress = tuple((s.request.request_id, s.sample_index, s.num_computed_tokens, s.num_tokens)
                     for s in (*running, *waiting))
    blocks: tuple[BlockView, ...] = ()
    tables: tuple[tuple[int, int, tuple[int, ...]], ...] = ()
    free_head: tuple[int, ...] = ()
    if isinstance(kv, BlockManager) and kv.num_total_blocks <= MAX_GRID_BLOCKS:
        blocks, tables, free_head = _block_state(kv)
    return Snapshot(
        waiting=tuple(s.key for s in waiting), running=tuple(s.key for s in running), progress=progress,
        blocks=blocks, block_tables=tables, free_queue_head=free_head,
    )


def _block_state(kv: BlockManager):
    owners: dict[int, list[tuple[int, int]]] = {}
    for seq_key, table in kv.tables.items():
        for block_id in table:
            owners.setdefault(block_id, []).append(seq_key)
    order = kv.free_queue.order()
    position = {block_id: i for i, block_id in enumerate(order)}
    views = []
    for block_id in sorted(kv.touched_block_ids):
        b = kv.blocks[block_id]
        views.append(BlockView(block_id, b.ref_count, b.key, b.num_filled_tokens,
                               tuple(sorted(owners.get(block_id, ()))), position.get(block_id)))
    tables = tuple((k[0], k[1], tuple(t)) for k, t in sorted(kv.tables.items()))
    return tuple(views), tables, tuple(islice(order, FREE_QUEUE_HEAD_LEN))
