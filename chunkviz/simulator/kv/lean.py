"""A lean paged KV cache with prefix caching, for metrics-only runs: BlockManager's decisions without its objects.

Invariant: driven by the same calls, a LeanPrefixCache makes exactly the decisions a BlockManager with prefix
caching, LRU eviction and no forks makes (which allocations succeed, which blocks a prefix lookup hits, which cached
blocks are evicted and when, free and used counts, num_evicted_blocks), and its block ids, tables and free-queue
order are the same too; tests/test_lean_prefix_cache.py replays both over the presets, the policies and a
Hypothesis run.

What it leaves out is what only detailed runs read (engine.py picks BlockManager for those): Block objects,
per-block fill levels, events, hit counts and cache order (read only by the FIFO and LFU free queues, which keep
BlockManager). Keys are integers computed from the sequence's segments (content_keys.py) instead of a blake2b hash
chain over each block's runs, which was most of a prefix-cached run's time (one hash per block of every request).
And a block costs nothing of its own unless its key is public: private keys are not kept, and the free queue holds
whole freed tables as runs, so a pop or a free is a slice, its evictions counted from two indices per run (a run of
the 20k-request default holds ~80 blocks; one list operation per block had been ~0.7 s of its 2.7 s).
"""

from __future__ import annotations

from collections import deque
from itertools import repeat
from typing import Sequence

from chunkviz.simulator.kv.blocks import ContentFn, SeqKey
from chunkviz.request import Request
from chunkviz.simulator.kv.content_keys import ContentKeys, Plan, key_at, keys_between, private_from


_drain = deque(maxlen=0).extend  # runs an iterator of calls at C speed, keeping nothing

# A run of the free queue: (block ids in queue order, index of its first keyed block, index of its first public one).
# A sequence's table is [public-keyed][private-keyed][keyless] blocks (content_keys: along a sequence the public
# nodes come first, a prefix hit is public, and the keyed blocks lead); freed tail-first it joins the queue as one run
# [keyless][private][public], so which of a run's blocks carry a key is two indices, not a key per block.
Run = tuple[list[int], int, int]


