"""Hypothesis state machine over BlockManager: allocate (with prefix hits), compute, fork + copy-on-write, free.

The machine keeps its own model: each sequence's token ids, how many of them are computed, and a shadow copy of
what every physical block holds ("the KV memory"). After every rule it checks the invariants of blocks.py and
that every computed token of every live sequence can be read back, through its block table, unchanged.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule, run_state_machine_as_test

from chunkviz.simulator.kv.blocks import BlockManager, SeqKey, chain_key
from chunkviz.config import EVICTION_NAMES

BLOCK_SIZE = 4
# A few fixed prefixes over a 3-letter alphabet, so new sequences often share whole blocks with old ones.
PREFIXES = ((0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2), (0, 1, 2, 0, 2, 2, 2, 2, 1, 1, 1, 1), (1, 1, 1, 1, 0, 0, 0, 0))
tokens_strategy = st.lists(st.integers(0, 2), max_size=6)


def _content_fn(tokens: list[int]):
    # The BlockManager treats content as opaque hashable data: here the block's token ids themselves.
    return lambda start, end: tuple(tokens[start:end])


def _expected_keys(tokens: list[int], num_blocks: int) -> list[str]:
    """Chain keys of the first `num_blocks` full blocks of `tokens`, recomputed from scratch."""
    keys, parent = [], ""
    for i in range(num_blocks):
        parent = chain_key(parent, tuple(tokens[i * BLOCK_SIZE:(i + 1) * BLOCK_SIZE]))
        keys.append(parent)
    return keys


class BlockMachine(RuleBasedStateMachine):
    eviction = "lru"
    num_blocks = 16

    def __init__(self) -> None:
        super().__init__()
        self.bm = BlockManager(self.num_blocks, BLOCK_SIZE, enable_prefix_caching=True, eviction=self.eviction)
        self.tokens: dict[SeqKey, list[int]] = {}  # every token id a sequence has, computed or not
        self.num_computed: dict[SeqKey, int] = {}
        self.memory: dict[int, list[int | None]] = {}  # shadow KV: what each physical block holds
        self.next_request_id = 0
        # Every chain key a real token prefix ever produced -> that prefix (the brute-force index).
        self.key_to_prefix: dict[str, tuple[int, ...]] = {}

    # --- helpers -------------------------------------------------------------------------------------------------
    def _fingerprint(self) -> tuple:
        bm = self.bm
        return (
            {k: list(t) for k, t in bm.tables.items()}, {k: list(v) for k, v in bm.seq_chain_keys.items()},
            dict(bm.key_to_block), bm.free_queue.order(), bm.num_evicted_blocks,
            [(b.ref_count, b.key, b.content, b.num_filled_tokens, b.num_hits) for b in bm.blocks],
        )

    def _allocate(self, seq: SeqKey, target: int, hit_ids: list[int] = ()) -> bool:
        """Allocate like sched_common.allocate and mirror the result in the shadow memory."""
        bm, start = self.bm, self.num_computed.get(seq, 0)
        before, old_table = self._fingerprint(), list(bm.tables.get(seq, []))
        expected_pops = [b for b in bm.free_queue.order() if b not in hit_ids]
        ok = bm.allocate(seq, start, target, list(hit_ids))
        if not ok:
            assert self._fingerprint() == before, "a failed allocation must change nothing"
            return False
        table = bm.tables[seq]
        copied = [b for b, old in zip(table, old_table) if b != old]
        popped = copied + table[len(old_table) + len(hit_ids):]
        # Fresh blocks come from the head of the free queue, in its order (the COW copy first, then new ones).
        assert len(copied) <= 1 and popped == expected_pops[:len(popped)]
        for index, block_id in enumerate(table):
            if index < len(old_table) and block_id != old_table[index]:  # copy-on-write: copy the filled part
                kept = start % BLOCK_SIZE
                self.memory[block_id] = self.memory[old_table[index]][:kept] + [None] * (BLOCK_SIZE - kept)
            elif index >= len(old_table) + len(hit_ids):
                self.memory[block_id] = [None] * BLOCK_SIZE
        return True

    def _compute(self, seq: SeqKey, new_total: int) -> None:
        bm, old = self.bm, self.num_computed[seq]
        table = bm.tables[seq]
        for pos in range(old, new_total):
            block_id = table[pos // BLOCK_SIZE]
            assert bm.blocks[block_id].ref_count == 1, "a write must never land in a shared block"
            self.memory[block_id][pos % BLOCK_SIZE] = self.tokens[seq][pos]
        bm.on_computed(seq, _content_fn(self.tokens[seq]), old, new_total)
        self.num_computed[seq] = new_total
        for i, key in enumerate(_expected_keys(self.tokens[seq], new_total // BLOCK_SIZE)):
            self.key_to_prefix[key] = tuple(self.tokens[seq][:(i + 1) * BLOCK_SIZE])

    def _pick(self, index: int) -> SeqKey:
        keys = sorted(self.tokens)
        return keys[index % len(keys)]

    # --- rules ---------------------------------------------------------------------------------------------------
    @rule(prefix=st.sampled_from(PREFIXES), cut=st.integers(0, 12), tail=tokens_strategy, chunk=st.integers(1, 40))
    def admit(self, prefix, cut, tail, chunk):
        """A new sequence: look up its prefix (capped at len − 1, as admit_waiting does), then allocate a chunk."""
        tokens = list(prefix[:cut]) + tail
        if not tokens:
            tokens = [0]
        seq = (self.next_request_id, 0)
        self.next_request_id += 1
        hit_ids = self.bm.find_prefix_hit(_content_fn(tokens), len(tokens) - 1)
        hit_tokens = len(hit_ids) * BLOCK_SIZE
        assert hit_tokens <= len(tokens) - 1
        # Brute force without hashes: the longest run of whole blocks that some cached prefix also starts with.
        cached_prefixes = {self.key_to_prefix[key] for key in self.bm.key_to_block}
        longest = 0
        while longest < (len(tokens) - 1) // BLOCK_SIZE and \
                tuple(tokens[:(longest + 1) * BLOCK_SIZE]) in cached_prefixes:
            longest += 1
        assert len(hit_ids) == longest
        expected = _expected_keys(tokens, len(hit_ids))
        for block_id, key in zip(hit_ids, expected):  # a hit is a real match, block by block
            assert self.bm.blocks[block_id].key == key
            assert self.memory[block_id] == list(self.key_to_prefix[key][-BLOCK_SIZE:])
        self.tokens[seq], self.num_computed[seq] = tokens, hit_tokens
        target = min(len(tokens), hit_tokens + chunk)
        if not self._allocate(seq, target, hit_ids):
            del self.tokens[seq], self.num_computed[seq]
            return
        self._compute(seq, target)

    @precondition(lambda self: self.tokens)
    @rule(pick=st.integers(0, 99), extra=tokens_strategy, chunk=st.integers(1, 12))
    def append_and_compute(self, pick, extra, chunk):
        """Add tokens (decode output or a new turn) and compute up to `chunk` of the pending ones."""
        seq = self._pick(pick)
        self.tokens[seq].extend(extra)
        pending = len(self.tokens[seq]) - self.num_computed[seq]
        if pending == 0:
            return
        target = self.num_computed[seq] + min(chunk, pending)
        if self._allocate(seq, target):
            self._compute(seq, target)

    @precondition(lambda self: self.tokens)
    @rule(pick=st.integers(0, 99), divergent=st.lists(st.integers(0, 2), min_size=1, max_size=6))
    def fork_and_diverge(self, pick, divergent):
        """Parallel sampling: the child shares every block, then writes its own tokens (copy-on-write)."""
        parent = self._pick(pick)
        child = (parent[0], 1 + max(s for r, s in self.tokens if r == parent[0]))
        done = self.num_computed[parent]
        if done == 0:
            return
        self.bm.fork(parent, child)
        self.tokens[child] = self.tokens[parent][:done] + divergent
        self.num_computed[child] = done
        last = done // BLOCK_SIZE  # the block the child writes first; shared only if partly filled
        assert self.bm.tables[child] == self.bm.tables[parent][:self.bm.blocks_for(done)]
        if self._allocate(child, done + len(divergent)):
            child_table, parent_table = self.bm.tables[child], self.bm.tables[parent]
            assert child_table[:last] == parent_table[:last]  # full blocks stay shared
            if done % BLOCK_SIZE:
                assert child_table[last] != parent_table[last]  # copied on write
            self._compute(child, done + len(divergent))

    @precondition(lambda self: self.tokens)
    @rule(pick=st.integers(0, 99))
    def free(self, pick):
        seq = self._pick(pick)
        num_freed = self.bm.free(seq)
        assert num_freed == self.bm.blocks_for(self.num_computed[seq])
        del self.tokens[seq], self.num_computed[seq]

    @rule(length=st.integers(1, 80))
    def fill_with_unique_tokens(self, length):
        """A long unique sequence: forces lazy eviction of cached blocks, or fails cleanly when memory is short."""
        seq = (self.next_request_id, 0)
        self.next_request_id += 1
        self.tokens[seq], self.num_computed[seq] = [3 + seq[0]] * length, 0
        if self._allocate(seq, length):
            self._compute(seq, length)
        else:
            assert self.bm.blocks_for(length) > self.bm.num_free_blocks()
            del self.tokens[seq], self.num_computed[seq]

    # --- invariants ----------------------------------------------------------------------------------------------
    @invariant()
    def free_plus_used_is_total(self):
        assert self.bm.num_free_blocks() + self.bm.num_used_blocks() == self.num_blocks
        assert len(self.bm.free_queue.order()) == len(self.bm.free_queue)

    @invariant()
    def free_queue_holds_exactly_the_unreferenced_blocks(self):
        in_queue = self.bm.free_queue.order()
        assert len(set(in_queue)) == len(in_queue)
        assert set(in_queue) == {b.block_id for b in self.bm.blocks if b.ref_count == 0}

    @invariant()
    def ref_count_equals_number_of_tables_holding_the_block(self):
        holders = [0] * self.num_blocks
        for table in self.bm.tables.values():
            assert len(set(table)) == len(table)
            for block_id in table:
                holders[block_id] += 1
        assert [b.ref_count for b in self.bm.blocks] == holders
        assert set(self.bm.tables) == set(self.tokens)

    @invariant()
    def every_cached_key_names_a_block_that_rehashes_to_it(self):
        for key, block_id in ((k, b) for k, holders in self.bm.key_to_blocks.items() for b in holders):
            block = self.bm.blocks[block_id]
            assert block.key == key
            prefix = self.key_to_prefix[key]  # the key came from a real token prefix
            parent = _expected_keys(list(prefix), len(prefix) // BLOCK_SIZE - 1)[-1:] or [""]
            assert chain_key(parent[0], block.content) == key
            assert block.content == prefix[-BLOCK_SIZE:]
            assert self.memory[block_id] == list(block.content)  # the KV still holds those tokens
        # A block computed twice stays cached under the same key (vLLM V1 keeps duplicates).
        assert all(b.key is None or b.block_id in self.bm.key_to_blocks.get(b.key, {}) for b in self.bm.blocks)

    @invariant()
    def every_live_sequence_reads_back_its_tokens(self):
        for seq, tokens in self.tokens.items():
            done, table = self.num_computed[seq], self.bm.tables[seq]
            assert done <= len(tokens)
            assert len(table) == self.bm.blocks_for(done)
            assert [self.memory[table[p // BLOCK_SIZE]][p % BLOCK_SIZE] for p in range(done)] == tokens[:done]
            expected = _expected_keys(tokens, done // BLOCK_SIZE)
            assert self.bm.seq_chain_keys.get(seq, []) == expected
            for block_id, key in zip(table, expected):
                assert self.bm.blocks[block_id].key in (None, key)
            # What the snapshot grid shows: how full each block of the table is.
            assert [self.bm.blocks[b].num_filled_tokens for b in table] == \
                [min(BLOCK_SIZE, done - i * BLOCK_SIZE) for i in range(len(table))]

    def teardown(self):
        for seq in list(self.tokens):
            self.bm.free(seq)
        assert self.bm.num_used_blocks() == 0, "blocks leaked after every sequence was freed"
        assert sorted(self.bm.free_queue.order()) == list(range(self.num_blocks))


def _machine_for(eviction: str, num_blocks: int) -> type[BlockMachine]:
    return type(f"BlockMachine_{eviction}_{num_blocks}", (BlockMachine,),
                {"eviction": eviction, "num_blocks": num_blocks})


MACHINE_SETTINGS = settings(max_examples=60, stateful_step_count=30, deadline=None,
                            suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


@pytest.mark.parametrize("num_blocks", [12, 24])
@pytest.mark.parametrize("eviction", EVICTION_NAMES)
def test_block_manager_state_machine(eviction: str, num_blocks: int) -> None:
    run_state_machine_as_test(_machine_for(eviction, num_blocks), settings=MACHINE_SETTINGS)
