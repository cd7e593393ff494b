"""FIFO, LRU, LFU and OPT: each rule is a rank over a key's `Usage` (the lowest rank leaves first), and one
container, RankedReplacer, keeps the keys in rank order for all four.

Invariant: pop() returns the resident key with the lowest (rank, seq_no), seq_no being the order of puts; order()
lists the resident keys in that order.
"""

from __future__ import annotations

import heapq
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any

from chunkviz.replacement.base import Usage, used_again

Rank = tuple[int, ...]
# A rank function reads a Usage, or the replacer's own mutable copy of one (a list in the same field order, updated
# in place on every use so the prefix-cache study allocates nothing per hit); hence indices, not field names.
UsageRow = Sequence[Any]
LOADED_AT, LAST_USED_AT, USES, NEXT_USE_AT, IS_WORTHLESS = range(5)  # Usage's field order


def fifo_rank(u: UsageRow) -> Rank:
    """FIFO: the content loaded first leaves first; a use changes nothing."""
    return (0, u[LAST_USED_AT]) if u[IS_WORTHLESS] else (1, u[LOADED_AT])


def lfu_rank(tie_break: str) -> Callable[[UsageRow], Rank]:
    """LFU: fewest uses since loaded leaves first; ties to the one loaded first (fifo) or used least recently (lru)."""
    tie = LOADED_AT if tie_break == "fifo" else LAST_USED_AT

    def rank(u: UsageRow) -> Rank:
        return (0, u[LAST_USED_AT]) if u[IS_WORTHLESS] else (1, u[USES], u[tie])
    return rank


def lru_rank(u: UsageRow) -> Rank:
    """LRU: the key used least recently leaves first. is_worthless is ignored on purpose: vLLM's free queue
    (FreeKVCacheBlockQueue, vllm/v1/core/kv_cache_utils.py) is one queue with no separate class for empty blocks."""
    return (u[LAST_USED_AT],)


def opt_rank(u: UsageRow) -> Rank:
    """OPT (Belady): never used again leaves first, then the furthest next use; ties to the one loaded first."""
    if u[IS_WORTHLESS]:
        return (0, u[LAST_USED_AT])
    if u[NEXT_USE_AT] is None:
        return (1, 0, u[LOADED_AT])
    return (2, -u[NEXT_USE_AT], u[LOADED_AT])


class RankedReplacer:
    """The resident keys in (rank, seq_no) order, lowest first; seq_no (the order of puts) breaks exact rank ties,
    so keys themselves are never compared.

    While every put arrives in rank order (always for LRU; for FIFO in the paging lesson and the prefix study) the
    keys sit in an ordered dict and every operation is O(1). The first put that arrives out of order (an LFU count
    going up, an OPT next use, a KV block cached before one freed earlier) builds a min-heap of (rank, seq_no, key)
    with lazy deletion, kept from then on: a re-ranked or discarded key leaves a stale entry that `pop` skips.
    Either way the victim is the same; the ordered dict only saves the heap's log n where it is not needed.
    """

    def __init__(self, rank: Callable[[UsageRow], Rank]) -> None:
        self._rank_of = rank
        # key -> [rank, seq_no, usage row]; mutable so that a use updates it in place
        self._live: OrderedDict[Hashable, list[Any]] = OrderedDict()
        self._heap: list[tuple[Rank, int, Hashable]] | None = None
        self._max_rank: Rank = ()  # the greatest rank put so far; () sorts before every rank
        self._seq_no = 0

    def put(self, key: Hashable, usage: Usage) -> None:
        row = list(usage)
        self._place(key, self._rank_of(row), row)

    def _place(self, key: Hashable, rank: Rank, row: list[Any]) -> None:
        live_of = self._live
        live = live_of.get(key)
        if live is not None and live[0] == rank:
            live[2] = row  # same rank (a FIFO hit): same place in the order
            return
        heap = self._heap
        if heap is None and rank < self._max_rank:  # the first put out of order: from now on, a heap
            # The ordered dict is sorted, so as a list it is already a valid heap.
            self._heap = heap = [(r, n, k) for k, (r, n, _) in live_of.items()]
        self._seq_no += 1
        live_of[key] = [rank, self._seq_no, row]
        if heap is None:
            self._max_rank = rank
            live_of.move_to_end(key)
            return
        heapq.heappush(heap, (rank, self._seq_no, key))
        if len(heap) > 4 * len(live_of) + 1024:  # drop stale entries: memory tracks residents, not uses
            self._heap = [(r, n, k) for k, (r, n, _) in live_of.items()]
            heapq.heapify(self._heap)

    def touch(self, key: Hashable, now: int, next_use_at: int | None = None) -> None:
        self.put(key, used_again(self.usage(key), now, next_use_at))

    def touch_all(self, keys: Iterable[Hashable], now: int) -> int:
        """base.use_all inlined, updating rows in place: the prefix-cache study runs this once per block per
        request (millions of times on an uploaded trace), where each call or allocation per block costs seconds."""
        live_of, rank_of, place, move_to_end = self._live, self._rank_of, self._place, self._live.move_to_end
        for key in keys:
            now += 1
            live = live_of.get(key)
            if live is None:
                row: list[Any] = [now, now, 1, None, False]
                rank = rank_of(row)
                if self._heap is None and rank >= self._max_rank:  # _place's in-order path; a new key goes last
                    self._max_rank, self._seq_no = rank, self._seq_no + 1
                    live_of[key] = [rank, self._seq_no, row]
                else:
                    place(key, rank, row)
                continue
            row = live[2]
            row[LAST_USED_AT], row[USES], row[NEXT_USE_AT] = now, row[USES] + 1, None
            rank = rank_of(row)
            if rank == live[0]:
                continue  # a FIFO hit: same place
            if self._heap is None and rank >= self._max_rank:
                self._max_rank, self._seq_no = rank, self._seq_no + 1
                live[0], live[1] = rank, self._seq_no
                move_to_end(key)
            else:
                place(key, rank, row)
        return now

    def discard(self, key: Hashable) -> None:
        del self._live[key]  # a heap entry, if any, goes stale

    def pop(self) -> Hashable:
        live_of, heap = self._live, self._heap
        if heap is None:
            return live_of.popitem(last=False)[0]
        while heap:  # bounded: each stale entry is dropped once
            _, seq_no, key = heapq.heappop(heap)
            live = live_of.get(key)
            if live is not None and live[1] == seq_no:  # seq_no is unique, so it alone marks the live entry
                del live_of[key]
                return key
        raise IndexError("pop from an empty replacer")

    def shrink_to(self, num_keys: int) -> None:
        live_of, heap = self._live, self._heap
        if heap is None:  # in order: the victims are the first keys (inlined, like touch_all, for the study)
            for _ in range(len(live_of) - num_keys):
                live_of.popitem(last=False)
            return
        while len(live_of) > num_keys:  # bounded: each pass pops one heap entry, and the heap holds every key
            _, seq_no, key = heapq.heappop(heap)
            live = live_of.get(key)
            if live is not None and live[1] == seq_no:
                del live_of[key]

    def order(self) -> list[Hashable]:
        if self._heap is None:
            return list(self._live)
        return [key for key, _ in sorted(self._live.items(), key=lambda item: item[1][:2])]

    def usage(self, key: Hashable) -> Usage:
        return Usage(*self._live[key][2])

    def __contains__(self, key: object) -> bool:
        return key in self._live

    def __len__(self) -> int:
        return len(self._live)
