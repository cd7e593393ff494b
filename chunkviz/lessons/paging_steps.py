"""One replacement rule run over a reference string, one `PagingStep` per reference: the slot view, the rule's
order view and the reason, in English. The rules themselves live in chunkviz.replacement; this module only
drives them and records what the page and the CLI show.

Invariant: each step's `frames` has exactly num_frames slots, a resident page never changes slot, a page is in at
most one slot, and `order` lists exactly the resident pages with the next victim candidate first.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast
from dataclasses import dataclass

from chunkviz.replacement import ClockReplacer, Convention, Replacer, Usage, make_replacer

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
    # The rule's fact about the victim when it was chosen (None on a hit or a free-frame load), 0-based indices:
    # FIFO its load, LRU its last use, OPT its next use (None: never), LFU its use count, Clock how many resident
    # pages the hand gave a second chance (cleared R=1) before it. See _victim_value.
    victim_value: int | None = None


# What each rule's order view shows per page (rule, resident page, now) -> value; OPT shows the distance to the
# next use, None for never.
_ORDER_VALUE: dict[str, Callable[[Replacer, int, int], int | None]] = {
    "fifo": lambda r, page, now: r.usage(page).loaded_at,
    "lru": lambda r, page, now: r.usage(page).last_used_at,
    "opt": lambda r, page, now: _distance(r.usage(page).next_use_at, now),
    "clock": lambda r, page, now: r.ref_bit(page) if isinstance(r, ClockReplacer) else None,
    "lfu": lambda r, page, now: r.usage(page).uses,
}


def _distance(next_index: int | None, now: int) -> int | None:
    return None if next_index is None else next_index - now


def _next_use_after(refs: tuple[int, ...]) -> list[int | None]:
    # next_use[i] = the next index j > i with refs[j] == refs[i], None if never; one backward pass, O(n).
    next_use: list[int | None] = [None] * len(refs)
    seen: dict[int, int] = {}
    for j in range(len(refs) - 1, -1, -1):
        next_use[j] = seen.get(refs[j])
        seen[refs[j]] = j
    return next_use


def _victim_fact(rule: str, usage: Usage, before: list[int], victim: int, first_bit: int) -> int | None:
    """What the rule knew of `victim` when it chose it (see PagingStep.victim_value); `before` is order() before
    the pop and `first_bit` the R bit of its first page (Clock only)."""
    if rule == "clock":
        # order() walks the ring from the hand; every page the hand passed before the victim had R=1 and was
        # cleared. A victim first in line had R=0 (none passed) or was found after a full sweep (all cleared).
        index = before.index(victim)
        return len(before) if index == 0 and first_bit else index
    return {"fifo": usage.loaded_at, "lru": usage.last_used_at, "opt": usage.next_use_at, "lfu": usage.uses}[rule]


def _evict(rule: str, replacer: Replacer) -> tuple[int, str, int | None]:
    """Pop the rule's victim; OPT names a victim never used again apart from one used furthest ahead."""
    before = cast(list[int], replacer.order())  # the keys run_steps puts in are pages (ints)
    never = rule == "opt" and replacer.usage(before[0]).next_use_at is None
    usages = {p: replacer.usage(p) for p in before}
    first_bit = replacer.ref_bit(before[0]) if isinstance(replacer, ClockReplacer) else 0
    victim = cast(int, replacer.pop())
    value = _victim_fact(rule, usages[victim], before, victim, first_bit)
    return victim, "evict_opt_never" if never else f"evict_{rule}", value


def run_steps(rule: str, refs: tuple[int, ...], num_frames: int, convention: Convention) -> tuple[PagingStep, ...]:
    """Every step of `rule` over refs with num_frames frames (inputs already checked by lessons.paging)."""
    replacer = make_replacer(rule, convention, num_frames)
    next_use = _next_use_after(refs)
    slots: list[int | None] = [None] * num_frames
    steps: list[PagingStep] = []
    for i, page in enumerate(refs):
        victim, code, fact = None, "hit", None
        if page in replacer:
            replacer.touch(page, i, next_use[i])
        else:
            victim, code, fact = _evict(rule, replacer) if len(replacer) == num_frames else (None, "load_free", None)
            slots[slots.index(victim)] = page  # the victim's slot (other pages stay put), else the lowest empty one
            replacer.put(page, Usage(loaded_at=i, last_used_at=i, next_use_at=next_use[i]))
        order = tuple(cast(int, p) for p in replacer.order())  # the keys this loop put in are pages (ints)
        values = tuple(_ORDER_VALUE[rule](replacer, p, i) for p in order)
        hand = replacer.hand if isinstance(replacer, ClockReplacer) else None
        reason = REASON_TEMPLATES[code].format(page=page, victim=victim)
        steps.append(PagingStep(i, page, code == "hit", tuple(slots), order, values, hand, victim, code, reason,
                                fact))
    return tuple(steps)
