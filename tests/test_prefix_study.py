"""Prefix-cache study: hand-computed FIFO/LRU/LFU replays, a brute-force reference, LRU's stack property, the CLI."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkviz.cli.main import main
from chunkviz.errors import InputError
from chunkviz.analysis.prefix_study import (
    PREFIX_CACHE_POLICIES,
    block_ids_from_requests,
    hit_rate_curve,
    run_prefix_study,
    unlimited_ceiling,
)
from chunkviz.request import Request, Segment
from tests.helpers import shared_missing, shared_path

# R1..R4 over capacity 3 blocks; 10 prompt blocks in all.
FOUR_REQUESTS = ((1, 2, 3), (1, 2, 4), (5,), (1, 2, 3))


def test_lru_by_hand() -> None:
    # R1 [1,2,3]: 0 hits; touch 3,2,1 -> oldest..newest 3,2,1
    # R2 [1,2,4]: 1 hit, 2 hit, 4 miss = 2; touch 4,2,1 -> 3,4,2,1 -> evict 3 -> 4,2,1
    # R3 [5]:     0 hits; touch 5 -> 4,2,1,5 -> evict 4 -> 2,1,5
    # R4 [1,2,3]: 1 hit, 2 hit, 3 miss = 2; total 4 of 10
    result = run_prefix_study(FOUR_REQUESTS, "lru", 3)
    assert (result.hit_blocks, result.prompt_blocks, result.num_requests, result.hit_rate) == (4, 10, 4, 0.4)


def test_fifo_by_hand() -> None:
    # R1: 0 hits; insert 3,2,1 -> queue 3,2,1
    # R2: hits 1,2 = 2; insert 4 (1 and 2 keep their places) -> 3,2,1,4 -> evict 3 -> 2,1,4
    # R3: 0 hits; insert 5 -> 2,1,4,5 -> evict 2 -> 1,4,5
    # R4: 1 hit, 2 miss = 1 (3 is never reached); insert 3,2 -> 1,4,5,3,2 -> evict 1,4; total 3 of 10
    assert run_prefix_study(FOUR_REQUESTS, "fifo", 3).hit_blocks == 3


def test_lfu_by_hand() -> None:
    # (touches, tick) per block; evict the smallest pair.
    # R1: 0 hits; 3=(1,1) 2=(1,2) 1=(1,3)
    # R2: 2 hits; 4=(1,4) 2=(2,5) 1=(2,6); 4 blocks -> evict 3 (1,1)
    # R3: 0 hits; 5=(1,7); evict 4 (1,4) over 5 (1,7): equal touches, 4 less recent
    # R4: 2 hits; 3=(1,8) 2=(3,9) 1=(3,10); evict 5 (1,7); total 4 of 10
    assert run_prefix_study(FOUR_REQUESTS, "lfu", 3).hit_blocks == 4


def test_lfu_keeps_a_popular_block_that_lru_drops() -> None:
    requests = ((1,), (1,), (2,), (3,), (1,))
    # LRU, 2 blocks: 1 miss; 1 hit; 2 miss -> {1,2}; 3 miss -> evict 1 (least recent) -> {2,3}; 1 miss. 1 hit.
    assert run_prefix_study(requests, "lru", 2).hit_blocks == 1
    # LFU: 1=(2 touches) after R2; 2=(1,t3); 3=(1,t4) -> evict 2 (fewest touches, then least recent); 1 hits. 2 hits.
    assert run_prefix_study(requests, "lfu", 2).hit_blocks == 2


def test_fifo_ignores_hits_that_lru_counts() -> None:
    requests = ((1,), (2,), (1,), (3,), (1,))
    # LRU: {1}; {1,2}; hit 1 -> order 2,1; 3 -> evict 2 -> {1,3}; hit 1. 2 hits.
    assert run_prefix_study(requests, "lru", 2).hit_blocks == 2
    # FIFO: [1]; [1,2]; hit 1 (no reordering); 3 -> evict 1 -> [2,3]; 1 misses. 1 hit.
    assert run_prefix_study(requests, "fifo", 2).hit_blocks == 1


def test_hits_stop_at_the_first_miss() -> None:
    # 2 and 3 stay resident (unlimited), but after the miss on 9 nothing later in R2 counts.
    assert unlimited_ceiling(((1, 2, 3), (9, 2, 3))).hit_blocks == 0
    assert run_prefix_study(((1, 2, 3), (1, 9, 3)), "lru", 10).hit_blocks == 1


@pytest.mark.parametrize("policy", sorted(PREFIX_CACHE_POLICIES))
def test_tail_first_insertion_keeps_the_prefix(policy: str) -> None:
    # Capacity 2, R1 [1,2,3] is touched 3,2,1, so 3 is the oldest and goes: {1,2} remain and R2 [1,2] hits both.
    # Touching head-first would have kept {2,3} and R2 would hit nothing.
    assert run_prefix_study(((1, 2, 3), (1, 2)), policy, 2).hit_blocks == 2


def test_unlimited_ceiling_and_curve_shape() -> None:
    ceiling = unlimited_ceiling(FOUR_REQUESTS)
    # R2 hits 1,2; R4 hits 1,2,3 (nothing evicted): 5 of 10
    assert (ceiling.policy, ceiling.capacity_blocks, ceiling.hit_blocks) == ("unlimited", None, 5)
    curve = hit_rate_curve(iter(FOUR_REQUESTS), [1, 3], ["lru", "fifo"])  # a generator must still work for both
    assert [(r.policy, r.capacity_blocks) for r in curve] == [("lru", 1), ("lru", 3), ("fifo", 1), ("fifo", 3)]
    assert curve[1].to_dict() == {"policy": "lru", "capacity_blocks": 3, "hit_rate": 0.4, "hit_blocks": 4,
                                  "prompt_blocks": 10, "num_requests": 4}


def test_bad_policy_and_capacity() -> None:
    with pytest.raises(InputError, match="unknown prefix-cache policy 'mru'"):
        run_prefix_study(FOUR_REQUESTS, "mru", 3)
    with pytest.raises(InputError, match="capacity"):
        run_prefix_study(FOUR_REQUESTS, "lru", 0)
    assert run_prefix_study((), "lru", 3).hit_rate == 0.0


# ---- brute-force reference and properties ------------------------------------------------------------------------

def _reference_hits(block_lists: Sequence[Sequence[int]], capacity: int, policy: str) -> int:
    """O(n^2) replay: keep (inserted tick, last tick, touches) per block and scan for the victim."""
    state: dict[int, tuple[int, int, int]] = {}
    tick = hits = 0
    for blocks in block_lists:
        for block in blocks:
            if block not in state:
                break
            hits += 1
        for block in reversed(blocks):
            tick += 1
            inserted, _, touches = state.get(block, (tick, tick, 0))
            state[block] = (inserted, tick, touches + 1)
        while len(state) > capacity:
            rank = {"fifo": lambda b: state[b][0], "lru": lambda b: state[b][1],
                    "lfu": lambda b: (state[b][2], state[b][1])}[policy]
            del state[min(state, key=rank)]
    return hits


block_lists_strategy = st.lists(st.lists(st.integers(0, 9), max_size=6), max_size=30)


@settings(max_examples=300, deadline=None)
@given(block_lists=block_lists_strategy, capacity=st.integers(1, 12),
       policy=st.sampled_from(sorted(PREFIX_CACHE_POLICIES)))
def test_matches_brute_force_and_stays_under_the_ceiling(block_lists: list[list[int]], capacity: int,
                                                         policy: str) -> None:
    result = run_prefix_study(block_lists, policy, capacity)
    assert result.hit_blocks == _reference_hits(block_lists, capacity, policy)
    assert result.hit_blocks <= unlimited_ceiling(block_lists).hit_blocks


@settings(max_examples=300, deadline=None)
@given(block_lists=block_lists_strategy, capacity=st.integers(1, 12))
def test_lru_never_loses_hits_with_more_room(block_lists: list[list[int]], capacity: int) -> None:
    # LRU's stack property: the C most recently touched blocks are among the C+1 most recent, so hits can only grow.
    # (FIFO has no such property: Belady's anomaly.)
    assert run_prefix_study(block_lists, "lru", capacity).hit_blocks <= \
        run_prefix_study(block_lists, "lru", capacity + 1).hit_blocks


# ---- block ids from request segments -----------------------------------------------------------------------------

def _request(request_id: int, *segments: Segment) -> Request:
    return Request(request_id, 0.0, sum(s.num_tokens for s in segments), 1, segments=segments)


def test_block_ids_follow_shared_prefixes() -> None:
    a = _request(0, Segment("sys", 600), Segment("a", 100))  # blocks [sys 0..512) [sys 512..600 + a 0..100)
    b = _request(1, Segment("sys", 600), Segment("b", 100))
    c = _request(2, Segment("sys", 1024))  # block 2 is sys 512..1024: full, so not the same as a's partial mix
    d = Request(3, 0.0, 700, 1)  # no segments: unique content
    ids_a, ids_b, ids_c, ids_d = block_ids_from_requests([a, b, c, d], 512)
    assert len(ids_a) == len(ids_b) == len(ids_c) == len(ids_d) == 2
    assert ids_a[0] == ids_b[0] == ids_c[0]
    assert len({ids_a[1], ids_b[1], ids_c[1]}) == 3
    assert not set(ids_d) & set(ids_a + ids_b + ids_c)
    assert block_ids_from_requests([a], 512) == (ids_a,)  # deterministic: blake2b, not hash()


def test_block_ids_depend_on_position_not_just_key() -> None:
    # Same key twice is the same tokens twice; that is not the key's 1024-token content, so block 2 differs.
    twice = _request(0, Segment("x", 512), Segment("x", 512))
    once = _request(1, Segment("x", 1024))
    (ids_twice, ids_once) = block_ids_from_requests([twice, once], 512)
    assert ids_twice[0] == ids_once[0] and ids_twice[1] != ids_once[1]


# ---- CLI ---------------------------------------------------------------------------------------------------------

def _mooncake_file(tmp_path: Path) -> Path:
    path = tmp_path / "mc.jsonl"
    lines = [{"timestamp": 0, "input_length": 1024, "output_length": 5, "hash_ids": [1, 2]},
             {"timestamp": 1000, "input_length": 1000, "output_length": 5, "hash_ids": [1, 3]}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_cli_prefix_cache_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _mooncake_file(tmp_path)
    # 4 blocks: R1 [mc1, mc2]; R2 [mc1, mc3 (488 tokens)]. With 1 block, R1 leaves mc1 (touched last): R2 hits 1.
    assert main(["prefix-cache", "--trace", str(path), "--capacity-blocks", "1", "--policy", "fifo", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert {k: payload[k] for k in ("policy", "capacity_blocks", "hit_blocks", "prompt_blocks", "num_requests")} == \
        {"policy": "fifo", "capacity_blocks": 1, "hit_blocks": 1, "prompt_blocks": 4, "num_requests": 2}
    assert payload["hit_rate"] == 0.25 and payload["unlimited_hit_rate"] == 0.25


def test_cli_prefix_cache_curve_and_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _mooncake_file(tmp_path)
    assert main(["prefix-cache", "--trace", str(path), "--capacity-blocks", "1,4", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert [point["capacity_blocks"] for point in payload["curve"]] == [1, 4]
    assert payload["policy"] == "lru" and payload["num_requests"] == 2
    assert main(["prefix-cache", "--trace", str(path), "--capacity-blocks", "2"]) == 0
    assert "lru at 2 blocks: hit rate 0.2500" in capsys.readouterr().out


def test_cli_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"timestamp": 0, "input_length": 10, "output_length": 1, "hash_ids": [1]}\n{oops\n')
    assert main(["prefix-cache", "--trace", str(bad), "--capacity-blocks", "4"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "line 2" in err
    with pytest.raises(SystemExit) as info:
        main(["prefix-cache", "--trace", str(bad), "--capacity-blocks", "4,zero"])
    assert info.value.code == 2
    assert "whole numbers" in capsys.readouterr().err


# ---- the real Mooncake trace -------------------------------------------------------------------------------------

_MOONCAKE = shared_path("traces/mooncake/conversation_trace.jsonl")


@pytest.mark.skipif(not _MOONCAKE.is_file(), reason=shared_missing(_MOONCAKE))
def test_segment_block_ids_reproduce_mooncake_hash_ids() -> None:
    from chunkviz.workloads.loaders import load_trace

    raw_lists = [json.loads(line)["hash_ids"] for line in _MOONCAKE.read_text().splitlines()[:3000]]
    derived = block_ids_from_requests(load_trace(_MOONCAKE).requests[:3000])  # the file is already in time order
    # The derived ids must be a relabelling of the published ones: one-to-one, block for block.
    pairs = {(d, r) for ds, rs in zip(derived, raw_lists, strict=True) for d, r in zip(ds, rs, strict=True)}
    assert len({d for d, _ in pairs}) == len({r for _, r in pairs}) == len(pairs)
    for policy in sorted(PREFIX_CACHE_POLICIES):
        assert run_prefix_study(derived, policy, 2000) == run_prefix_study(raw_lists, policy, 2000)
