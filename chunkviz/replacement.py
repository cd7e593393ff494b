"""The five page-replacement algorithms (FIFO, LRU, OPT, Clock, LFU), one function each, returning per-reference steps.

Invariant: each step's `frames` has exactly num_frames slots, a resident page never changes slot, a page is in at
most one slot, and `order` lists exactly the resident pages with the next victim candidate first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

LfuTieBreak = Literal["fifo", "lru"]
LFU_TIE_BREAKS: tuple[str, ...] = ("fifo", "lru")

# One English template per reason code; the UI keeps a dict with the same keys for other languages.
# Templates use only {page} and {victim}, so any translation can be filled from the step itself.
REASON_TEMPLATES: dict[str, str] = {
    "hit": "hit: {page} already in memory",
    "load_free": "miss: load {page} into a free frame",
    "evict_fifo": "miss: evict {victim}, loaded first",
    "evict_lru": "miss: evict {victim}, used least recently",
    "evict_opt": "miss: evict {victim}, next used furthest in future",
    "evict_opt_never": "miss: evict {victim}, never used again",
    "evict_clock": "miss: evict {victim}, first page the hand found with R=0",
    "evict_lfu": "miss: evict {victim}, used least often",
}


@dataclass(frozen=True, slots=True)
class PagingConvention:
    """Textbook conventions that change fault counts; every result reports the one it used."""

    clock_ref_bit_on_load: bool = field(default=True, metadata={
        "help": "Clock: a freshly loaded page starts with R=1 (True, Clock then acts like FIFO until a hit) or R=0"})
    lfu_tie_break: LfuTieBreak = field(default="fifo", metadata={
        "help": "LFU: among pages with the lowest count evict the one loaded first (fifo) or used least recently (lru)"})

    def __post_init__(self) -> None:
        if not isinstance(self.clock_ref_bit_on_load, bool):
            raise ValueError(f"clock_ref_bit_on_load must be True or False, got {self.clock_ref_bit_on_load!r}")
        if self.lfu_tie_break not in LFU_TIE_BREAKS:
            raise ValueError(f"lfu_tie_break must be one of {', '.join(LFU_TIE_BREAKS)}, got {self.lfu_tie_break!r}")


@dataclass(frozen=True, slots=True)
class PagingStep:
    """State right after reference `index`: slot view, the algorithm's order view, and why."""

    index: int                          # 0-based position in the reference string
    page: int                           # the page referenced
    is_hit: bool
    frames: tuple[int | None, ...]      # slot view: frames[k] is the page in slot k, None if empty
    order: tuple[int, ...]              # resident pages, next victim candidate first (FIFO queue, LRU recency, ...)
    order_values: tuple[int | None, ...]  # per `order` entry: load index, last use, next-use distance, R bit or count
    hand: int | None                    # Clock only: the slot the hand points at; None for other algorithms
    victim: int | None                  # page evicted by this reference, None on a hit or a free-frame load
    reason_code: str                    # key of REASON_TEMPLATES
    reason: str                         # REASON_TEMPLATES[reason_code] filled in, one English line


PagingAlgorithm = Callable[[tuple[int, ...], int, PagingConvention], tuple[PagingStep, ...]]


def _load(slots: list[int | None], page: int, victim: int | None) -> None:
    # The new page takes the victim's slot (slot view: other pages stay put), else the lowest empty slot.
    slots[slots.index(victim)] = page


def _step(index: int, page: int, slots: list[int | None], order: tuple[int, ...],
          order_values: tuple[int | None, ...], victim: int | None, code: str,
          hand: int | None = None) -> PagingStep:
    reason = REASON_TEMPLATES[code].format(page=page, victim=victim)
    return PagingStep(index, page, code == "hit", tuple(slots), order, order_values, hand, victim, code, reason)


def fifo(refs: tuple[int, ...], num_frames: int, convention: PagingConvention) -> tuple[PagingStep, ...]:
    """FIFO: evict the page loaded earliest; a hit changes nothing. Order values: index at which each was loaded."""
    slots: list[int | None] = [None] * num_frames
    loaded_at: dict[int, int] = {}  # insertion order is the queue, oldest first
    steps: list[PagingStep] = []
    for i, page in enumerate(refs):
        victim, code = None, "hit"
        if page not in loaded_at:
            code = "load_free" if None in slots else "evict_fifo"
            if code == "evict_fifo":
                victim = next(iter(loaded_at))
                del loaded_at[victim]
            _load(slots, page, victim)
            loaded_at[page] = i
        order = tuple(loaded_at)
        steps.append(_step(i, page, slots, order, tuple(loaded_at[p] for p in order), victim, code))
    return tuple(steps)


def lru(refs: tuple[int, ...], num_frames: int, convention: PagingConvention) -> tuple[PagingStep, ...]:
    """LRU: evict the page whose last use is oldest. Order values: index of each page's last use."""
    slots: list[int | None] = [None] * num_frames
    last_used: dict[int, int] = {}  # re-inserted on every use, so insertion order is least -> most recent
    steps: list[PagingStep] = []
    for i, page in enumerate(refs):
        victim, code = None, "hit"
        if page in last_used:
            del last_used[page]
        else:
            code = "load_free" if None in slots else "evict_lru"
            if code == "evict_lru":
                victim = next(iter(last_used))
                del last_used[victim]
            _load(slots, page, victim)
        last_used[page] = i
        order = tuple(last_used)
        steps.append(_step(i, page, slots, order, tuple(last_used[p] for p in order), victim, code))
    return tuple(steps)


