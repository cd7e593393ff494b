"""kv_stage: what changed per step on hand-built KV scenarios (prefix hit, copy-on-write, eviction, preemption),
and the stage's delta encoding replaying to exactly each step's snapshot."""

from __future__ import annotations

import json

import pytest

from chunkviz.config import CacheConfig
from chunkviz.lessons.kv_stage import CHANGE_KINDS, trace_changes
from chunkviz.lessons.kv_stage_data import EMPTY_BLOCK, stage_columns
from chunkviz.lessons.kv_view import event_steps, kv_scenario
from chunkviz.analysis.scenario import DEFAULT_SCENARIO, run_scenario
from chunkviz.request import Request, Segment
from chunkviz.simulator.engine import simulate
from tests.helpers import make_config, make_requests
from tests.test_kv_view import _hand_trace


def _kinds(step) -> dict[int, tuple[str, ...]]:
    return {c.block_id: c.kinds for c in step.changes}


def test_prefix_hit_names_the_reused_blocks_and_the_new_one():
    # tests/test_kv_view.py's hand trace: R0 takes 0, 1, 2 and frees them (0 and 1 full, so cached); R1 shares
    # the 8-token "sys" prefix: a hit on 0 and 1, one new block (3) from the free queue's head.
    steps = trace_changes(_hand_trace())
    assert _kinds(steps[0]) == {0: ("alloc",), 1: ("alloc",), 2: ("alloc",)}
    assert _kinds(steps[1]) == {0: ("free",), 1: ("free",), 2: ("free",)}
    freed = steps[1].captions[0]
    assert (freed.kind, freed.request_id, freed.num_cached, freed.num_kept) == ("free", 0, 2, 0)  # 2 keep a key
    assert _kinds(steps[2]) == {0: ("hit",), 1: ("hit",), 3: ("alloc",)}
    hit, alloc = steps[2].captions
    assert (hit.kind, hit.request_id, hit.block_ids, hit.hit_tokens) == ("hit", 1, (0, 1), 8)
    assert (alloc.kind, alloc.request_id, alloc.block_ids) == ("alloc", 1, (3,))


def test_copy_on_write_names_the_shared_block_and_its_copy():
    # n = 3 samples of a 10-token prompt in blocks of 4: blocks 0, 1 full, block 2 half full. The fork shares all
    # three; on the first decode the first two samples copy block 2 (into 3 and 4), the last writes in place.
    trace = simulate(make_config("chunked", 512, num_gpu_blocks=64, block_size=4, parallel_sampling="v0-fork-cow"),
                     [Request(0, 0.0, 10, 5, n_samples=3)])
    steps = trace_changes(trace)
    assert steps[0].captions[0].kind == "fork" and steps[0].captions[0].block_ids == (0, 1, 2)
    assert _kinds(steps[0]) == {b: ("alloc", "fork") for b in (0, 1, 2)}
    cows = [(c.kind, c.sample_index, c.from_block, c.block_ids) for c in steps[1].captions]
    assert cows == [("cow", 0, 2, (3,)), ("cow", 1, 2, (4,))]
    assert _kinds(steps[1]) == {3: ("cow",), 4: ("cow",)}
    # When the samples finish, the shared blocks lose references first and are freed by the last table only.
    last = [c for c in steps[-1].captions if c.kind == "free"]
    assert [c.num_kept for c in last] == [2, 2, 0]


def test_eviction_is_tied_to_the_request_that_reused_the_block():
    # 6 blocks of 4. R0 ("a", 8 tokens + 2 out) caches blocks 0, 1 and frees 2, 1, 0 tail first: the LRU queue is
    # 3, 4, 5, 2, 1, 0. R1 ("b", 16 tokens) takes 3, 4, 5, 2; its decode needs a 5th block: 1, still holding
    # R0's second key, is evicted and reused for R1.
    reqs = (Request(0, 0.0, 8, 2, segments=(Segment("a", 8),)), Request(1, 1.0, 16, 2, segments=(Segment("b", 16),)))
    trace = simulate(make_config("chunked", 512, num_gpu_blocks=6, block_size=4, prefix_caching=True), reqs)
    steps = trace_changes(trace)
    assert trace.steps[1].snapshot.free_queue_head == (3, 4, 5, 2, 1, 0)
    (at,) = [i for i, s in enumerate(steps) if any(c.kind == "evict" for c in s.captions)]
    evict = steps[at].captions[0]
    assert (evict.kind, evict.block_ids, evict.for_request) == ("evict", (1,), 1)
    assert _kinds(steps[at])[1][:2] == ("alloc", "evict")
    # Freed in the same step as R1 finishes: its four full prompt blocks keep their keys, the decode block none.
    freed = next(c for c in steps[at].captions if c.kind == "free")
    assert freed.block_ids == (3, 4, 5, 2, 1) and freed.num_cached == 4


