"""Turns a detailed Trace into drawable timeline pieces: per-request lanes, step boundaries, batch composition.

Invariant: lane segments of one request never overlap and are ordered in time; a "stall" segment marks time a
decode-ready request spent in steps that left it out.
"""

from __future__ import annotations

from dataclasses import dataclass

from chunkviz.analysis.per_trace import per_trace
from chunkviz.simulator.trace import Trace

KINDS = ("waiting", "prefill", "decode", "stall", "preempted")


@dataclass(frozen=True, slots=True)
class LaneSegment:
    request_id: int
    kind: str  # one of KINDS
    start_s: float
    end_s: float
    num_tokens: int  # tokens computed in the segment (0 for waiting and stalls)
    first_step: int
    last_step: int


@dataclass(frozen=True, slots=True)
class StepComposition:
    step: int
    prefill_tokens: int
    decode_tokens: int
    budget_tokens: int
    num_stalled_decodes: int


@per_trace  # read by the payload's lanes and by the stall bookmark of the same run
def lane_segments(trace: Trace) -> tuple[LaneSegment, ...]:
    """Waiting time, prefill chunks, runs of consecutive decodes (merged) and stalls, per request."""
    out: list[LaneSegment] = []
    per_request: dict[int, list[tuple[int, float, float, str, int]]] = {}
    stalled: dict[int, list[tuple[int, float, float]]] = {}
    for step in trace.steps:
        end = step.start_s + step.duration_s
        for c in step.chunks:
            per_request.setdefault(c.request_id, []).append((step.step, step.start_s, end, c.phase, c.num_tokens))
        for event in step.events:
            if event.kind == "DecodeStalled":
                for rid in event.request_ids:
                    stalled.setdefault(rid, []).append((step.step, step.start_s, end))
    for r in trace.requests:
        items = per_request.get(r.request_id, [])
        if items and items[0][1] > r.arrival_s:
            out.append(LaneSegment(r.request_id, "waiting", r.arrival_s, items[0][1], 0, items[0][0], items[0][0]))
        out.extend(_merge(r.request_id, items))
        out.extend(_merge(r.request_id, [(s, a, b, "stall", 0) for s, a, b in stalled.get(r.request_id, [])]))
    return tuple(sorted(out, key=lambda seg: (seg.request_id, seg.start_s, seg.kind)))


def _merge(request_id: int, items: list[tuple[int, float, float, str, int]]) -> list[LaneSegment]:
    """Merge runs of same-kind consecutive steps (decodes and stalls); prefill chunks stay one bar each."""
    merged: list[LaneSegment] = []
    run: list | None = None  # [kind, start, end, tokens, first_step, last_step] of the run being extended
    for step, start, end, kind, tokens in items:
        if run is not None and kind in ("decode", "stall") and run[0] == kind and run[5] == step - 1:
            run[2], run[3], run[5] = end, run[3] + tokens, step  # extend in place: one object per run, not per step
            continue
        if run is not None:
            merged.append(LaneSegment(request_id, run[0], run[1], run[2], run[3], run[4], run[5]))
        run = [kind, start, end, tokens, step, step]
    if run is not None:
        merged.append(LaneSegment(request_id, run[0], run[1], run[2], run[3], run[4], run[5]))
    return merged


def composition(trace: Trace, step_index: int) -> StepComposition:
    step = trace.steps[step_index]
    prefill = sum(c.num_tokens for c in step.chunks if c.phase == "prefill")
    decode = sum(c.num_tokens for c in step.chunks if c.phase == "decode")
    return StepComposition(step.step, prefill, decode, trace.budget_tokens, step.num_stalled_decodes)


def step_at_time(trace: Trace, time_s: float) -> int | None:
    """Index of the last step that started at or before time_s (None before the first step)."""
    lo, hi = 0, len(trace.steps)
    while lo < hi:  # binary search; bounded by log2(len)
        mid = (lo + hi) // 2
        if trace.steps[mid].start_s <= time_s:
            lo = mid + 1
        else:
            hi = mid
    return lo - 1 if lo > 0 else None


def union_step_times(*traces: Trace) -> tuple[float, ...]:
    """Every step start time of all traces, sorted: the grid one shared cursor moves along."""
    return tuple(sorted({s.start_s for t in traces for s in t.steps}))


def next_event_time(trace: Trace, after_s: float, kinds: tuple[str, ...]) -> float | None:
    """Start time of the first step after `after_s` that emitted one of `kinds`."""
    for step in trace.steps:
        if step.start_s > after_s and any(e.kind in kinds for e in step.events):
            return step.start_s
    return None
