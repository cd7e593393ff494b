"""Prefix caching, free order, eviction policies and copy-on-write: hand cases, a brute-force reference, engine runs.

Hand cases drive BlockManager directly (block size 4, 8 blocks, prompts of 10 tokens); the differential test
recomputes every request's hit from raw token lists and compares it with the engine's RequestResult.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chunkviz.simulator.kv.blocks import BlockManager
from chunkviz.simulator.engine import simulate
from chunkviz.simulator.events import Allocated, CopyOnWrite, Evicted, Freed, PrefixHit
from chunkviz.analysis.metrics import summarize
from chunkviz.workloads.presets import make_workload
from chunkviz.request import Request, Segment
from chunkviz.workloads.generators import WorkloadSpec
from tests.helpers import make_config, make_requests


def _fn(tokens):
    return lambda start, end: tuple(tokens[start:end])


def _admit(bm: BlockManager, seq, tokens) -> list[int]:
    """What sched_common.admit_waiting does for a whole prompt: hit (capped at len − 1), allocate, compute."""
    hits = bm.find_prefix_hit(_fn(tokens), len(tokens) - 1)
    hit_tokens = len(hits) * bm.block_size
    if not bm.allocate(seq, hit_tokens, len(tokens), hits):
        return []
    bm.on_computed(seq, _fn(tokens), hit_tokens, len(tokens))
    return hits


def _events(trace, kind):
    return [e for step in trace.steps for e in step.events if isinstance(e, kind)]


# --- (a) differential: the engine's hits equal the longest cached common prefix ----------------------------------
SHARED = (Segment("sysA", 23), Segment("sysB", 16), Segment("doc", 9))


@st.composite
def segmented_workloads(draw):
    """Requests built from shared segments, repeats and continuations of earlier ones, arriving 1,000 s apart."""
    requests: list[Request] = []
    for i in range(draw(st.integers(1, 8))):
        mode = draw(st.sampled_from(["fresh", "repeat", "continue"])) if requests else "fresh"
        if mode == "fresh":
            segments = list(draw(st.lists(st.sampled_from(SHARED), max_size=3)))
        else:
            j = draw(st.integers(0, len(requests) - 1))
            segments = list(requests[j].segments)
            if mode == "continue":  # the next turn of a chat: earlier prompt + the answer (or part of it)
                segments.append(Segment(f"o{j}", draw(st.integers(1, requests[j].output_tokens))))
        tail = draw(st.integers(0 if segments else 1, 20 if mode == "fresh" else 6))
        if tail:
            segments.append(Segment(f"u{i}", tail))
        prompt = sum(s.num_tokens for s in segments)
        requests.append(Request(i, 1000.0 * i, prompt, draw(st.integers(1, 12)), segments=tuple(segments),
                                output_key=f"o{i}"))
    return tuple(requests)


def _token_ids(segments) -> list[tuple[str, int]]:
    """A token's id is (segment key, offset in the segment); equal ids mean equal tokens (request.py)."""
    return [(s.key, offset) for s in segments for offset in range(s.num_tokens)]


