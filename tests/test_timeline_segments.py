"""Lane segments: per request ordered and non-overlapping, and they account for every scheduled token."""

from __future__ import annotations

from collections import Counter

from chunkviz.analysis.timeline import lane_segments
from chunkviz.simulator.engine import simulate
from tests.helpers import make_config, make_requests


def _trace(policy: str, budget: int | None):
    specs = [(0.01 * i, 40 + 7 * i, 12) for i in range(10)] + [(0.05, 3000, 4)]
    return simulate(make_config(policy=policy, budget=budget), make_requests(specs))


def test_segments_are_ordered_and_do_not_overlap():
    for policy, budget in (("monolithic", None), ("chunked", 256), ("sglang", 256)):
        by_request: dict[int, list] = {}
        for seg in lane_segments(_trace(policy, budget)):
            by_request.setdefault(seg.request_id, []).append(seg)
        for segs in by_request.values():
            for a, b in zip(segs, segs[1:]):
                assert a.start_s <= b.start_s and a.end_s <= b.start_s + 1e-12, (policy, a, b)


def test_segments_account_for_every_scheduled_token():
    trace = _trace("chunked", 256)
    scheduled = Counter()
    for step in trace.steps:
        for c in step.chunks:
            scheduled[(c.request_id, c.phase)] += c.num_tokens
    drawn = Counter()
    for seg in lane_segments(trace):
        if seg.kind in ("prefill", "decode"):
            drawn[(seg.request_id, seg.kind)] += seg.num_tokens
    assert drawn == scheduled