def _next_use_after(refs: tuple[int, ...]) -> list[int | None]:
    # next_use[i] = the next index j > i with refs[j] == refs[i], None if never; one backward pass, O(n).
    next_use: list[int | None] = [None] * len(refs)
    seen: dict[int, int] = {}
    for j in range(len(refs) - 1, -1, -1):
        next_use[j] = seen.get(refs[j])
        seen[refs[j]] = j
    return next_use


def _distance(next_index: int | None, now: int) -> int | None:
    return None if next_index is None else next_index - now


def opt(refs: tuple[int, ...], num_frames: int, convention: PagingConvention) -> tuple[PagingStep, ...]:
    """OPT (Belady): evict the page next used furthest ahead, never-used first, ties to the one loaded first.

    Order values: references until the page's next use (None = never again).
    """
    slots: list[int | None] = [None] * num_frames
    next_use = _next_use_after(refs)
    loaded_at: dict[int, int] = {}
    upcoming: dict[int, int | None] = {}  # resident page -> index of its next use; valid because set at its last use
    steps: list[PagingStep] = []

    def priority(p: int) -> tuple[bool, int, int]:
        nxt = upcoming[p]  # never-used sorts first, then furthest next use, then loaded first
        return (False, 0, loaded_at[p]) if nxt is None else (True, -nxt, loaded_at[p])

    for i, page in enumerate(refs):
        victim, code = None, "hit"
        if page not in loaded_at:
            code = "load_free" if None in slots else "evict_opt"
            if code == "evict_opt":
                victim = min(loaded_at, key=priority)
                code = "evict_opt_never" if upcoming[victim] is None else code
                del loaded_at[victim], upcoming[victim]
            _load(slots, page, victim)
            loaded_at[page] = i
        upcoming[page] = next_use[i]
        order = tuple(sorted(loaded_at, key=priority))
        values = tuple(_distance(upcoming[p], i) for p in order)
        steps.append(_step(i, page, slots, order, values, victim, code))
    return tuple(steps)


def clock(refs: tuple[int, ...], num_frames: int, convention: PagingConvention) -> tuple[PagingStep, ...]:
    """Clock (second chance): the hand clears R=1 bits until it finds R=0 or an empty slot. Order values: R bits."""
    slots: list[int | None] = [None] * num_frames
    ref_bits = [0] * num_frames
    hand = 0
    load_bit = 1 if convention.clock_ref_bit_on_load else 0
    steps: list[PagingStep] = []
    for i, page in enumerate(refs):
        victim, code = None, "hit"
        if page in slots:
            ref_bits[slots.index(page)] = 1
        else:
            # Bounded: one full sweep clears every bit, so the second sweep must stop.
            for _ in range(2 * num_frames):
                if slots[hand] is None or ref_bits[hand] == 0:
                    break
                ref_bits[hand] = 0
                hand = (hand + 1) % num_frames
            victim = slots[hand]
            code = "load_free" if victim is None else "evict_clock"
            slots[hand], ref_bits[hand] = page, load_bit
            hand = (hand + 1) % num_frames  # the loaded page is the newest, so the hand moves past it
        # The order view walks the circle from the hand: the first slot listed is the first one examined.
        ring = [(hand + k) % num_frames for k in range(num_frames)]
        order = tuple(slots[k] for k in ring if slots[k] is not None)  # type: ignore[misc]
        values = tuple(ref_bits[k] for k in ring if slots[k] is not None)
        steps.append(_step(i, page, slots, order, values, victim, code, hand))
    return tuple(steps)


def lfu(refs: tuple[int, ...], num_frames: int, convention: PagingConvention) -> tuple[PagingStep, ...]:
    """LFU: evict the page with the fewest uses since it was loaded; ties per convention. Order values: counts."""
    slots: list[int | None] = [None] * num_frames
    counts: dict[int, int] = {}  # reset when a page is evicted: a reloaded page starts again at 1
    loaded_at: dict[int, int] = {}
    last_used: dict[int, int] = {}
    tie_at = loaded_at if convention.lfu_tie_break == "fifo" else last_used
    steps: list[PagingStep] = []

    def priority(p: int) -> tuple[int, int]:
        return (counts[p], tie_at[p])

    for i, page in enumerate(refs):
        victim, code = None, "hit"
        if page in counts:
            counts[page] += 1
        else:
            code = "load_free" if None in slots else "evict_lfu"
            if code == "evict_lfu":
                victim = min(counts, key=priority)
                del counts[victim], loaded_at[victim], last_used[victim]
            _load(slots, page, victim)
            counts[page], loaded_at[page] = 1, i
        last_used[page] = i
        order = tuple(sorted(counts, key=priority))
        steps.append(_step(i, page, slots, order, tuple(counts[p] for p in order), victim, code))
    return tuple(steps)
