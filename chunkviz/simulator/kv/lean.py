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
"""

from __future__ import annotations

from collections import deque
from itertools import repeat, starmap
from typing import Sequence

from chunkviz.simulator.kv.blocks import ContentFn, SeqKey
from chunkviz.request import Request
from chunkviz.simulator.kv.content_keys import ContentKeys, Plan, key_at, keys_between, private_from


_drain = deque(maxlen=0).extend  # runs an iterator of calls at C speed, keeping nothing
# block_keys' value for a block whose key is private (content_keys: only its own sequence could look it up). The
# key itself is not kept: it is recomputed from the sequence's plan if the sequence is preempted (expose_own_keys).
# One shared small int instead of an integer object per block: a run pops and evicts ~1.7M mostly private blocks,
# and reading or dropping a distinct int object per block costs a cache miss each.
PRIVATE = -1


class LeanPrefixCache:
    """Ref counts and keys in two lists indexed by block id, the LRU free queue as a deque with stale entries, an
    index from key to the blocks that hold it (an int for one holder, a list, oldest first, for several)."""

    def __init__(self, num_blocks: int, block_size: int, requests: Sequence[Request] = ()) -> None:
        self.num_total_blocks = num_blocks
        self.block_size = block_size
        self.enable_prefix_caching = True
        self.tracks_content = True
        self.num_evicted_blocks = 0
        self.ref_counts = [0] * num_blocks
        self.block_keys = [0] * num_blocks  # 0: no key (content_keys never makes 0), PRIVATE, or a public key
        # vLLM's free block queue under LRU: freed blocks join the tail, allocation takes the head (eviction.py).
        # A deque, whose appends and pops cost a tenth of an ordered dict's; a block taken from the middle (a prefix
        # hit on a free block) leaves a stale entry behind, counted in _stale and skipped when the head reaches it
        # (a block's stale entries always precede its live one, which joined the tail later).
        self._queue: deque[int] = deque(range(num_blocks))
        self._stale: dict[int, int] = {}
        self._num_free = num_blocks
        self.tables: dict[SeqKey, list[int]] = {}
        self.num_keyed: dict[SeqKey, int] = {}  # BlockManager.seq_chain_keys, as lengths (the keys are recomputed)
        self.holders: dict[int, int | list[int]] = {}  # key -> its block, or its blocks oldest first
        self._num_shared_keys = 0  # keys with a list of holders (rare: the same content computed twice)
        self._content_keys = ContentKeys()
        # Keys only one sequence can ever look up (content_keys: private nodes) stay out of `holders`, negated in
        # block_keys, until that sequence is preempted (expose_own_keys): most prompts share nothing.
        self._content_keys.count_users(requests)
        self._exposed: set[SeqKey] = set()
        self._plans: dict[SeqKey, Plan] = {}

    # --- queries -------------------------------------------------------------------------------------------------
    def num_free_blocks(self) -> int:
        return self._num_free

    def num_used_blocks(self) -> int:
        return self.num_total_blocks - self._num_free

    def free_order(self) -> list[int]:
        """The free blocks, next to be reused first (BlockManager.free_queue.order())."""
        skip, order = dict(self._stale), []
        for block_id in self._queue:
            if skip.get(block_id):
                skip[block_id] -= 1
            else:
                order.append(block_id)
        return order

    def num_table_blocks(self, seq: SeqKey) -> int:
        return len(self.tables.get(seq, ()))

    def blocks_for(self, num_tokens: int) -> int:
        return -(-num_tokens // self.block_size)

    def block_ref_count(self, block_id: int) -> int:
        return self.ref_counts[block_id]

    def num_unheld(self, block_ids: list[int]) -> int:
        """Blocks among `block_ids` that sit in the free queue (a hit on them uses up free blocks)."""
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
        """The queue's first `num_blocks` blocks (the caller checked they exist), each emptied (a cached one
        evicted, lazily as in vLLM) and held once. In bulk (C-level maps: a block of every request passes here)
        unless a stale entry is among them or some key has several holders; then block by block."""
        queue = self._queue
        new_ids = list(starmap(queue.popleft, repeat((), num_blocks)))
        if self._num_shared_keys or self._stale and not self._stale.keys().isdisjoint(new_ids):
            queue.extendleft(reversed(new_ids))
            return self._pop_one_by_one(num_blocks)
        keys = self.block_keys
        evicted = list(filter(None, map(keys.__getitem__, new_ids)))  # the keyed ones (0: no key)
        if evicted:
            _drain(map(self.holders.__delitem__, filter((0).__lt__, evicted)))  # private keys are not indexed
            _drain(map(keys.__setitem__, new_ids, repeat(0)))
            self.num_evicted_blocks += len(evicted)
        _drain(map(self.ref_counts.__setitem__, new_ids, repeat(1)))
        self._num_free -= num_blocks
        return new_ids

    def _pop_one_by_one(self, num_blocks: int) -> list[int]:
        popleft, stale, refs, keys, new_ids = self._queue.popleft, self._stale, self.ref_counts, self.block_keys, []
        for _ in range(num_blocks):
            block_id = popleft()
            while stale and block_id in stale:  # bounded: each pass drops one stale entry
                count = stale.pop(block_id) - 1
                if count:
                    stale[block_id] = count
                block_id = popleft()
            key = keys[block_id]
            if key:
                self._evict(block_id, key)
                keys[block_id] = 0
            refs[block_id] = 1
            new_ids.append(block_id)
        self._num_free -= num_blocks
        return new_ids

    def _evict(self, block_id: int, key: int) -> None:
        self.num_evicted_blocks += 1
        if key == PRIVATE:
            return  # never indexed
        holders = self.holders
        found = holders[key]
        if type(found) is int:
            del holders[key]
        else:
            found.remove(block_id)
            if len(found) == 1:
                holders[key] = found[0]
                self._num_shared_keys -= 1

    def fork(self, parent: SeqKey, child: SeqKey) -> None:
        raise NotImplementedError("forked samples (copy-on-write) need BlockManager")

    def free(self, seq: SeqKey) -> int:
        """Release a sequence's blocks tail-first (vLLM: deeper blocks are evicted first); returns how many."""
        table = self.tables.pop(seq, [])
        self.num_keyed.pop(seq, None)
        self._plans.pop(seq, None)  # rebuilt (the same) if a preempted sequence comes back
        refs, queue = self.ref_counts, self._queue
        if all(map((1).__eq__, map(refs.__getitem__, table))):  # nobody else holds any (no hit shares them)
            _drain(map(refs.__setitem__, table, repeat(0)))
            queue.extend(reversed(table))
            self._num_free += len(table)
        else:
            for block_id in reversed(table):
                count = refs[block_id] - 1
                refs[block_id] = count
                if not count:
                    queue.append(block_id)
                    self._num_free += 1
        return len(table)

    # --- caching -------------------------------------------------------------------------------------------------
    def cache_blocks(self, seq: SeqKey, content_fn: ContentFn, num_tokens: int) -> None:
        """Key the sequence's blocks that are full once its first `num_tokens` tokens are in (BlockManager's rule:
        vLLM V1 caches full blocks at scheduling time; a second block with the same key stays cached too). The
        blocks past a sequence's keyed ones are always fresh (popped, keyless): forks, which could share them, never
        reach this manager."""
        table, bs = self.tables[seq], self.block_size
        first = self.num_keyed.get(seq, 0)
        last = min(num_tokens // bs, len(table))
        if last <= first:
            self.num_keyed[seq] = first
            return
        self.num_keyed[seq] = last
        if last == first + 1:  # a decode filling its block: one key
            key, block_id = key_at(self._plan(content_fn), last * bs), table[first]
            if key > 0:
                self.block_keys[block_id] = key
                self._index(key, block_id)
            else:
                self.block_keys[block_id] = PRIVATE
            return
        plan = self._plan(content_fn)
        num_public = min(max(0, private_from(plan) // bs - first), last - first)  # public keys come first
        if num_public < last - first:
            _drain(map(self.block_keys.__setitem__, table[first + num_public:last], repeat(PRIVATE)))
            if not num_public:
                return
        new_keys = keys_between(plan, (first + 1) * bs, (first + num_public) * bs, bs)
        new_ids = table[first:first + num_public]
        _drain(map(self.block_keys.__setitem__, new_ids, new_keys))
        if self.holders.keys().isdisjoint(new_keys):  # the common case: content nobody cached before
            self.holders.update(zip(new_keys, new_ids))
            return
        _drain(map(self._index, new_keys, new_ids))

    def key_output_blocks(self, fills: list[tuple[object, int]]) -> None:
        """cache_blocks for decodes whose token fills the block ending at `end_tokens` (each sequence's only unkeyed
        full block, past its prompt), for each (sequence, end token) in order, in bulk (fast_kv.lean_flush)."""
        tables, num_keyed, plans, bs = self.tables, self.num_keyed, self._plans, self.block_size
        block_ids, keys = [], []
        for seq, end_tokens in fills:
            index = end_tokens // bs - 1
            key = seq.key
            num_keyed[key] = index + 1
            block_ids.append(tables[key][index])
            plan = plans.get(key)
            _, _, base, private = (plan if plan is not None else self._plan(seq.content))[-1]
            keys.append(PRIVATE if private else base + end_tokens)
        _drain(map(self.block_keys.__setitem__, block_ids, keys))
        if max(keys) < 0:
            return  # every one private
        holders = self.holders
        if min(keys) > 0 and holders.keys().isdisjoint(keys) and len(set(keys)) == len(keys):
            holders.update(zip(keys, block_ids))
            return
        for key, block_id in zip(keys, block_ids):
            if key > 0:
                self._index(key, block_id)

    def expose_own_keys(self, seq: SeqKey) -> None:
        """A preempted sequence will look its own blocks up when it comes back: index its private keys now (the
        only holders they can have, so their order among a key's holders is BlockManager's) and give it public
        keys from now on. Called before free()."""
        keys, bs = self.block_keys, self.block_size
        for index, block_id in enumerate(self.tables.get(seq, ())):
            if keys[block_id] == PRIVATE:  # keyed through this sequence's plan, which is kept until it is freed
                key = -key_at(self._plans[seq], (index + 1) * bs)
                keys[block_id] = key
                self._index(key, block_id)
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
            self._num_shared_keys += 1
        else:
            found.append(block_id)

    def on_computed(self, seq: SeqKey, content_fn: ContentFn, old_tokens: int, new_tokens: int) -> None:
        """Cache any full block not cached when it was scheduled (fill levels are not kept here)."""
        keyed = self.num_keyed.get(seq)
        if keyed is None or keyed < min(new_tokens // self.block_size, len(self.tables[seq])):
            self.cache_blocks(seq, content_fn, new_tokens)
