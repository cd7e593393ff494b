"""The replacement rules behind one interface: each rule's victim is the lowest rank (ties to the earliest put),
whether the container is still an ordered dict or has fallen back to a heap; Clock gives second chances."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkviz.replacement import RULES, ClockReplacer, Convention, Usage, make_replacer
from chunkviz.replacement.ranked import fifo_rank, lfu_rank, lru_rank, opt_rank

RANKS = {"fifo": fifo_rank, "lru": lru_rank, "lfu": lfu_rank("lru"), "opt": opt_rank}

# An operation: (kind, key, worthless flag, next use); kinds put/touch/discard/pop.
ops_strategy = st.lists(st.tuples(st.sampled_from(("put", "touch", "discard", "pop")), st.integers(0, 6),
                                  st.booleans(), st.none() | st.integers(0, 50)), max_size=60)


@settings(max_examples=150, deadline=None)
@given(rule=st.sampled_from(sorted(RANKS)), ops=ops_strategy)
def test_ranked_rules_match_a_naive_sort_by_rank_then_put_order(rule, ops):
    replacer = make_replacer(rule, Convention(lfu_tie_break="lru"))
    naive: dict[int, tuple[tuple[int, ...], int, Usage]] = {}  # key -> (rank, put order, usage)
    for now, (kind, key, worthless, next_use) in enumerate(ops, start=1):
        if kind == "put" and key not in naive:
            usage = Usage(now, now, 1, next_use, worthless)
            replacer.put(key, usage)
            naive[key] = (RANKS[rule](usage), now, usage)
        elif kind == "touch" and key in naive:
            replacer.touch(key, now, next_use)
            old = naive[key][2]
            usage = Usage(old.loaded_at, now, old.uses + 1, next_use, old.is_worthless)
            rank = RANKS[rule](usage)
            naive[key] = (rank, naive[key][1] if rank == naive[key][0] else now, usage)
        elif kind == "discard" and key in naive:
            replacer.discard(key)
            del naive[key]
        elif kind == "pop" and naive:
            expected = min(naive, key=lambda k: naive[k][:2])
            assert replacer.pop() == expected
            del naive[expected]
        assert replacer.order() == sorted(naive, key=lambda k: naive[k][:2])
        assert len(replacer) == len(naive) and all(k in replacer for k in naive)


def _faults(rule: str, refs: tuple[int, ...], num_frames: int) -> int:
    """The paging loop in its plainest form, straight on the interface."""
    replacer, faults = make_replacer(rule, Convention(), num_frames), 0
    next_use = [next((j for j in range(i + 1, len(refs)) if refs[j] == p), None) for i, p in enumerate(refs)]
    for i, page in enumerate(refs):
        if page in replacer:
            replacer.touch(page, i, next_use[i])
            continue
        faults += 1
        replacer.shrink_to(num_frames - 1)
        replacer.put(page, Usage(i, i, next_use_at=next_use[i]))
    return faults


@pytest.mark.parametrize(("rule", "expected"), [("fifo", 15), ("lru", 12), ("opt", 9)])
def test_textbook_fault_counts_through_the_interface(rule, expected):
    # Silberschatz et al., Operating System Concepts: this string with 3 frames.
    refs = (7, 0, 1, 2, 0, 3, 0, 4, 2, 3, 0, 3, 2, 1, 2, 0, 1, 7, 0, 1)
    assert _faults(rule, refs, 3) == expected


def test_every_rule_is_registered_and_clock_needs_its_ring_size():
    assert tuple(RULES) == ("fifo", "lru", "opt", "clock", "lfu")
    with pytest.raises(ValueError, match="num_slots"):
        make_replacer("clock")
    with pytest.raises(ValueError, match="unknown replacement rule"):
        make_replacer("mru")


def test_clock_gives_a_referenced_page_a_second_chance():
    clock = make_replacer("clock", Convention(clock_ref_bit_on_load=False), 3)
    assert isinstance(clock, ClockReplacer)
    for page in (1, 2, 3):
        clock.put(page, Usage(page, page))
    clock.touch(1, 4)  # R bit of page 1 set: the hand passes over it once
    assert clock.pop() == 2 and clock.order() == [3, 1]


def test_fifo_and_lfu_take_worthless_keys_first_but_lru_keeps_one_queue():
    for rule, first in (("fifo", "empty"), ("lfu", "empty"), ("lru", "old")):
        replacer = make_replacer(rule)
        replacer.put("old", Usage(1, 1))
        replacer.put("empty", Usage(0, 2, is_worthless=True))
        assert replacer.pop() == first, rule