class LeanPrefixCache:
    """The LRU free queue as a deque of runs (one per freed table) read from a head offset, with stale entries; public
    keys and ref counts in two lists indexed by block id; an index from public key to the blocks that hold it (an
    int for one holder, a list, oldest first, for several).

    Only public-keyed blocks are ever looked up, shared or counted by another sequence, so only they keep a key and a
    ref count (block_keys[b] > 0; ref_counts[b] is its holders, 0 while free); every other block's entries stay 0. A
    block in a table that has no public key is held by exactly that table. So popping and freeing a block that is
    not public costs no work of its own: slices of runs, with evictions counted from the runs' two indices."""

    def __init__(self, num_blocks: int, block_size: int, requests: Sequence[Request] = ()) -> None:
        self.num_total_blocks = num_blocks
        self.block_size = block_size
        self.enable_prefix_caching = True
        self.tracks_content = True
        self.num_evicted_blocks = 0
        self.ref_counts = [0] * num_blocks  # public-keyed blocks only (see the class docstring)
        self.block_keys = [0] * num_blocks  # a block's public key, or 0 (no key, or a private one)
        # vLLM's free block queue under LRU: freed blocks join the tail, allocation takes the head (eviction.py).
        # Runs, read from _head; a block taken from the middle (a prefix hit on a free, public block) leaves a stale
        # entry behind, counted in _stale and skipped when the head reaches it (a block's stale entries always
        # precede its live one, which joined the tail later).
        self._runs: deque[Run] = deque([(list(range(num_blocks)), num_blocks, num_blocks)] if num_blocks else [])
        self._head = 0
        self._stale: dict[int, int] = {}
        self._num_free = num_blocks
        self.tables: dict[SeqKey, list[int]] = {}
        self.num_keyed: dict[SeqKey, int] = {}  # BlockManager.seq_chain_keys, as lengths (the keys are recomputed)
        self.holders: dict[int, int | list[int]] = {}  # key -> its block, or its blocks oldest first
        self._content_keys = ContentKeys()
        # Keys only one sequence can ever look up (content_keys: private nodes) are never kept, and stay out of
        # `holders`, until that sequence is preempted (expose_own_keys): most prompts share nothing.
        self._content_keys.count_users(requests)
        self._exposed: set[SeqKey] = set()
        self._plans: dict[SeqKey, Plan] = {}

    # --- queries -------------------------------------------------------------------------------------------------
    def num_free_blocks(self) -> int:
        return self._num_free

    def num_used_blocks(self) -> int:
        return self.num_total_blocks - self._num_free

    def _live_entries(self) -> list[tuple[int, bool]]:
        """(block, keyed) of every free block, next to be reused first (stale entries skipped)."""
        skip, out, head = dict(self._stale), [], self._head
        for ids, first_keyed, _ in self._runs:
            for position in range(head, len(ids)):
                block_id = ids[position]
                if skip.get(block_id):
                    skip[block_id] -= 1
                else:
                    out.append((block_id, position >= first_keyed))
            head = 0
        return out

    def free_order(self) -> list[int]:
        """The free blocks, next to be reused first (BlockManager.free_queue.order())."""
        return [block_id for block_id, _ in self._live_entries()]

    def keyed_blocks(self) -> set[int]:
        """Blocks that carry a key, public or private (BlockManager: block.key is not None); for tests."""
        keyed = {block_id for block_id, is_keyed in self._live_entries() if is_keyed}
        for seq, table in self.tables.items():
            keyed.update(table[:self.num_keyed.get(seq, 0)])
        return keyed

    def block_ref_counts(self) -> list[int]:
        """Every block's holders (BlockManager's ref_count), counted over the tables; for tests."""
        counts = [0] * self.num_total_blocks
        for table in self.tables.values():
            for block_id in table:
                counts[block_id] += 1
        return counts

    def num_table_blocks(self, seq: SeqKey) -> int:
        return len(self.tables.get(seq, ()))

    def blocks_for(self, num_tokens: int) -> int:
        return -(-num_tokens // self.block_size)

    def block_ref_count(self, block_id: int) -> int:
        """Holders of a block in some table (one, unless it is public and shared)."""
        return self.ref_counts[block_id] or 1

    def num_unheld(self, block_ids: list[int]) -> int:
        """Blocks among `block_ids` (public: prefix hits) that sit in the free queue (a hit on them uses up free
        blocks)."""
        refs = self.ref_counts
        return sum(1 for b in block_ids if refs[b] == 0)

    def num_keyed_blocks(self, seq: SeqKey) -> int | None:
        """How many of the sequence's leading blocks carry their key (None before its first caching)."""
        return self.num_keyed.get(seq)

    def _plan(self, content_fn: ContentFn) -> Plan:
        # Every caller passes SeqState.content (bound): its sequence holds the segments the keys are built from.
        seq = content_fn.__self__
        plan = self._plans.get(seq.key)
        if plan is None:
            plan = self._plans[seq.key] = self._content_keys.plan_of(seq, seq.key in self._exposed)
        return plan

    def _num_public(self, seq: SeqKey, num_keyed: int) -> int:
        """How many of the sequence's leading blocks carry a public key (all its keyed ones once exposed)."""
        plan = self._plans.get(seq)
        if plan is None:  # exposed (expose_own_keys dropped the plan), or never keyed
            return num_keyed
        return min(num_keyed, private_from(plan) // self.block_size)

    def may_hit(self, content_fn: ContentFn) -> bool:
        """Could any lookup of this sequence's ever find a block (is its first block's key public)? A private first
        key is never indexed until the sequence itself is preempted, and every chain starts at the first block."""
        return key_at(self._plan(content_fn), self.block_size) > 0

    def find_prefix_hit(self, content_fn: ContentFn, max_hit_tokens: int) -> list[int]:
        """Blocks of the longest cached chain that covers at most `max_hit_tokens` leading tokens (BlockManager's
        lookup: each block's key, then its oldest holder)."""
        hits: list[int] = []
        num_blocks = max(0, max_hit_tokens) // self.block_size
        if not num_blocks:
            return hits
        plan, holders, bs = self._plan(content_fn), self.holders, self.block_size
        for index in range(num_blocks):
            found = holders.get(key_at(plan, (index + 1) * bs))
            if found is None:
                break
            hits.append(found if type(found) is int else found[0])
        return hits

    # --- allocation ----------------------------------------------------------------------------------------------
    def allocate(self, seq: SeqKey, write_start: int, target_tokens: int, hit_block_ids: list[int] = ()) -> bool:
        """BlockManager.allocate without copy-on-write (only forks share a block that is written)."""
        table = self.tables.get(seq, [])
        refs = self.ref_counts
        num_hit_free = self.num_unheld(hit_block_ids) if hit_block_ids else 0
        index = write_start // self.block_size
        if index < len(table) and refs[table[index]] > 1:
            raise AssertionError("LeanPrefixCache: copy-on-write needs BlockManager (forks)")
        num_new = -(-target_tokens // self.block_size) - len(table) - len(hit_block_ids)
        if num_new > self._num_free - num_hit_free:
            return False
        self.tables[seq] = table
        if hit_block_ids:
            stale = self._stale
            for block_id in hit_block_ids:
                if refs[block_id] == 0:  # taken from the free queue: its entry there goes stale
                    stale[block_id] = stale.get(block_id, 0) + 1
                    self._num_free -= 1
                refs[block_id] += 1
            table.extend(hit_block_ids)
            self.num_keyed[seq] = len(hit_block_ids)
        if num_new > 0:
            table.extend(self.pop_free_blocks(num_new))
        return True

    def grow_one(self, seq: SeqKey, content_fn: ContentFn, computed_tokens: int) -> int:
        """allocate(seq, computed, computed + 1), cache_blocks(seq, content_fn, computed + 1), then cover_limit(seq):
        the block work of a one-token step (a decode) in one call, as the exact loop's hot path; -1, with nothing
        changed, when the new block is not there."""
        bs, tables = self.block_size, self.tables
        table = tables.get(seq)
        if table is None:
            table = []
        index = computed_tokens // bs
        if index < len(table):
            if self.ref_counts[table[index]] > 1:
                raise AssertionError("LeanPrefixCache: copy-on-write needs BlockManager (forks)")
        elif index + 1 - len(table) > self._num_free:
            return -1
        else:
            tables[seq] = table
            table.extend(self.pop_free_blocks(index + 1 - len(table)))
        keyed = self.num_keyed.get(seq, 0)
        if min((computed_tokens + 1) // bs, len(table)) > keyed:
            self.cache_blocks(seq, content_fn, computed_tokens + 1)
            keyed = self.num_keyed[seq]
        else:
            self.num_keyed[seq] = keyed  # (cache_blocks records it even when nothing is new)
        capacity = len(table) * bs
        return capacity if keyed >= len(table) else min(capacity, (keyed + 1) * bs - 1)

    def covers(self, seq: SeqKey, write_start: int, end_tokens: int) -> bool:
        """BlockManager.covers: allocate + cache_blocks would change nothing."""
        table = self.tables.get(seq)
        index = write_start // self.block_size
        if table is not None and index < len(table) and self.ref_counts[table[index]] > 1:
            return False
        return end_tokens <= self.cover_limit(seq)

    def cover_limit(self, seq: SeqKey) -> int:
        """The largest end_tokens for which covers(seq, w, end_tokens) holds at every write start w of the
        sequence's (its write block is never shared here: only full, keyed blocks are hit, and forks never come), or
        0. It only grows until the table is freed: allocate and cache_blocks only add blocks and keys."""
        table, keyed = self.tables.get(seq), self.num_keyed.get(seq)
        if table is None or keyed is None:
            return 0
        capacity = len(table) * self.block_size
        return capacity if keyed >= len(table) else min(capacity, (keyed + 1) * self.block_size - 1)

    def append_block(self, seq: SeqKey) -> None:
        """A decode crossing a block boundary takes the queue's head (the fast path checked one is free)."""
        self.tables[seq].extend(self.pop_free_blocks(1))

    def pop_free_blocks(self, num_blocks: int) -> list[int]:
        """The queue's first `num_blocks` live blocks (the caller checked they exist), each emptied (a cached one
        evicted, lazily as in vLLM). Slices of runs, evictions counted from their indices, a public block's key
        dropped; entry by entry where a stale entry lies among them."""
        runs, stale, out, head = self._runs, self._stale, [], self._head
        while len(out) < num_blocks:  # bounded: each pass moves past one run or fills `out` (enough are live)
            ids, first_keyed, first_public = runs[0]
            stop = min(len(ids), head + num_blocks - len(out))
            chunk = ids[head:stop]
            if stale and not stale.keys().isdisjoint(chunk):
                stop = self._take_around_stale(ids, head, num_blocks - len(out), first_keyed, first_public, out)
            else:
                if stop > first_keyed:
                    self.num_evicted_blocks += stop - max(head, first_keyed)
                    if stop > first_public:
                        _drain(map(self._evict, ids[max(head, first_public):stop]))
                out += chunk
            if stop == len(ids):
                runs.popleft()
                head = 0
            else:
                head = stop
        self._head = head
        self._num_free -= num_blocks
        return out

    def _take_around_stale(self, ids: list[int], head: int, need: int, first_keyed: int, first_public: int,
                           out: list[int]) -> int:
        """pop_free_blocks entry by entry over one run from `head`, skipping stale entries, until `need` blocks are
        in `out` or the run ends; returns the index it stopped at."""
        stale, position = self._stale, head
        while need and position < len(ids):  # bounded by the run's length
            block_id = ids[position]
            count = stale.get(block_id)
            if count:  # a block taken by a prefix hit since it joined here: not free at this place any more
                if count == 1:
                    del stale[block_id]
                else:
                    stale[block_id] = count - 1
            else:
                if position >= first_keyed:
                    self.num_evicted_blocks += 1
                    if position >= first_public:
                        self._evict(block_id)
                out.append(block_id)
                need -= 1
            position += 1
        return position

    def _evict(self, block_id: int) -> None:
        """A free block with a public key is reused: its key leaves the index."""
        keys, holders = self.block_keys, self.holders
        key = keys[block_id]
        keys[block_id] = 0
        found = holders[key]
        if type(found) is int:
            del holders[key]
        else:
            found.remove(block_id)
            if len(found) == 1:
                holders[key] = found[0]

    def fork(self, parent: SeqKey, child: SeqKey) -> None:
        raise NotImplementedError("forked samples (copy-on-write) need BlockManager")

    def free(self, seq: SeqKey) -> int:
        """Release a sequence's blocks tail-first (vLLM: deeper blocks are evicted first) as one run; returns how
        many. A public block another sequence still holds stays out of it."""
        table = self.tables.pop(seq, [])
        keyed = self.num_keyed.pop(seq, None) or 0
        public = self._num_public(seq, keyed)
        self._plans.pop(seq, None)  # rebuilt (the same) if a preempted sequence comes back
        if not table:
            return 0
        refs, shared = self.ref_counts, table[:public]
        if all(map((1).__eq__, map(refs.__getitem__, shared))):  # nobody else holds any (no hit shares them)
            _drain(map(refs.__setitem__, shared, repeat(0)))
            freed = table[::-1]
        else:
            for block_id in shared:
                refs[block_id] -= 1
            freed = table[:public - 1 if public else None:-1] + [b for b in reversed(shared) if not refs[b]]
        self._runs.append((freed, len(table) - keyed, len(table) - public))
        self._num_free += len(freed)
        return len(table)

    # --- caching -------------------------------------------------------------------------------------------------
    def cache_blocks(self, seq: SeqKey, content_fn: ContentFn, num_tokens: int) -> None:
        """Key the sequence's blocks that are full once its first `num_tokens` tokens are in (BlockManager's rule:
        vLLM V1 caches full blocks at scheduling time; a second block with the same key stays cached too). The
        blocks past a sequence's keyed ones are always fresh (popped, keyless): forks, which could share them, never
        reach this manager. Only public keys are kept (see the class docstring)."""
        table, bs = self.tables[seq], self.block_size
        first = self.num_keyed.get(seq, 0)
        last = min(num_tokens // bs, len(table))
        if last <= first:
            self.num_keyed[seq] = first
            return
        self.num_keyed[seq] = last
        if last == first + 1:  # a decode filling its block: one key
            key = key_at(self._plan(content_fn), last * bs)
            if key > 0:
                self._keep([key], [table[first]])
            return
        plan = self._plan(content_fn)
        num_public = min(max(0, private_from(plan) // bs - first), last - first)  # public keys come first
        if num_public:
            self._keep(keys_between(plan, (first + 1) * bs, (first + num_public) * bs, bs),
                       table[first:first + num_public])

    def key_output_blocks(self, fills: list[tuple[object, int]]) -> None:
        """cache_blocks for decodes whose token fills the block ending at `end_tokens` (each sequence's only unkeyed
        full block, past its prompt), for each (sequence, end token) in order, in bulk (fast_kv.lean_flush)."""
        tables, num_keyed, plans, bs = self.tables, self.num_keyed, self._plans, self.block_size
        block_ids, keys = [], []
        for seq, end_tokens in fills:
            index = end_tokens // bs - 1
            key = seq.key
            num_keyed[key] = index + 1
            plan = plans.get(key)
            _, _, base, private = (plan if plan is not None else self._plan(seq.content))[-1]
            if not private:
                block_ids.append(tables[key][index])
                keys.append(base + end_tokens)
        if keys:
            self._keep(keys, block_ids)

    def _keep(self, keys: list[int], block_ids: list[int]) -> None:
        """Public keys for fresh blocks, each held by its own sequence only, in order (keys may repeat)."""
        _drain(map(self.block_keys.__setitem__, block_ids, keys))
        _drain(map(self.ref_counts.__setitem__, block_ids, repeat(1)))
        holders = self.holders
        if holders.keys().isdisjoint(keys) and len(set(keys)) == len(keys):  # content nobody cached before
            holders.update(zip(keys, block_ids))
        else:
            _drain(map(self._index, keys, block_ids))

    def expose_own_keys(self, seq: SeqKey) -> None:
        """A preempted sequence will look its own blocks up when it comes back: give its private keyed blocks their
        keys (recomputed from its plan) and index them (the only holders they can have, so their order among a key's
        holders is BlockManager's), and give it public keys from now on. Called before free()."""
        plan, keyed = self._plans.get(seq), self.num_keyed.get(seq, 0)
        if plan is not None:
            table, bs = self.tables[seq], self.block_size
            first = self._num_public(seq, keyed)
            self._keep([-key_at(plan, (index + 1) * bs) for index in range(first, keyed)], table[first:keyed])
        self._exposed.add(seq)
        self._plans.pop(seq, None)

    def _index(self, key: int, block_id: int) -> None:
        """`block_id` holds `key`: behind its older holders (a second block computed with the same content is cached
        too, as in vLLM V1)."""
        found = self.holders.setdefault(key, block_id)
        if found == block_id:
            return
        if type(found) is int:
            self.holders[key] = [found, block_id]
        else:
            found.append(block_id)

    def block_key_at(self, content_fn: ContentFn, end_tokens: int) -> int:
        """The key of the full block that ends at `end_tokens` (negative, and so never shared, when private)."""
        return key_at(self._plan(content_fn), end_tokens)

    def on_computed(self, seq: SeqKey, content_fn: ContentFn, old_tokens: int, new_tokens: int,
                    cache: bool = True) -> None:
        """Cache any full block not cached when it was scheduled (fill levels are not kept here); nothing without
        `cache`."""
        if not cache:
            return
        keyed = self.num_keyed.get(seq)
        if keyed is None or keyed < min(new_tokens // self.block_size, len(self.tables[seq])):
            self.cache_blocks(seq, content_fn, new_tokens)