def _brute_force_hits(requests: tuple[Request, ...], block_size: int) -> list[int]:
    cached: list[list[tuple[str, int]]] = []  # full-block token lists left in the cache by finished requests
    hits = []
    for r in requests:
        prompt = _token_ids(r.segments)
        best = 0
        for old in cached:
            n = 0
            while (n + 1) * block_size <= min(len(old), len(prompt)) and \
                    old[n * block_size:(n + 1) * block_size] == prompt[n * block_size:(n + 1) * block_size]:
                n += 1
            best = max(best, n)
        hits.append(min(best, (r.prompt_tokens - 1) // block_size) * block_size)
        # A finished request has computed its prompt and all but its last output token (that one is never fed back).
        everything = prompt + [(r.output_key, k) for k in range(r.output_tokens - 1)]
        cached.append(everything[:len(everything) // block_size * block_size])
    return hits


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests=segmented_workloads(), block_size=st.sampled_from([4, 16]), policy=st.sampled_from(["chunked",
                                                                                                  "monolithic"]))
def test_engine_hits_equal_brute_force_longest_cached_prefix(requests, block_size, policy):
    budget = 512 if policy == "chunked" else None  # vLLM refuses a no-chunk budget below max_model_len
    config = make_config(policy, budget, num_gpu_blocks=4000, block_size=block_size, prefix_caching=True, detail=False)
    trace = simulate(config, requests)
    assert trace.num_evicted_blocks == 0  # the cache is big enough that "cached" means "ever computed"
    assert [r.prefix_hit_tokens for r in trace.requests] == _brute_force_hits(requests, block_size)
    assert all(r.finish_s is not None for r in trace.requests)
    off = simulate(make_config(policy, budget, num_gpu_blocks=4000, block_size=block_size, detail=False), requests)
    assert all(r.prefix_hit_tokens == 0 for r in off.requests)


# --- (b) hand-computed block tables and hit counts ---------------------------------------------------------------
A = list(range(10))  # prompt of 10 tokens: blocks [0 1 2 3] [4 5 6 7] [8 9 · ·]


def test_hand_case_tables_hits_and_refcounts():
    bm = BlockManager(8, 4, enable_prefix_caching=True)  # LRU free queue starts as [0 1 2 3 4 5 6 7]
    # A: empty cache, no hit; ceil(10 / 4) = 3 blocks from the head of the queue. Blocks 0 and 1 are full and
    # cached; block 2 holds 2 tokens and is not cached (only full blocks are).
    assert _admit(bm, ("A", 0), A) == []
    assert bm.tables[("A", 0)] == [0, 1, 2] and len(bm.key_to_block) == 2
    # B shares A's first 8 tokens: the hit is capped at 10 − 1 = 9 tokens → 9 // 4 = 2 blocks = 8 tokens, then
    # 3 − 2 = 1 new block (3).
    assert _admit(bm, ("B", 0), A[:8] + [90, 91]) == [0, 1]
    assert bm.tables[("B", 0)] == [0, 1, 3]
    # C equals A: still 2 blocks (8 tokens); A's third block is partial, so never cached. 1 new block (4).
    assert _admit(bm, ("C", 0), A) == [0, 1]
    assert bm.tables[("C", 0)] == [0, 1, 4]
    # D is A's first 8 tokens exactly: cap 8 − 1 = 7 → 7 // 4 = 1 block; its second block (5) is recomputed, and
    # that content is already cached in block 1, and block 5 is cached under the same key too (vLLM V1 keeps a
    # block computed twice: BlockPool.cached_block_hash_to_block maps one hash to several blocks).
    assert _admit(bm, ("D", 0), A[:8]) == [0]
    assert bm.tables[("D", 0)] == [0, 5] and bm.blocks[5].key == bm.blocks[1].key
    assert list(bm.key_to_blocks[bm.blocks[1].key]) == [1, 5]
    # Refs: block 0 in A, B, C, D = 4; block 1 in A, B, C = 3; blocks 2..5 one each. 6 used, free queue [6 7].
    assert [b.ref_count for b in bm.blocks] == [4, 3, 1, 1, 1, 1, 0, 0]
    assert bm.free_queue.order() == [6, 7]
    # E is 10 unique tokens: needs 3 blocks, only 2 are free → refused, nothing changes.
    e_tokens = list(range(100, 110))
    before = (dict(bm.tables), bm.free_queue.order(), [b.ref_count for b in bm.blocks])
    assert not bm.allocate(("E", 0), 0, 10)
    assert (dict(bm.tables), bm.free_queue.order(), [b.ref_count for b in bm.blocks]) == before
    # Freeing A walks its table tail-first: block 2 drops to 0 and is queued; blocks 1 (3→2) and 0 (4→3) stay.
    assert bm.free(("A", 0)) == 3
    assert bm.free_queue.order() == [6, 7, 2]
    # Now E fits: 3 blocks 6, 7, 2; block 2 was never cached, so nothing is evicted.
    assert _admit(bm, ("E", 0), e_tokens) == []
    assert bm.tables[("E", 0)] == [6, 7, 2] and bm.num_evicted_blocks == 0
    # B frees [3 1 0] reversed: 3 → 0 (queued), 1 → 1, 0 → 2. C frees 4, 1 (now 0), 0 → 1. D frees 5, 0.
    for seq in (("B", 0), ("C", 0), ("D", 0)):
        bm.free(seq)
    assert bm.free_queue.order() == [3, 4, 1, 5, 0]  # the shared root (0) was released last: it is evicted last
    # A again: both cached blocks are hits, taken out of the free queue; 1 new block from the head (3).
    assert _admit(bm, ("A2", 0), A) == [0, 1]
    assert bm.tables[("A2", 0)] == [0, 1, 3] and bm.free_queue.order() == [4, 5]
    assert bm.num_used_blocks() == 6 and bm.num_free_blocks() == 2  # E's 3 + A2's 3


# --- (c) free order and the three eviction policies --------------------------------------------------------------
def test_a_finished_request_returns_its_blocks_tail_first_so_the_root_is_evicted_last():
    bm = BlockManager(8, 4, enable_prefix_caching=True, eviction="lru")
    twelve = list(range(12))  # three full blocks, all cached
    _admit(bm, ("A", 0), twelve)
    bm.free(("A", 0))
    assert bm.free_queue.order() == [3, 4, 5, 6, 7, 2, 1, 0]  # never-used blocks first, then deepest → root
    evicted: list[Evicted] = []
    bm._emit = evicted.append
    bm.allocate(("X", 0), 0, 4 * 7)  # 7 blocks: the 5 empty ones, then A's deepest two
    assert [e.block_id for e in evicted if isinstance(e, Evicted)] == [2, 1]
    assert bm.find_prefix_hit(_fn(twelve), 11) == [0]  # the root survived: a new request still hits 4 tokens


def test_engine_frees_a_finished_request_tail_first():
    # Block size 16, prompt 40 + 3 outputs: tokens computed 42 → 3 blocks; after it finishes the LRU queue ends
    # with that table reversed.
    trace = simulate(make_config("chunked", 512, num_gpu_blocks=8, prefix_caching=True),
                     make_requests([(0.0, 40, 3)]))
    freed = _events(trace, Freed)
    assert len(freed) == 1 and len(freed[0].block_ids) == 3
    order = trace.steps[-1].snapshot.free_queue_head
    assert order[-3:] == tuple(reversed(freed[0].block_ids))


def _three_policy_history(eviction: str):
    """A (8 tokens) then B (A + 1 token, hits both A blocks), then X (8 unique tokens), each freed in turn.

    Afterwards: empty blocks 5 6 7 and B's uncached partial block 2; cached A blocks 0, 1 (1 hit each, freed
    earlier) and X blocks 3, 4 (no hits, freed last).
    """
    bm = BlockManager(8, 4, enable_prefix_caching=True, eviction=eviction)
    a = [1, 2, 3, 4, 5, 6, 7, 8]
    _admit(bm, ("A", 0), a)
    bm.free(("A", 0))
    assert _admit(bm, ("B", 0), a + [9]) == [0, 1]  # cap 9 − 1 = 8 tokens = both blocks
    bm.free(("B", 0))
    _admit(bm, ("X", 0), [50, 51, 52, 53, 54, 55, 56, 57])
    assert bm.tables[("X", 0)] == [3, 4]
    bm.free(("X", 0))
    return bm


@pytest.mark.parametrize("eviction, order, evicted", [
    # LRU: one queue in release order: A's blocks (released with B, tail-first: 1 then 0) before X's (4 then 3).
    ("lru", [5, 6, 7, 2, 1, 0, 4, 3], [1, 0]),
    # FIFO: empty blocks first, then by when the content was cached: A's 0, 1 (first), then X's 3, 4.
    ("fifo", [5, 6, 7, 2, 0, 1, 3, 4], [0, 1]),
    # LFU: empty blocks first, then fewest hits: X's blocks (0 hits, 4 then 3 by release order) before A's (1 hit).
    ("lfu", [5, 6, 7, 2, 4, 3, 1, 0], [4, 3]),
])
def test_eviction_order_per_policy(eviction, order, evicted):
    bm = _three_policy_history(eviction)
    assert bm.free_queue.order() == order
    events: list[object] = []
    bm._emit = events.append
    assert bm.allocate(("Y", 0), 0, 4 * 6)  # 6 blocks: the 4 empty ones, then 2 cached ones die
    assert [e.block_id for e in events if isinstance(e, Evicted)] == evicted
    assert bm.tables[("Y", 0)] == order[:6]
    assert sorted(bm.key_to_block.values()) == sorted(order[6:])


# --- (d) copy-on-write through the engine ------------------------------------------------------------------------
@pytest.mark.parametrize("prompt_tokens, num_cows", [(10, 2), (12, 0)])
def test_parallel_sampling_copies_the_shared_partial_block_once_per_extra_sample(prompt_tokens, num_cows):
    # n = 3 samples share the prompt's blocks after the fork. A 10-token prompt leaves block 3 (index 2) with
    # 2 of 4 slots filled; the first two samples to write there copy it (ref 3 → 2 → 1), the last writes in
    # place: n − 1 = 2 copies. A 12-token prompt fills its blocks, so every sample starts a fresh block: 0 copies.
    request = Request(0, 0.0, prompt_tokens, 5, n_samples=3)
    trace = simulate(make_config("chunked", 512, num_gpu_blocks=64, block_size=4, parallel_sampling="v0-fork-cow"),
                     [request])
    assert len(_events(trace, CopyOnWrite)) == num_cows
    result = trace.requests[0]
    assert result.finish_s is not None and result.num_generated_tokens == 3 * 5
    assert trace.blocks_in_use_at_end == 0


def test_parallel_sampling_preset_copies_n_minus_one_per_partial_prompt():
    spec = WorkloadSpec(num_requests=12, qps=4.0, prompt_tokens=100, output_tokens=20, seed=1)
    requests = make_workload("parallel-sampling", spec)
    trace = simulate(make_config("chunked", 512, num_gpu_blocks=2000, block_size=16, parallel_sampling="v0-fork-cow"),
                     requests)
    assert sum(r.num_preemptions for r in trace.requests) == 0
    expected = sum(r.n_samples - 1 for r in requests if r.prompt_tokens % 16)
    assert expected > 0 and len(_events(trace, CopyOnWrite)) == expected
    assert all(r.num_generated_tokens == r.output_tokens * r.n_samples for r in trace.requests)
    assert trace.blocks_in_use_at_end == 0


# --- (e) a shared system prompt: TTFT with and without prefix caching -------------------------------------------
def test_shared_system_prompt_cuts_ttft_with_prefix_caching():
    spec = WorkloadSpec(num_requests=100, qps=8.0, prompt_tokens=200, output_tokens=64, seed=0)
    requests = make_workload("shared-system-prompt", spec)  # 1,000 shared tokens + a ~200-token question each
    results = {}
    for enabled in (False, True):
        trace = simulate(make_config("chunked", 2048, prefix_caching=enabled, detail=False), requests)
        results[enabled] = summarize(trace)
    off, on = results[False], results[True]
    print(f"\nshared-system-prompt, llama-3-8b on h100-sxm, 100 requests at 8 qps, chunked budget 2048, block 16: "
          f"mean TTFT {off.ttft_s.mean * 1e3:.2f} ms without prefix caching, {on.ttft_s.mean * 1e3:.2f} ms with; "
          f"p90 {off.ttft_s.p90 * 1e3:.2f} → {on.ttft_s.p90 * 1e3:.2f} ms; prefix hit rate {on.prefix_hit_rate:.3f}")
    assert on.num_finished == off.num_finished == 100
    assert on.ttft_s.mean < off.ttft_s.mean
    assert off.prefix_hit_rate == 0.0 and on.prefix_hit_rate > 0.0
    # Every request after the first hits 1,000 // 16 = 62 whole blocks = 992 tokens of the system prompt.
    assert on.prefix_hit_tokens >= 99 * 992 * 0.9


# --- (f) preempted requests re-hit their own blocks --------------------------------------------------------------
def test_preempted_request_rehits_its_own_cached_blocks():
    # 3 requests of 100 + 120 tokens in 24 blocks of 16: each grows to ceil(219 / 16) = 14 blocks, so they cannot
    # all stay; the latest admitted are preempted (recompute) and come back after the first finishes.
    requests = make_requests([(0.0, 100, 120)] * 3)
    runs = {enabled: simulate(make_config("chunked", 512, num_gpu_blocks=24, prefix_caching=enabled), requests)
            for enabled in (False, True)}
    off, on = runs[False], runs[True]
    assert sum(r.num_preemptions for r in on.requests) > 0
    assert all(r.prefix_hit_tokens == 0 for r in off.requests)
    assert all(r.prefix_hit_tokens_readmitted == 0 for r in off.requests)
    # Re-admissions are counted apart from first admissions, as vLLM's PrefixCacheStats does.
    rehit = [r for r in on.requests if r.num_preemptions and r.prefix_hit_tokens_readmitted]
    assert rehit, "a preempted request should find some of its own blocks still cached"
    for r in rehit:
        owned = {b for e in _events(on, Allocated) if e.request_id == r.request_id for b in e.block_ids}
        hits = [e for e in _events(on, PrefixHit) if e.request_id == r.request_id]
        # Content is unique per request, so every hit block is one it computed itself before being preempted.
        assert hits and all(set(e.block_ids) <= owned for e in hits)
    recomputed = {name: sum(c.num_tokens for s in t.steps for c in s.chunks if c.phase == "prefill")
                  for name, t in (("off", off), ("on", on))}
    assert recomputed["on"] < recomputed["off"]  # the hits are tokens not recomputed
    assert all(r.finish_s is not None for r in on.requests) and on.blocks_in_use_at_end == 0


def test_prefix_hit_rate_stays_a_rate_under_preemption():
    # Found in review: preempted requests re-hit their own blocks, so hits must be divided by every lookup.
    from chunkviz.analysis.metrics import summarize
    from chunkviz.request import Request as _Request

    reqs = tuple(_Request(i, 0.0, 20, 190) for i in range(3))
    trace = simulate(make_config("chunked", 512, num_gpu_blocks=20, prefix_caching=True), reqs)
    m = summarize(trace)
    assert sum(r.num_preemptions for r in trace.requests) > 0
    assert 0.0 <= m.prefix_hit_rate <= 1.0
    assert 0.0 < m.prefix_hit_rate_readmitted <= 1.0


@settings(max_examples=150, deadline=None)
@given(ops=st.lists(st.tuples(st.sampled_from(["push", "pop", "remove"]), st.integers(0, 11)), max_size=60))
def test_lru_free_queue_keeps_the_ranked_lru_order(ops):
    # kv/eviction.LruFreeBlockQueue replaces FreeBlockQueue("lru") for speed: the same pops and the same order.
    from chunkviz.simulator.kv.eviction import FreeBlockQueue, LruFreeBlockQueue
    ranked, lru, resident = FreeBlockQueue("lru"), LruFreeBlockQueue(), set()
    for op, block_id in ops:
        if op == "push" and block_id not in resident:
            ranked.push(block_id, block_id % 2 == 0, block_id, block_id % 3)
            lru.push(block_id, True, block_id, 0)
            resident.add(block_id)
        elif op == "pop" and resident:
            popped = ranked.pop()
            assert lru.pop() == popped
            resident.discard(popped)
        elif op == "remove" and block_id in resident:
            ranked.remove(block_id)
            lru.remove(block_id)
            resident.discard(block_id)
        assert lru.order() == ranked.order() and len(lru) == len(ranked)


@settings(max_examples=100, deadline=None)
@given(sizes=st.lists(st.integers(1, 9), min_size=0, max_size=3), own=st.integers(1, 9), out=st.integers(0, 9),
       sample=st.integers(0, 2), data=st.data())
def test_sequence_content_is_the_runs_of_its_segments(sizes, own, out, sample, data):
    # SeqState.content answers ranges inside the first segment without its loop: same runs either way.
    from chunkviz.simulator.sequence import SeqState
    segments = tuple(Segment(f"s{i}", n) for i, n in enumerate(sizes)) if sizes else None
    prompt = sum(sizes) if sizes else own
    seq = SeqState(request=Request(3, 0.0, prompt, out + 1, segments=segments), sample_index=sample)
    names = [(s.key, i) for s in seq.prompt_segments for i in range(s.num_tokens)]
    out_key = f"r3.out{f'.s{sample}' if sample else ''}"
    names += [(out_key, i) for i in range(out + 1)]
    start = data.draw(st.integers(0, len(names) - 1))
    end = data.draw(st.integers(start + 1, len(names)))
    runs = []
    for key, i in names[start:end]:  # the reference: token by token, merged into runs
        if runs and runs[-1][0] == key and runs[-1][2] == i:
            runs[-1] = (key, runs[-1][1], i + 1)
        else:
            runs.append((key, i, i + 1))
    assert seq.content(start, end) == tuple(runs)
