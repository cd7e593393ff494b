"""The registry of replacement rules: name -> factory, in the order the paging lesson shows them.

Invariant: every factory returns an empty Replacer; a new rule is one rank function in ranked.py (or one class
with the Replacer methods) plus one entry in RULES.
"""

from __future__ import annotations

from collections.abc import Callable

from chunkviz.replacement.base import Convention, Replacer
from chunkviz.replacement.clock import ClockReplacer
from chunkviz.replacement.ranked import RankedReplacer, fifo_rank, lfu_rank, lru_rank, opt_rank


def _clock(convention: Convention, num_slots: int | None) -> Replacer:
    if num_slots is None:
        raise ValueError("Clock needs num_slots: the hand walks a ring of fixed size")
    return ClockReplacer(num_slots, convention.clock_ref_bit_on_load)


# Rule name -> factory(convention, num_slots); the order is the order the paging lesson shows them in.
RULES: dict[str, Callable[[Convention, int | None], Replacer]] = {
    "fifo": lambda convention, num_slots: RankedReplacer(fifo_rank),
    "lru": lambda convention, num_slots: RankedReplacer(lru_rank),
    "opt": lambda convention, num_slots: RankedReplacer(opt_rank),
    "clock": _clock,
    "lfu": lambda convention, num_slots: RankedReplacer(lfu_rank(convention.lfu_tie_break)),
}


def make_replacer(rule: str, convention: Convention = Convention(), num_slots: int | None = None) -> Replacer:
    """A fresh, empty replacer for `rule` (a RULES key); num_slots is needed by Clock only."""
    if rule not in RULES:
        raise ValueError(f"unknown replacement rule {rule!r}; choose one of {', '.join(RULES)}")
    return RULES[rule](convention, num_slots)
