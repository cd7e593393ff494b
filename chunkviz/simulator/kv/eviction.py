"""Which free block is reused next: the KV block manager's free queue, ordered by one rule of chunkviz.replacement.

Invariant: the queue holds exactly the blocks whose ref count is 0; `pop` returns one of them and forgets it,
`remove` forgets a block that was hit and is in use again.

A block enters with what the rule may know of it: loaded_at = when its content was cached (cached_seq_no),
last_used_at = when it was freed (push order), uses = its prefix hits, and is_worthless for a block that holds no
cached content. LRU follows vLLM's single queue (freed blocks join the tail, allocation takes the head; see
replacement.ranked.lru_rank), so a cached block near the head dies before an empty block near the tail, exactly as in
vLLM; FIFO and LFU take empty blocks first and then rank cached blocks by their own rule, LFU's ties going to the
block freed longest ago.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Callable, cast

from chunkviz.replacement import Convention, Replacer, Usage, make_replacer


class FreeBlockQueue:
    """The free blocks, next to be reused first, under one replacement rule."""

    def __init__(self, rule: str) -> None:
        self.rule = rule
        self._replacer: Replacer = make_replacer(rule, Convention(lfu_tie_break="lru"))
        self._push_seq_no = 0
        # The replacer's own methods, bound once: the block manager calls these for every block it frees or
        # reuses, and a wrapper call each time showed in profiles. Only block ids (ints) are ever pushed.
        self.remove: Callable[[int], None] = self._replacer.discard
        self.pop = cast(Callable[[], int], self._replacer.pop)
        self.order = cast(Callable[[], list[int]], self._replacer.order)

    def push(self, block_id: int, is_cached: bool, cached_seq_no: int, num_hits: int) -> None:
        self._push_seq_no += 1
        # Positional: loaded_at (when the content was cached), last_used_at (when freed), uses, next use, worthless.
        self._replacer.put(block_id, Usage(cached_seq_no, self._push_seq_no, num_hits, None, not is_cached))

    def __len__(self) -> int:
        return len(self._replacer)


class LruFreeBlockQueue:
    """LRU's free queue as one ordered dict: freed blocks join the tail, allocation takes the head.

    The same order as FreeBlockQueue("lru"): lru_rank is the push number, which only grows, so RankedReplacer keeps
    LRU keys in its ordered dict in push order and never builds its heap (tests/test_prefix_cache.py replays both).
    This one skips the Usage and rank built per push, which showed in profiles of prefix-cached runs (a push and a
    pop per block of every request).
    """

    rule = "lru"

    def __init__(self) -> None:
        # Public so that the block manager's loops (a pop and a push per block of every request) use it directly.
        self.ordered: OrderedDict[int, None] = OrderedDict()
        self.remove: Callable[[int], None] = self.ordered.__delitem__

    def push(self, block_id: int, is_cached: bool, cached_seq_no: int, num_hits: int) -> None:
        self.ordered[block_id] = None  # never already in: a block is pushed when its last holder lets go

    def pop(self) -> int:
        return self.ordered.popitem(last=False)[0]

    def order(self) -> list[int]:
        return list(self.ordered)

    def __len__(self) -> int:
        return len(self.ordered)


def _queue(rule: str) -> Callable[[], FreeBlockQueue]:
    return lambda: FreeBlockQueue(rule)


# Eviction name (CacheConfig.eviction) -> factory; a new one is a rule in chunkviz.replacement plus one entry here.
EVICTION_POLICIES: dict[str, Callable[[], FreeBlockQueue | LruFreeBlockQueue]] = {
    "lru": LruFreeBlockQueue, "fifo": _queue("fifo"), "lfu": _queue("lfu")}
