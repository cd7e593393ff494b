"""The paged KV cache inside a fast-forward stretch: the block operations of the exact loop, done in its order.

Invariant: after every fast step the BlockManager holds exactly what the exact loop would have left (tables, free
queue order, prefix keys and their cache order, evictions), and every block's num_filled_tokens is right whenever
something can read it (when its sequence frees it, or when the stretch ends). The LeanPrefixCache (kv/lean.py) holds
it whenever something can read it: its steps' operations wait for the next free, lookup or stretch end
(lean_flush).

In a decode-only step the exact loop (sched_common.schedule_running -> allocate -> BlockManager.allocate /
cache_blocks, then apply.apply_plan -> on_computed / _finish -> free) changes the cache only at a few sequences:
one whose next token starts a new block pops a free block (evicting its cached content, lazily, as vLLM's
BlockPool.get_new_blocks does), one whose token fills its block keys that block (vLLM V1 caches full blocks at
scheduling time, KVCacheManager.allocate_slots -> cache_blocks), and one that finishes frees its table tail-first.
Everything else is a no-op (BlockManager.covers). So a stretch visits, per step, only the sequences of two
allocation buckets (the block boundary and the block's last slot), in running order (the rows' order), then the
finishers in running order: the same calls in the same order, without the per-sequence work of other decodes.
"""

from __future__ import annotations

from chunkviz.simulator.kv.blocks import BlockManager
from chunkviz.simulator.kv.lean import LeanPrefixCache
from chunkviz.simulator.sequence import SeqState

PAGED = (BlockManager, LeanPrefixCache)


def is_lean(kv: object) -> bool:
    return type(kv) is LeanPrefixCache


def is_paged(kv: object) -> bool:
    """A manager with block identities (BlockManager, or its lean twin for metrics-only prefix-cached runs)."""
    return type(kv) in PAGED


def held_blocks(kv: object, seq: SeqState) -> int:
    """Blocks in the sequence's table (any manager)."""
    if type(kv) in PAGED:
        return len(kv.tables.get(seq.key, ()))
    return kv.num_seq_blocks.get(seq.key, 0)


def steady_seq(kv: BlockManager | LeanPrefixCache, seq: SeqState, held: int) -> bool:
    """Decoding `seq` changes no block but the ones fast_kv replays: its write block is its own (no copy-on-write,
    which only forks cause) and every full block it holds is keyed (so only a newly filled block gets a key)."""
    computed, bs = seq.num_computed_tokens, kv.block_size
    index = computed // bs
    if type(kv) is LeanPrefixCache:  # its decodes' write blocks are never shared (only full blocks are hit)
        keyed = kv.num_keyed.get(seq.key)
        return keyed is not None and keyed == min(index, held)
    if index < held and kv.block_ref_count(kv.tables[seq.key][index]) != 1:
        return False
    if not kv.enable_prefix_caching:
        return True
    keyed = kv.num_keyed_blocks(seq.key)
    return keyed is not None and keyed == min(computed // bs, held)


def fills_first_block(rows: list, bucket_rows: list[list[int]], k: int, block_size: int) -> bool:
    """Some sequence's token at step k fills its block 0 (whose key could be the first key of a new prompt)."""
    for i in bucket_rows[(k + 1) % block_size]:
        _, join_k, _, _, _, computed0 = rows[i]
        if computed0 + k - join_k + 1 == block_size:
            return True
    return False


def step_ops(kv: BlockManager | LeanPrefixCache, rows: list, bucket_rows: list[list[int]], k: int) -> None:
    """Step k's schedule-time block operations, in running order: a pop where a token starts a block (bucket
    k mod block_size), a key where a token fills one (bucket k + 1); a sequence does both only when block_size is 1
    (allocate first, as sched_common.allocate does)."""
    bs = kv.block_size
    allocs, fills = bucket_rows[k % bs], bucket_rows[(k + 1) % bs]
    if bs == 1:
        events = [(i, kind) for i in allocs for kind in (0, 1)]
    elif not fills:
        events = [(i, 0) for i in allocs]
    elif not allocs:
        events = [(i, 1) for i in fills]
    else:
        events = sorted([(i, 0) for i in allocs] + [(i, 1) for i in fills])
    caching = kv.enable_prefix_caching
    for i, kind in events:
        seq, join_k, _, _, _, computed0 = rows[i]
        computed = computed0 + k - join_k
        if kind == 0:
            kv.append_block(seq.key)  # = allocate(seq.key, computed, computed + 1): the slack guarantees a block
        elif caching:
            kv.cache_blocks(seq.key, seq.content, computed + 1)


def lean_flush(kv: LeanPrefixCache, rows: list, bucket_rows: list[list[int]], k_from: int, k_to: int) -> None:
    """The block operations of steps [k_from, k_to), applied at once: every pop in step order (running order within
    a step), then every key in the same order. The same end state as step by step: between two flushes no row joins
    or leaves (flushes come before every release and lookup), so the steps' rows are the buckets' as they stand;
    pops take the queue's head, which frees in between never reach (they join the tail, and the slack keeps the
    stretch's pops within the blocks free at its start); and a pop and a key commute: a pop takes a free block and a
    key goes to a held one, and a key's holders end up the same whichever comes first (the evicted block leaves its
    list, the new one joins the end). A filled block ends past the prompt, so its key lies in the output segment."""
    if k_to <= k_from:
        return
    bs, tables = kv.block_size, kv.tables
    pops = [i for k in range(k_from, k_to) for i in bucket_rows[k % bs]]
    if pops:
        for i, block_id in zip(pops, kv.pop_free_blocks(len(pops))):
            tables[rows[i][0].key].append(block_id)
    fills = [(i, k) for k in range(k_from, k_to) for i in bucket_rows[(k + 1) % bs]]
    if fills:
        kv.key_output_blocks([(rows[i][0], rows[i][5] + k - rows[i][1] + 1) for i, k in fills])


def flush_pending(st: object, k_to: int) -> None:
    """On the lean manager, apply a stretch's (fast_state.Stretch) block operations of the steps before k_to
    that are still pending."""
    if is_lean(st.kv):
        lean_flush(st.kv, st.rows, st.bucket_rows, st.ops_done_k, k_to)
        st.ops_done_k = k_to


def settle_filled(kv: BlockManager, seq: SeqState, from_tokens: int, to_tokens: int) -> None:
    """num_filled_tokens of the blocks written while computing [from, to), as on_computed leaves them."""
    if type(kv) is not BlockManager:
        return  # the lean manager keeps no fill levels
    table, bs, blocks = kv.tables[seq.key], kv.block_size, kv.blocks
    for index in range(from_tokens // bs, -(-to_tokens // bs)):
        block = blocks[table[index]]
        filled = min(bs, to_tokens - index * bs)
        if filled > block.num_filled_tokens:
            block.num_filled_tokens = filled


def release(kv: BlockManager | LeanPrefixCache, seq: SeqState, computed0: int, final_computed: int) -> int:
    """A sequence that finished in the stretch: settle its blocks, then free them (apply._finish); returns how many
    went back to the free queue (a prompt block another running sequence hit stays in use)."""
    settle_filled(kv, seq, computed0, final_computed)
    num_free = kv.num_free_blocks()
    kv.free(seq.key)
    return kv.num_free_blocks() - num_free
