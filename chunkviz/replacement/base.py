"""What every replacement rule sees (`Usage`), the textbook conventions that change its choice (`Convention`) and
the one interface all rules share (`Replacer`).

Invariant: a Replacer holds each key at most once; `pop` returns a resident key and forgets it; `order()` lists
exactly the resident keys, next victim first.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

LFU_TIE_BREAKS: tuple[str, ...] = ("fifo", "lru")


class Usage(NamedTuple):
    """What a rule may know of one resident key; times are ticks of the caller's clock (only their order matters).

    A NamedTuple, not a dataclass: the prefix-cache study builds one per block per request, so it must be cheap.
    """

    loaded_at: int                  # when the content was loaded (FIFO; LFU ties under "fifo"; OPT ties)
    last_used_at: int               # the latest use (LRU; LFU ties under "lru"); must only grow for LRU
    uses: int = 1                   # uses since loaded (LFU); a reloaded key starts again
    next_use_at: int | None = None  # the next use, None = never again (OPT, which needs the future)
    is_worthless: bool = False      # holds nothing worth keeping (an empty KV block): FIFO, LFU and OPT take it first


@dataclass(frozen=True, slots=True)
class Convention:
    """Textbook conventions that change fault counts; every paging result reports the one it used."""

    clock_ref_bit_on_load: bool = field(default=True, metadata={
        "help": "Clock: a freshly loaded page starts with R=1 (True, Clock then acts like FIFO until a hit) or R=0"})
    # A plain str checked below (one of LFU_TIE_BREAKS), so callers passing user input need no cast.
    lfu_tie_break: str = field(default="fifo", metadata={
        "help": "LFU: among pages with the lowest count evict the one loaded first (fifo) or used least "
                "recently (lru)"})

    def __post_init__(self) -> None:
        if not isinstance(self.clock_ref_bit_on_load, bool):
            raise ValueError(f"clock_ref_bit_on_load must be True or False, got {self.clock_ref_bit_on_load!r}")
        if self.lfu_tie_break not in LFU_TIE_BREAKS:
            raise ValueError(f"lfu_tie_break must be one of {', '.join(LFU_TIE_BREAKS)}, got {self.lfu_tie_break!r}")


class Replacer(Protocol):
    """A set of resident keys plus the rule that picks the next victim."""

    def put(self, key: Hashable, usage: Usage) -> None: ...  # admit a key, or record a use of a resident one

    def touch(self, key: Hashable, now: int, next_use_at: int | None = None) -> None: ...  # a hit on a resident key

    def touch_all(self, keys: Iterable[Hashable], now: int) -> int: ...  # use_all below: touch or put each key in turn

    def discard(self, key: Hashable) -> None: ...  # forget a resident key without evicting it

    def pop(self) -> Hashable: ...  # choose the victim and forget it

    def shrink_to(self, num_keys: int) -> None: ...  # pop victims until at most num_keys are resident

    def order(self) -> list[Hashable]: ...  # the resident keys, next victim first

    def usage(self, key: Hashable) -> Usage: ...

    def __contains__(self, key: object) -> bool: ...

    def __len__(self) -> int: ...


def used_again(usage: Usage, now: int, next_use_at: int | None) -> Usage:
    """The usage after one more use at `now` (a hit): loaded_at and is_worthless stay, uses grows by one."""
    return Usage(usage.loaded_at, now, usage.uses + 1, next_use_at, usage.is_worthless)


def use_all(replacer: Replacer, keys: Iterable[Hashable], now: int) -> int:
    """Use each key in order at ticks now+1, now+2, ...: touch a resident key, put a new one with
    Usage(tick, tick); returns the last tick. The plain loop; RankedReplacer (FIFO, LRU, LFU, OPT), which runs in
    the prefix-cache study's hot loop, inlines it in its own touch_all."""
    for key in keys:
        now += 1
        if key in replacer:
            replacer.touch(key, now)
        else:
            replacer.put(key, Usage(now, now))
    return now
