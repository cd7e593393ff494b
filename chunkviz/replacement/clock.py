"""Clock (second chance), the one rule that is not a rank: its choice depends on a hand and reference bits.

Invariant: a key sits in exactly one of the ring's fixed slots; a new key takes the empty slot at (or after) the
hand, so a resident key never moves.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable

from chunkviz.replacement.base import Usage, use_all, used_again

class ClockReplacer:
    """Clock (second chance) over a ring of `num_slots` slots: a use sets the key's R bit; to choose a victim the
    hand clears R=1 bits until it finds R=0. A new key takes the empty slot at (or after) the hand and the hand
    moves past it, since it is the newest."""

    def __init__(self, num_slots: int, ref_bit_on_load: bool = True) -> None:
        if num_slots < 1:
            raise ValueError(f"Clock needs at least one slot, got {num_slots}")
        self.slots: list[Hashable | None] = [None] * num_slots
        self.ref_bits = [0] * num_slots
        self.hand = 0
        self._load_bit = 1 if ref_bit_on_load else 0
        self._usage: dict[Hashable, Usage] = {}
        self._slot_of: dict[Hashable, int] = {}

    def put(self, key: Hashable, usage: Usage) -> None:
        if key in self._slot_of:
            self._usage[key] = usage
            self.ref_bits[self._slot_of[key]] = 1
            return
        n = len(self.slots)
        free = next((s for s in ((self.hand + k) % n for k in range(n)) if self.slots[s] is None), None)
        if free is None:
            raise IndexError("put into a full Clock: pop a victim first")
        self.slots[free], self.ref_bits[free] = key, self._load_bit
        self._usage[key], self._slot_of[key] = usage, free
        self.hand = (free + 1) % n

    def touch(self, key: Hashable, now: int, next_use_at: int | None = None) -> None:
        self.put(key, used_again(self._usage[key], now, next_use_at))

    def touch_all(self, keys: Iterable[Hashable], now: int) -> int:
        return use_all(self, keys, now)

    def discard(self, key: Hashable) -> None:
        slot = self._slot_of.pop(key)
        del self._usage[key]
        self.slots[slot], self.ref_bits[slot] = None, 0

    def pop(self) -> Hashable:
        if not self._usage:
            raise IndexError("pop from an empty replacer")
        n = len(self.slots)
        # Bounded: one full sweep clears every bit, so the second sweep must stop at a resident key.
        for _ in range(2 * n):
            if self.slots[self.hand] is not None and self.ref_bits[self.hand] == 0:
                break
            self.ref_bits[self.hand] = 0
            self.hand = (self.hand + 1) % n
        victim = self.slots[self.hand]
        assert victim is not None  # the sweep above stops only at a resident key
        self.discard(victim)
        return victim

    def shrink_to(self, num_keys: int) -> None:
        for _ in range(len(self._usage) - num_keys):
            self.pop()

    def order(self) -> list[Hashable]:
        """The ring walked from the hand: the first key listed is the first one the hand examines."""
        ring = ((self.hand + k) % len(self.slots) for k in range(len(self.slots)))
        return [self.slots[s] for s in ring if self.slots[s] is not None]

    def ref_bit(self, key: Hashable) -> int:
        return self.ref_bits[self._slot_of[key]]

    def usage(self, key: Hashable) -> Usage:
        return self._usage[key]

    def __contains__(self, key: object) -> bool:
        return key in self._usage

    def __len__(self) -> int:
        return len(self._usage)