def test_preemption_frees_the_victims_blocks_even_when_reused_in_the_same_step():
    # tests/test_scheduler.py's case: 4 × (100 + 200) tokens in 40 blocks; vLLM V1 preempts the newest (R3).
    trace = simulate(make_config("chunked", 512, num_gpu_blocks=40), make_requests([(0.0, 100, 200)] * 4))
    steps = trace_changes(trace)
    at = next(i for i, s in enumerate(steps) if any(c.kind == "preempt" for c in s.captions))
    first = steps[at].captions[0]
    assert first.kind == "preempt" and first.request_id == 3 and first.num_kept == 0
    victim_table = next(ids for rid, _, ids in trace.steps[at - 1].snapshot.block_tables if rid == 3)
    assert first.block_ids == tuple(victim_table)
    kinds = _kinds(steps[at])
    assert all("preempt" in kinds[b] for b in victim_table)
    # The blocks the survivors grew into this step came from the victim: marked both ways.
    reused = {b for item in steps[at].captions if item.kind == "alloc" for b in item.block_ids}
    assert reused and reused <= set(victim_table) and all(kinds[b] == ("alloc", "preempt") for b in reused)


def test_a_quiet_decode_step_says_so():
    steps = trace_changes(simulate(make_config("chunked", 512, num_gpu_blocks=64, block_size=16),
                                   make_requests([(0.0, 20, 6)])))
    assert any(s.changes == () and [c.kind for c in s.captions] == ["none"] for s in steps)


def _replay(cols: dict) -> list[tuple[dict, dict, list]]:
    """What the JS does: apply each step's deltas to the all-free state."""
    blocks = {b: EMPTY_BLOCK for b in range(cols["num_blocks"])}
    tables: dict = {}
    head: list = []
    out = []
    for delta, tdelta, fq in zip(cols["blocks"], cols["tables"], cols["free_head"]):
        for i in range(0, len(delta), 6):
            blocks[delta[i]] = tuple(delta[i + 1:i + 6])
        for rid, sample, ids in tdelta:
            if ids is None:
                del tables[(rid, sample)]
            else:
                tables[(rid, sample)] = tuple(ids)
        head = head if fq is None else fq
        out.append((dict(blocks), dict(tables), list(head)))
    return out


@pytest.mark.parametrize("scn", ["shared-system-prompt", "parallel-sampling", "long-among-chats"])
def test_deltas_replay_to_every_snapshot(scn):
    cache = CacheConfig(block_size=16, num_gpu_blocks=64, enable_prefix_caching=True)
    trace = run_scenario(kv_scenario(DEFAULT_SCENARIO, scn, 12, cache))
    cols = json.loads(json.dumps(stage_columns(trace)))  # what the browser receives
    for record, (blocks, tables, head) in zip(trace.steps, _replay(cols)):
        snap = record.snapshot
        for b in snap.blocks:
            owner = b.owners[0] if b.owners else (-1, 0)
            assert blocks[b.block_id] == (*owner, b.ref_count, int(b.key is not None), b.num_filled_tokens)
        assert tables == {(r, s): ids for r, s, ids in snap.block_tables}
        assert head == list(snap.free_queue_head)
    assert len(cols["dur_ms"]) == len(cols["dec"]) == len(cols["pre"]) == len(cols["end_ms"]) == len(trace.steps)
    assert cols["dec"][-1] >= 1 and sum(cols["pre"]) > 0  # the run ends decoding; prompts were prefilled
    # Deltas, not full grids: far fewer block entries than steps × blocks.
    assert sum(len(d) for d in cols["blocks"]) // 6 < len(trace.steps) * 64 // 4
    for kind, event in (("hit", "PrefixHit"), ("cow", "CopyOnWrite"), ("evict", "Evicted"), ("preempt", "Preempted")):
        assert cols["jumps"][kind] == list(event_steps(trace, event))
    masks = {m for step in cols["changes"] for m in step[1::2]}
    assert masks and all(0 < m < 1 << len(CHANGE_KINDS) for m in masks)
