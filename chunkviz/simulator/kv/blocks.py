"""Paged KV cache: block tables, ref counts, a free queue, chained prefix keys and copy-on-write.

Invariants: free + used == total; a block is in the free queue iff its ref count is 0; a block's ref count equals
the number of block tables holding it; every key in the prefix index names blocks whose content produced it (two
blocks may hold the same key: vLLM V1 keeps a block computed twice cached under the same hash, BlockPool
`cached_block_hash_to_block` maps a hash to several blocks).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Callable

from chunkviz.simulator.kv.eviction import EVICTION_POLICIES
from chunkviz.simulator.events import Allocated, CopyOnWrite, Evicted, Freed, PrefixHit

SeqKey = tuple[int, int]  # (request_id, sample_index)
Content = tuple[tuple[str, int, int], ...]  # runs of (segment key, start offset, end offset): the block's token ids
ContentFn = Callable[[int, int], Content]  # (start_token, end_token) -> content of that token range
Emit = Callable[[object], None]


_blake2b = hashlib.blake2b


def _ignore(event: object) -> None:
    """The emit of a run that records no events: the manager then builds none (a dataclass per block handed out)."""


def chain_key(parent_key: str, content: Content) -> str:
    """Stable 8-byte key of a full block: blake2b over the parent's key and the block's token ids (cache_blocks
    inlines this: keep the two the same)."""
    return _blake2b((parent_key + repr(content)).encode(), digest_size=8).hexdigest()


@dataclass(slots=True)
class Block:
    block_id: int
    ref_count: int = 0
    key: str | None = None
    content: Content | None = None  # kept beside the key so invariant checks can recompute it
    num_filled_tokens: int = 0
    cached_seq_no: int = 0
    num_hits: int = 0


class BlockManager:
    """Physical blocks shared by all sequences; policy-free except for the pluggable eviction order."""

    def __init__(self, num_blocks: int, block_size: int, enable_prefix_caching: bool = False,
                 eviction: str = "lru", emit: Emit | None = None) -> None:
        self.num_total_blocks = num_blocks
        self.block_size = block_size
        self.enable_prefix_caching = enable_prefix_caching
        self.blocks = [Block(i) for i in range(num_blocks)]
        self.free_queue = EVICTION_POLICIES[eviction]()
        for block in self.blocks:
            self.free_queue.push(block.block_id, False, 0, 0)
        self.tables: dict[SeqKey, list[int]] = {}
        self.seq_chain_keys: dict[SeqKey, list[str]] = {}  # content keys of a sequence's full, computed blocks
        self.key_to_blocks: dict[str, dict[int, None]] = {}  # key -> every cached block holding it, oldest first
        self.touched_block_ids: dict[int, None] = {}  # insertion-ordered: blocks ever handed out, for snapshots
        self.num_evicted_blocks = 0
        self.tracks_content = True
        self._cache_seq_no = 0
        self._emit: Emit = emit or _ignore

    @property
    def key_to_block(self) -> dict[str, int]:
        """The first cached block of every key (what a prefix lookup returns)."""
        return {key: next(iter(holders)) for key, holders in self.key_to_blocks.items()}

    # --- queries -------------------------------------------------------------------------------------------------
    def num_free_blocks(self) -> int:
        return len(self.free_queue)

    def num_used_blocks(self) -> int:
        return self.num_total_blocks - len(self.free_queue)

    def num_table_blocks(self, seq: SeqKey) -> int:
        return len(self.tables.get(seq, ()))

    def blocks_for(self, num_tokens: int) -> int:
        return -(-num_tokens // self.block_size)

    def block_ref_count(self, block_id: int) -> int:
        return self.blocks[block_id].ref_count

    def num_unheld(self, block_ids: list[int]) -> int:
        """Blocks among `block_ids` that sit in the free queue (a hit on them uses up free blocks)."""
        blocks = self.blocks
        return sum(1 for b in block_ids if blocks[b].ref_count == 0)

    def num_keyed_blocks(self, seq: SeqKey) -> int | None:
        """How many of the sequence's leading blocks carry their key (None before its first caching)."""
        keys = self.seq_chain_keys.get(seq)
        return None if keys is None else len(keys)

    def find_prefix_hit(self, content_fn: ContentFn, max_hit_tokens: int) -> list[int]:
        """Blocks of the longest cached chain that covers at most `max_hit_tokens` leading tokens."""
        if not self.enable_prefix_caching:
            return []
        hits: list[int] = []
        parent = ""
        bs = self.block_size
        for i in range(max(0, max_hit_tokens) // bs):
            parent = chain_key(parent, content_fn(i * bs, (i + 1) * bs))
            holders = self.key_to_blocks.get(parent)
            if not holders:
                break
            hits.append(next(iter(holders)))
        return hits

    # --- allocation ----------------------------------------------------------------------------------------------
    def allocate(self, seq: SeqKey, write_start: int, target_tokens: int, hit_block_ids: list[int] = ()) -> bool:
        """Give `seq` blocks for tokens [0, target_tokens), taking `hit_block_ids` first; False changes nothing."""
        table = self.tables.get(seq, [])
        num_hit_free = self.num_unheld(hit_block_ids) if hit_block_ids else 0
        needs_copy = self._needs_copy(table, write_start)
        num_new = max(0, self.blocks_for(target_tokens) - len(table) - len(hit_block_ids))
        if num_new + needs_copy > len(self.free_queue) - num_hit_free:
            return False
        self.tables[seq] = table
        if hit_block_ids:
            self._take_hits(seq, table, list(hit_block_ids))
        if needs_copy:
            self._copy_on_write(seq, table, write_start // self.block_size, write_start % self.block_size)
        if num_new:
            new_ids = self._pop_free_blocks(num_new)
            table.extend(new_ids)
            if self._emit is not _ignore:
                self._emit(Allocated(seq[0], seq[1], tuple(new_ids)))
        return True

    def covers(self, seq: SeqKey, write_start: int, end_tokens: int) -> bool:
        """True when allocate(seq, write_start, t) for a t its table already holds, then cache_blocks(seq, ...,
        end_tokens), would change nothing: no copy-on-write and no newly full block to key. The scheduler asks this
        before a decode so that the common step (no block boundary crossed) costs no allocation call."""
        table = self.tables.get(seq)
        if table is None or len(table) * self.block_size < end_tokens:
            return False
        index = write_start // self.block_size
        if index < len(table) and self.blocks[table[index]].ref_count > 1:
            return False
        if not self.enable_prefix_caching:
            return True
        keys = self.seq_chain_keys.get(seq)  # cache_blocks creates the entry when missing: leave that to it
        return keys is not None and len(keys) >= min(end_tokens // self.block_size, len(table))

    def _needs_copy(self, table: list[int], write_start: int) -> bool:
        index = write_start // self.block_size
        return index < len(table) and self.blocks[table[index]].ref_count > 1

    def _take_hits(self, seq: SeqKey, table: list[int], hit_block_ids: list[int]) -> None:
        for block_id in hit_block_ids:
            block = self.blocks[block_id]
            if block.ref_count == 0:
                self.free_queue.remove(block_id)
            block.ref_count += 1
            block.num_hits += 1
        table.extend(hit_block_ids)
        self.seq_chain_keys[seq] = [self.blocks[b].key or "" for b in hit_block_ids]
        self._emit(PrefixHit(seq[0], seq[1], tuple(hit_block_ids), len(hit_block_ids) * self.block_size))

    def append_block(self, seq: SeqKey) -> None:
        """allocate(seq, w, t) where the table is one block short of t and w starts that block (a decode crossing
        a block boundary; the fast path checked that a free block exists)."""
        new_ids = self._pop_free_blocks(1)
        self.tables[seq].extend(new_ids)
        if self._emit is not _ignore:
            self._emit(Allocated(seq[0], seq[1], tuple(new_ids)))

    def _pop_free_block(self) -> int:
        return self._pop_free_blocks(1)[0]

    def _pop_free_blocks(self, num_blocks: int) -> list[int]:
        """The next `num_blocks` of the free queue, each emptied and held once (one loop: a block of every request
        passes through here)."""
        blocks, touched, new_ids = self.blocks, self.touched_block_ids, []
        ordered = getattr(self.free_queue, "ordered", None)  # LRU: its ordered dict, popped from the head directly
        pop = self.free_queue.pop if ordered is None else None
        for _ in range(num_blocks):
            block = blocks[pop() if ordered is None else ordered.popitem(last=False)[0]]
            key = block.key
            if key is not None:
                # Lazy eviction, as in vLLM: a cached block dies only when its slot is reused.
                if self._emit is not _ignore:
                    self._emit(Evicted(block.block_id, key))
                holders = self.key_to_blocks[key]
                del holders[block.block_id]
                if not holders:
                    del self.key_to_blocks[key]
                self.num_evicted_blocks += 1
            block.key, block.content, block.num_filled_tokens, block.num_hits = None, None, 0, 0
            block.ref_count = 1
            touched[block.block_id] = None
            new_ids.append(block.block_id)
        return new_ids

    def _copy_on_write(self, seq: SeqKey, table: list[int], index: int, num_copied_tokens: int) -> None:
        old = self.blocks[table[index]]
        old.ref_count -= 1
        new_id = self._pop_free_block()
        self.blocks[new_id].num_filled_tokens = num_copied_tokens
        table[index] = new_id
        self._emit(CopyOnWrite(seq[0], seq[1], old.block_id, new_id))

    def fork(self, parent: SeqKey, child: SeqKey) -> None:
        """`child` shares every block of `parent`, the partly filled last one included (copied on first write)."""
        table = self.tables[parent]
        for block_id in table:
            self.blocks[block_id].ref_count += 1
        self.tables[child] = list(table)
        self.seq_chain_keys[child] = list(self.seq_chain_keys.get(parent, []))

    def free(self, seq: SeqKey) -> int:
        """Release a sequence's blocks tail-first (vLLM: deeper blocks are evicted first); returns how many."""
        table = self.tables.pop(seq, [])
        self.seq_chain_keys.pop(seq, None)
        blocks, push, ordered = self.blocks, self.free_queue.push, getattr(self.free_queue, "ordered", None)
        for block_id in reversed(table):
            block = blocks[block_id]
            block.ref_count -= 1
            if block.ref_count == 0:
                if ordered is not None:  # LRU: the block joins the tail of its ordered dict (what push does)
                    ordered[block_id] = None
                else:
                    push(block_id, block.key is not None, block.cached_seq_no, block.num_hits)
        if table and self._emit is not _ignore:
            self._emit(Freed(seq[0], seq[1], tuple(table)))
        return len(table)

    # --- caching and filling ------------------------------------------------------------------------------------------
    def cache_blocks(self, seq: SeqKey, content_fn: ContentFn, num_tokens: int) -> None:
        """Register the prefix keys of the sequence's blocks that are full once its first `num_tokens` tokens are in.

        vLLM V1 does this at scheduling time (KVCacheManager.allocate_slots -> cache_blocks, with the tokens to be
        computed in this step), so a request admitted later in the same step already hits those blocks.
        """
        if not self.enable_prefix_caching:
            return
        table, bs, blocks, key_to_blocks = self.tables[seq], self.block_size, self.blocks, self.key_to_blocks
        keys = self.seq_chain_keys.setdefault(seq, [])
        parent = keys[-1] if keys else ""
        for index in range(len(keys), min(num_tokens // bs, len(table))):
            content = content_fn(index * bs, (index + 1) * bs)
            run = content[0] if len(content) == 1 and type(content) is tuple else None
            if type(run) is tuple and len(run) == 3:  # repr(content) spelled out for a one-run block: same string,
                text = f"(({run[0]!r}, {run[1]!r}, {run[2]!r}),)"  # less than half the time of repr on a nest
            else:
                text = repr(content)
            parent = key = _blake2b((parent + text).encode(), digest_size=8).hexdigest()  # chain_key, inlined
            keys.append(key)
            block = blocks[table[index]]
            if block.key is None:
                # A second block with the same content stays cached too (no de-duplication, as in vLLM V1).
                self._cache_seq_no += 1
                block.key, block.content, block.cached_seq_no = key, content, self._cache_seq_no
                holders = key_to_blocks.get(key)
                if holders is None:
                    key_to_blocks[key] = {block.block_id: None}
                else:
                    holders[block.block_id] = None

    def block_key_at(self, content_fn: ContentFn, end_tokens: int) -> str:
        """The prefix key of the full block that ends at `end_tokens` (find_prefix_hit's chain)."""
        parent, bs = "", self.block_size
        for i in range(end_tokens // bs):
            parent = chain_key(parent, content_fn(i * bs, (i + 1) * bs))
        return parent

    def on_computed(self, seq: SeqKey, content_fn: ContentFn, old_tokens: int, new_tokens: int,
                    cache: bool = True) -> None:
        """Record that tokens [old, new) now hold KV (and, with `cache`, key any full block not keyed when it was
        scheduled)."""
        table, bs, blocks = self.tables[seq], self.block_size, self.blocks
        for index in range(old_tokens // bs, -(-new_tokens // bs)):
            block = blocks[table[index]]
            filled = min(bs, new_tokens - index * bs)
            if filled > block.num_filled_tokens:
                block.num_filled_tokens = filled
        if cache and self.enable_prefix_caching:
            # cache_blocks' own loop would be empty when every full block is keyed already (most steps): skip the call.
            keys = self.seq_chain_keys.get(seq)
            if keys is None or len(keys) < min(new_tokens // bs, len(table)):
                self.cache_blocks(seq, content_fn, new_tokens)
