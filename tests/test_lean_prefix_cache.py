"""LeanPrefixCache makes BlockManager's decisions: integer keys equal exactly when contents are equal, the same calls
leave the same tables, free queue and index, and whole runs (every preset and policy, fast and exact path, a small
cache under eviction, Hypothesis workloads) give equal Traces on both managers."""

from __future__ import annotations

import os
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from chunkviz.request import Request, Segment
from chunkviz.simulator.engine import simulate
from chunkviz.simulator.kv import setup
from chunkviz.simulator.kv.blocks import BlockManager, chain_key
from chunkviz.simulator.kv.content_keys import ContentKeys, key_at, keys_between
from chunkviz.simulator.kv.lean import LeanPrefixCache
from chunkviz.config import SchedulerConfig
from chunkviz.simulator.policies.registry import POLICY_NAMES, REGISTRY
from chunkviz.simulator.sequence import SeqState
from chunkviz.workloads.generators import WorkloadSpec
from chunkviz.workloads.presets import PRESETS, make_workload
from tests.helpers import make_config
from tests.test_fast_forward import configs, request_lists, with_priority_classes

# --- keys ------------------------------------------------------------------------------------------------------------
segment_lists = st.lists(st.tuples(st.sampled_from("abc"), st.integers(0, 9)), min_size=1, max_size=4)


def _seq(request_id: int, segments: list[tuple[str, int]], output_key: str | None, sample: int = 0) -> SeqState:
    segs = tuple(Segment(key, n) for key, n in segments)
    prompt = sum(n for _, n in segments)
    return SeqState(request=Request(request_id, 0.0, max(prompt, 1), 40, output_key=output_key,
                                    segments=segs if prompt else None), sample_index=sample)


def _chain(seq: SeqState, end_tokens: int, block_size: int) -> str:
    key = ""
    for start in range(0, end_tokens, block_size):
        key = chain_key(key, seq.content(start, start + block_size))
    return key


@settings(max_examples=300, deadline=None)
@given(a=segment_lists, b=segment_lists, out=st.sampled_from([None, "x", "y"]), block_size=st.sampled_from([1, 2, 3, 4]))
def test_keys_are_equal_exactly_when_the_contents_are(a, b, out, block_size):
    keys = ContentKeys()
    seq_a, seq_b = _seq(1, a, out), _seq(2, b, "x")
    plan_a, plan_b = keys.plan_of(seq_a), keys.plan_of(seq_b)
    for end in range(block_size, 30, block_size):
        same_content = _chain(seq_a, end, block_size) == _chain(seq_b, end, block_size)
        assert (key_at(plan_a, end) == key_at(plan_b, end)) == same_content, (a, b, out, end)
    last = 28 - 28 % block_size
    assert keys_between(plan_a, block_size, last, block_size) == [
        key_at(plan_a, end) for end in range(block_size, last + 1, block_size)]


def test_samples_and_requests_get_their_own_output_keys():
    keys = ContentKeys()
    one, two = keys.plan_of(_seq(1, [("a", 4)], None)), keys.plan_of(_seq(1, [("a", 4)], None, sample=1))
    assert key_at(one, 4) == key_at(two, 4) and key_at(one, 8) != key_at(two, 8)
    quoted = keys.plan_of(_seq(3, [("a", 4)], "r1.out"))  # a turn that names r1's answer as its own output
    assert key_at(quoted, 8) == key_at(one, 8)


# --- the same calls, the same cache ----------------------------------------------------------------------------------
ops = st.lists(st.tuples(st.sampled_from(["admit", "decode", "decode", "step1", "finish", "preempt"]), st.integers(0, 7),
                         st.integers(1, 30)), min_size=1, max_size=60)
PROMPTS = [[("sys", 5), ("q", 3)], [("sys", 5), ("p", 7)], [("doc", 9)], [("sys", 5)], [("doc", 9), ("q", 3)],
           [("u", 2)]]


