"""Which free block is reused next: one class per policy plus one registry entry.

Invariant: a policy holds exactly the blocks whose ref count is 0 (the free queue); `pop` returns one of them and
forgets it, `remove` forgets a block that was hit and is in use again.

All policies keep blocks that were never cached (or were already evicted) ahead of cached ones in the sense that
matters: LRU follows vLLM's single queue (freed blocks join the tail, allocation takes the head), so a cached block
near the head dies before an empty block near the tail, exactly as in vLLM; FIFO and LFU take empty blocks first
and then rank cached blocks by their own rule.
"""

from __future__ import annotations

import heapq
from collections import OrderedDict
from typing import Callable, Protocol


class EvictionPolicy(Protocol):
    def push(self, block_id: int, is_cached: bool, cached_seq_no: int, num_hits: int) -> None: ...
    def remove(self, block_id: int) -> None: ...
    def pop(self) -> int: ...
    def order(self) -> list[int]: ...
    def __len__(self) -> int: ...


class LruEviction:
    """vLLM's FreeKVCacheBlockQueue: LRU at the head; a request's blocks are pushed tail-first by the caller."""

    def __init__(self) -> None:
        self._queue: OrderedDict[int, None] = OrderedDict()

    def push(self, block_id: int, is_cached: bool, cached_seq_no: int, num_hits: int) -> None:
        self._queue[block_id] = None

    def remove(self, block_id: int) -> None:
        del self._queue[block_id]

    def pop(self) -> int:
        return self._queue.popitem(last=False)[0]

    def order(self) -> list[int]:
        return list(self._queue)

    def __len__(self) -> int:
        return len(self._queue)


class _RankedEviction:
    """A heap with lazy deletion; subclasses say how a free block ranks (lowest ranks are reused first)."""

    def __init__(self) -> None:
        self._heap: list[tuple[tuple[int, ...], int]] = []
        self._rank: dict[int, tuple[int, ...]] = {}
        self._push_seq_no = 0

    def _key(self, is_cached: bool, cached_seq_no: int, num_hits: int, push_seq_no: int) -> tuple[int, ...]:
        raise NotImplementedError

    def push(self, block_id: int, is_cached: bool, cached_seq_no: int, num_hits: int) -> None:
        self._push_seq_no += 1
        rank = self._key(is_cached, cached_seq_no, num_hits, self._push_seq_no)
        self._rank[block_id] = rank
        heapq.heappush(self._heap, (rank, block_id))

    def remove(self, block_id: int) -> None:
        del self._rank[block_id]  # the heap entry goes stale and is skipped by pop

    def pop(self) -> int:
        while self._heap:  # bounded: each stale entry is dropped once
            rank, block_id = heapq.heappop(self._heap)
            if self._rank.get(block_id) == rank:
                del self._rank[block_id]
                return block_id
        raise IndexError("pop from an empty free queue")

    def order(self) -> list[int]:
        return [b for _, b in sorted((r, b) for b, r in self._rank.items())]

    def __len__(self) -> int:
        return len(self._rank)


class FifoEviction(_RankedEviction):
    """Empty blocks first, then the block whose content was cached earliest."""

    def _key(self, is_cached: bool, cached_seq_no: int, num_hits: int, push_seq_no: int) -> tuple[int, ...]:
        return (1, cached_seq_no, push_seq_no) if is_cached else (0, push_seq_no, 0)


class LfuEviction(_RankedEviction):
    """Empty blocks first, then the cached block with the fewest prefix hits; ties go to the longest-free (LRU)."""

    def _key(self, is_cached: bool, cached_seq_no: int, num_hits: int, push_seq_no: int) -> tuple[int, ...]:
        return (1, num_hits, push_seq_no) if is_cached else (0, push_seq_no, 0)


EVICTION_POLICIES: dict[str, Callable[[], EvictionPolicy]] = {
    "lru": LruEviction,
    "fifo": FifoEviction,
    "lfu": LfuEviction,
}
