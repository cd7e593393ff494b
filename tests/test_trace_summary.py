"""Trace summary (hand-worked statistics), bytes -> load-or-error, and the prefix study over a Mooncake file."""

from __future__ import annotations

import json

import pytest

from chunkviz.errors import InputError
from chunkviz.request import Request, Segment
from chunkviz.workloads.checks import LoadOptions
from chunkviz.analysis.trace_summary import load_or_error, prefix_curve, study_capacities, summarize_requests


def _req(i: int, arrival_s: float, prompt: int = 10, output: int = 5, segments=None) -> Request:
    return Request(request_id=i, arrival_s=arrival_s, prompt_tokens=prompt, output_tokens=output, segments=segments)


def test_summary_by_hand() -> None:
    # arrivals 0, 1, 3, 7 s -> gaps 1, 2, 4: mean 7/3, population std sqrt(((1-7/3)^2+(2-7/3)^2+(4-7/3)^2)/3)
    # = sqrt((16/9 + 1/9 + 25/9)/3) = sqrt(42/27) = 1.2472; CV = 1.2472 / 2.3333 = 0.5345; rate = 3 gaps / 7 s
    requests = [_req(0, 0.0, 100, 1), _req(1, 1.0, 200, 2), _req(2, 3.0, 300, 3), _req(3, 7.0, 400, 4)]
    s = summarize_requests(requests)
    assert (s.num_requests, s.duration_s) == (4, 7.0)
    assert s.arrival_rate_per_s == pytest.approx(3 / 7)
    assert s.burstiness_cv == pytest.approx((42 / 27) ** 0.5 / (7 / 3))
    # numpy 'linear' percentiles of 100..400: p50 = 250, p90 = 370, p99 = 397
    assert (s.prompt_tokens.p50, s.prompt_tokens.p90, s.prompt_tokens.p99) == pytest.approx((250, 370, 397))
    assert (s.prompt_tokens.mean, s.prompt_tokens.max, s.output_tokens.max) == (250.0, 400, 4)
    assert not s.has_prefix_ids


def test_evenly_spaced_arrivals_have_zero_burstiness() -> None:
    s = summarize_requests([_req(i, 0.5 * i) for i in range(5)])
    assert (s.arrival_rate_per_s, s.burstiness_cv) == (2.0, 0.0)


def test_too_little_data_gives_none_not_a_number() -> None:
    one = summarize_requests([_req(0, 0.0)])
    assert (one.duration_s, one.arrival_rate_per_s, one.burstiness_cv) == (0.0, None, None)
    two = summarize_requests([_req(0, 0.0), _req(1, 2.0)])
    assert (two.arrival_rate_per_s, two.burstiness_cv) == (0.5, None)  # one gap: a rate, but no spread
    same_time = summarize_requests([_req(0, 0.0), _req(1, 0.0), _req(2, 0.0)])
    assert (same_time.arrival_rate_per_s, same_time.burstiness_cv) == (None, None)
    with pytest.raises(InputError):
        summarize_requests([])


def test_load_or_error_keeps_the_message_and_nothing_else() -> None:
    bad = b"TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.68,374,44\n2023-11-16 18:15:47.00,abc,5\n"
    outcome = load_or_error(bad, None, "azure.csv")
    assert outcome.load is None
    assert "row 2" in outcome.error and "ContextTokens" in outcome.error
    small = LoadOptions(max_bytes=10)
    too_big = load_or_error(b"arrival_s,prompt_tokens,output_tokens\n0,1,1\n", "csv", "x.csv", small)
    assert too_big.load is None and "limit is" in too_big.error
    unknown = load_or_error(b"a,b\n1,2\n", None, "x.txt")
    assert unknown.load is None and "cannot tell the format" in unknown.error


def test_load_or_error_detects_and_honours_the_override() -> None:
    raw = b"arrival_s,prompt_tokens,output_tokens\n0.5,10,0\n0.0,20,3\n"
    outcome = load_or_error(raw, None, "mine.csv")
    assert outcome.error is None and outcome.load.trace_format == "csv"
    assert [r.prompt_tokens for r in outcome.load.requests] == [20, 10]  # sorted by arrival
    assert "1 row with 0 in output_tokens was given 1 token" in outcome.load.notes
    wrong = load_or_error(raw, "mooncake", "mine.csv")
    assert wrong.load is None and "line 1" in wrong.error


def _mooncake_bytes() -> bytes:
    # Block ids as Mooncake writes them: 512-token blocks, equal ids = equal prefix.
    lines = [
        {"timestamp": 0, "input_length": 1024, "output_length": 10, "hash_ids": [1, 2]},
        {"timestamp": 1000, "input_length": 1500, "output_length": 10, "hash_ids": [1, 2, 3]},
        {"timestamp": 2000, "input_length": 600, "output_length": 10, "hash_ids": [4, 5]},
        {"timestamp": 3000, "input_length": 1024, "output_length": 10, "hash_ids": [1, 2]},
    ]
    return "\n".join(json.dumps(line) for line in lines).encode()


def test_uploaded_mooncake_file_yields_a_prefix_study() -> None:
    outcome = load_or_error(_mooncake_bytes(), None, "tiny.jsonl")
    assert outcome.error is None and outcome.load.trace_format == "mooncake"
    summary = summarize_requests(outcome.load.requests)
    assert summary.has_prefix_ids and summary.arrival_rate_per_s == pytest.approx(1.0)
    curve = prefix_curve(outcome.load.requests)
    # 9 prompt blocks, 5 distinct (1, 2, 3, 4, 5); unlimited: R2 hits 1,2; R4 hits 1,2 -> 4 of 9
    assert curve.num_distinct_blocks == 5
    assert (curve.ceiling.hit_blocks, curve.ceiling.prompt_blocks) == (4, 9)
    assert curve.capacities_blocks == (1, 2, 3, 5)  # ceil(5 * (1/64, 1/16, 1/8, 1/4, 1/2, 1))
    assert {r.policy for r in curve.results} == {"fifo", "lru", "lfu"}
    assert all(r.hit_rate <= curve.ceiling.hit_rate for r in curve.results)
    # LRU with room for 3 blocks: R1 puts 2,1; R2 hits 1,2 then adds 3; R3 (4,5) pushes out 3,2;
    # the cache holds 1,5,4 (newest first is 4), so R4 hits 1 then misses 2 -> 3 of 9
    lru = {r.capacity_blocks: r.hit_blocks for r in curve.results if r.policy == "lru"}
    assert lru[3] == 3
    # With room for 2: R2's touch of 3,2,1 evicts 3; R3 leaves only 5,4, so R4 hits nothing -> 2 of 9
    assert lru[2] == 2
    assert all(r.hit_blocks == 4 for r in curve.results if r.capacity_blocks == 5)  # no eviction: the ceiling


def test_shared_segments_count_as_prefix_ids() -> None:
    shared = (Segment("system", 512), Segment("tail", 10))
    s = summarize_requests([_req(0, 0.0, 522, 1, shared), _req(1, 1.0)])
    assert s.has_prefix_ids


def test_study_capacities() -> None:
    assert study_capacities(6400) == (100, 400, 800, 1600, 3200, 6400)
    assert study_capacities(1) == (1,)
    assert study_capacities(0) == (1,)