def _compare(bm: BlockManager, lean: LeanPrefixCache) -> None:
    assert bm.tables == lean.tables
    assert bm.free_queue.order() == lean.free_order()
    assert bm.num_free_blocks() == lean.num_free_blocks()
    assert bm.num_evicted_blocks == lean.num_evicted_blocks
    assert [b.ref_count for b in bm.blocks] == lean.block_ref_counts()
    keyed = lean.keyed_blocks()
    assert {b.block_id for b in bm.blocks if b.key is not None} == keyed
    # Only public keys are kept, with their holders counted; every other block's entries are 0.
    public = {b for b, k in enumerate(lean.block_keys) if k > 0}
    assert public <= keyed and all(lean.ref_counts[b] == bm.blocks[b].ref_count for b in public)
    assert not any(lean.ref_counts[b] for b in range(len(bm.blocks)) if b not in public)
    # One key per content: BlockManager's hash keys and the lean public integers name the same classes of blocks,
    # and a keyed block whose key the lean cache does not keep (private) holds content no other block holds.
    pairs = {(bm.blocks[b].key, lean.block_keys[b]) for b in public}
    assert len({h for h, _ in pairs}) == len(pairs) == len({k for _, k in pairs})
    private = [bm.blocks[b].key for b in keyed - public]
    assert len(set(private)) == len(private) and not set(private) & {bm.blocks[b].key for b in public}


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=ops, block_size=st.sampled_from([1, 2, 4]), num_blocks=st.sampled_from([6, 12, 40]))
def test_the_same_calls_leave_the_same_cache(steps, block_size, num_blocks):
    # Eight sequences known up front (so some keys are private to one of them), two pairs with the same prompt and
    # output key (so the same content is computed twice); a preempted one may come back and hit its own blocks.
    seqs = [_seq(i, PROMPTS[i % len(PROMPTS)], f"o{i % 3}") for i in range(8)]
    bm = BlockManager(num_blocks, block_size, enable_prefix_caching=True, eviction="lru")
    lean = LeanPrefixCache(num_blocks, block_size, [seq.request for seq in seqs])
    live: set[int] = set()
    finished: set[int] = set()
    for op, which, amount in steps:
        seq = seqs[which]
        if op == "admit" and which not in live | finished:
            hits = bm.find_prefix_hit(seq.content, seq.num_tokens - 1)
            assert lean.find_prefix_hit(seq.content, seq.num_tokens - 1) == hits
            target = len(hits) * block_size + min(amount, seq.num_tokens)
            ok = bm.allocate(seq.key, len(hits) * block_size, target, hits)
            assert lean.allocate(seq.key, len(hits) * block_size, target, hits) == ok
            if ok:
                bm.cache_blocks(seq.key, seq.content, target)
                lean.cache_blocks(seq.key, seq.content, target)
                seq.num_computed_tokens = target
                live.add(which)
        elif op == "decode" and which in live:
            target = seq.num_computed_tokens + amount
            ok = bm.allocate(seq.key, seq.num_computed_tokens, target)
            assert lean.allocate(seq.key, seq.num_computed_tokens, target) == ok
            if ok:
                assert bm.covers(seq.key, seq.num_computed_tokens, target) == lean.covers(
                    seq.key, seq.num_computed_tokens, target)
                bm.on_computed(seq.key, seq.content, seq.num_computed_tokens, target)
                lean.on_computed(seq.key, seq.content, seq.num_computed_tokens, target)
                seq.num_computed_tokens = target
                seq.num_tokens = max(seq.num_tokens, target + 1)
        elif op == "step1" and which in live:  # a one-token step as the exact loop's hot path makes it (grow_one)
            target = seq.num_computed_tokens + 1
            ok = bm.allocate(seq.key, seq.num_computed_tokens, target)
            limit = lean.grow_one(seq.key, seq.content, seq.num_computed_tokens)
            assert (limit >= 0) == ok
            if ok:
                bm.cache_blocks(seq.key, seq.content, target)
                assert limit == lean.cover_limit(seq.key) >= target
                seq.num_computed_tokens = target
                seq.num_tokens = max(seq.num_tokens, target + 1)
        elif op in ("finish", "preempt") and which in live:
            if op == "preempt":
                lean.expose_own_keys(seq.key)
            assert bm.free(seq.key) == lean.free(seq.key)
            live.discard(which)
            seq.num_computed_tokens = 0
            if op == "finish":
                finished.add(which)
        _compare(bm, lean)


def test_a_preempted_sequence_hits_its_own_private_blocks_when_it_comes_back():
    seqs = [_seq(i, PROMPTS[i % len(PROMPTS)], f"o{i % 3}") for i in range(8)]
    lean = LeanPrefixCache(40, 2, [seq.request for seq in seqs])
    bm = BlockManager(40, 2, enable_prefix_caching=True, eviction="lru")
    seq = seqs[4]  # "doc" is shared with sequence 2, its "q" and its output are its own: private keys
    for kv in (bm, lean):
        assert kv.allocate(seq.key, 0, 12)
        kv.cache_blocks(seq.key, seq.content, 12)
    assert len(lean.keyed_blocks()) == 6 and sum(1 for key in lean.block_keys if key > 0) == 4
    assert lean.holders.keys() == {key for key in lean.block_keys if key > 0}  # private keys stay out of it
    lean.expose_own_keys(seq.key)
    assert bm.free(seq.key) == lean.free(seq.key) == 6
    hits = bm.find_prefix_hit(seq.content, 11)
    assert len(hits) == 5 and lean.find_prefix_hit(seq.content, 11) == hits  # "q" blocks included
    _compare(bm, lean)


# --- whole runs ------------------------------------------------------------------------------------------------------
@pytest.fixture
def block_manager_only(monkeypatch):
    """Runs made while this is active use BlockManager where they would use the lean cache."""
    def run(config, reqs):
        monkeypatch.setattr(setup, "LEAN_ENABLED", False)
        try:
            return simulate(config, reqs)
        finally:
            monkeypatch.setattr(setup, "LEAN_ENABLED", True)
    return run


def _same_on_both(block_manager_only, config, reqs):
    lean = simulate(config, reqs)
    full = block_manager_only(config, reqs)
    assert lean == full
    return lean


def test_the_lean_cache_is_what_prefix_cached_metrics_runs_use():
    reqs = make_workload("multi-turn", WorkloadSpec(num_requests=4, qps=4, seed=0))
    kv = setup.make_kv_manager(make_config("chunked", 512, detail=False, prefix_caching=True), reqs, print, True, 512)
    assert type(kv) is LeanPrefixCache
    for config in (make_config("chunked", 512, detail=True, prefix_caching=True),
                   make_config("chunked", 512, detail=False, prefix_caching=True, eviction="fifo")):
        assert type(setup.make_kv_manager(config, reqs, print, True, 512)) is BlockManager


@pytest.mark.parametrize("fast_forward", [True, False], ids=["fast", "exact"])
@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("policy", POLICY_NAMES)
def test_every_preset_and_policy_gives_the_same_trace_on_both_managers(block_manager_only, preset, policy,
                                                                       fast_forward):
    hits = 0
    for seed in (0, 7):
        reqs = make_workload(preset, WorkloadSpec(num_requests=40, qps=6, seed=seed, output_tokens=64))
        budget = 2048 if REGISTRY[policy].chunks(SchedulerConfig(policy=policy)) else 8192
        config = replace(make_config(policy, budget, detail=False, prefix_caching=True), fast_forward=fast_forward)
        trace = _same_on_both(block_manager_only, config, reqs)
        hits += sum(r.prefix_hit_tokens for r in trace.requests)
    if preset in ("multi-turn", "shared-system-prompt"):
        assert hits > 0  # the corpus really hits cached blocks


@pytest.mark.parametrize("preset", ("multi-turn", "shared-system-prompt", "parallel-sampling"))
@pytest.mark.parametrize("policy", ("chunked", "sglang", "trtllm", "sarathi"))
def test_a_small_cache_evicts_and_hits_the_same_on_both_managers(block_manager_only, preset, policy):
    reqs = make_workload(preset, WorkloadSpec(num_requests=60, qps=8, seed=5, output_tokens=48))
    config = make_config(policy, 2048, num_gpu_blocks=400, detail=False, prefix_caching=True)
    trace = _same_on_both(block_manager_only, config, reqs)
    assert trace.num_evicted_blocks > 0 and sum(r.prefix_hit_tokens for r in trace.requests) > 0


def _generated_config(cfg: dict):
    """test_fast_forward._check_equal's config, with prefix caching on under LRU (where the lean cache applies)."""
    cfg = {**cfg, "prefix_caching": True, "eviction": "lru"}
    switches, max_tokens, by_priority = cfg.pop("engine_switches"), cfg.pop("max_tokens"), cfg.pop("by_priority")
    assume(cfg["budget"] >= cfg["block_size"] and cfg["budget"] >= cfg["max_num_seqs"])
    config = make_config(detail=False, max_num_steps=50_000, **cfg)
    if switches:
        config = replace(config, scheduler=replace(config.scheduler, sglang_enable_mixed_chunk=True,
                                                   trtllm_chunked_context=True,
                                                   trtllm_capacity_policy="max-utilization"))
    return config, max_tokens, by_priority


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reqs=request_lists, cfg=configs, fast_forward=st.booleans())
def test_generated_workloads_give_the_same_trace_on_both_managers(reqs, cfg, fast_forward):
    _same_generated_trace(reqs, cfg, fast_forward)


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("CHUNKVIZ_LONG_HYPOTHESIS"),
                    reason="3,000 examples take minutes: CHUNKVIZ_LONG_HYPOTHESIS=1 pytest -m slow "
                           "tests/test_lean_prefix_cache.py")
@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reqs=request_lists, cfg=configs, fast_forward=st.booleans())
def test_generated_workloads_give_the_same_trace_on_both_managers_long_run(reqs, cfg, fast_forward):
    _same_generated_trace(reqs, cfg, fast_forward)


def _same_generated_trace(reqs, cfg, fast_forward) -> None:
    # The exact loop too: it skips allocate, covers and on_computed below each sequence's cover limit.
    config, max_tokens, by_priority = _generated_config(cfg)
    config, reqs = with_priority_classes(replace(config, fast_forward=fast_forward), reqs, by_priority)
    if max_tokens != "output":
        reqs = tuple(replace(r, max_tokens=None if max_tokens is None else 2 * r.output_tokens) for r in reqs)
    setup.LEAN_ENABLED = False
    try:
        full = simulate(config, reqs)
    except Exception as exc:  # the lean run must fail the same way
        with pytest.raises(type(exc)):
            setup.LEAN_ENABLED = True
            simulate(config, reqs)
        return
    finally:
        setup.LEAN_ENABLED = True
    assert simulate(config, reqs) == full
