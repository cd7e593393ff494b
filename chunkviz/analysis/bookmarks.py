"""Bookmarks: the moments of a run that teach (longest stall, the long prompt's first chunk, first preemption,
first prefix hit), each as a time span a cursor can jump to.

Invariant: a bookmark's end_s is the end of the last step of its event, so a cursor placed there shows the whole
event drawn; finders return None when a run has no such moment.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from chunkviz.analysis.per_trace import per_trace
from chunkviz.analysis.timeline import lane_segments
from chunkviz.simulator.trace import StepRecord, Trace

BOOKMARK_KINDS = ("longest_stall", "long_prompt_chunk", "first_preemption", "first_prefix_hit")


@dataclass(frozen=True, slots=True)
class Bookmark:
    kind: str  # one of BOOKMARK_KINDS
    request_id: int
    start_s: float
    end_s: float
    step: int  # number of the event's last engine step


def _end_s(step: StepRecord) -> float:
    return step.start_s + step.duration_s


def longest_stall(trace: Trace) -> Bookmark | None:
    """The longest run of consecutive steps that left one decode-ready request without a token (earliest wins)."""
    stalls = [s for s in lane_segments(trace) if s.kind == "stall"]
    if not stalls:
        return None
    best = min(stalls, key=lambda s: (-(s.end_s - s.start_s), s.start_s, s.request_id))
    return Bookmark("longest_stall", best.request_id, best.start_s, best.end_s, best.last_step)


def long_prompt_chunk(trace: Trace) -> Bookmark | None:
    """The first step that prefills the longest prompt (its first chunk, or the whole prompt without chunking)."""
    served = [r for r in trace.requests if r.rejected_reason is None]
    if not served:
        return None
    longest = max(served, key=lambda r: (r.prompt_tokens, -r.request_id))
    for step in trace.steps:
        if any(c.request_id == longest.request_id and c.phase == "prefill" for c in step.chunks):
            return Bookmark("long_prompt_chunk", longest.request_id, step.start_s, _end_s(step), step.step)
    return None


def _first_event(trace: Trace, kind: str, accept: Callable[[object], bool] = lambda e: True) -> Bookmark | None:
    for step in trace.steps:
        for event in step.events:
            if event.kind == kind and accept(event):
                rid = getattr(event, "request_id", -1)
                return Bookmark("", rid, step.start_s, _end_s(step), step.step)
    return None


def first_preemption(trace: Trace) -> Bookmark | None:
    found = _first_event(trace, "Preempted")
    return None if found is None else Bookmark("first_preemption", *_rest(found))


def first_prefix_hit(trace: Trace) -> Bookmark | None:
    found = _first_event(trace, "Admitted", lambda e: e.prefix_hit_tokens > 0)
    return None if found is None else Bookmark("first_prefix_hit", *_rest(found))


def _rest(b: Bookmark) -> tuple[int, float, float, int]:
    return b.request_id, b.start_s, b.end_s, b.step


FINDERS: dict[str, Callable[[Trace], Bookmark | None]] = {
    "longest_stall": longest_stall, "long_prompt_chunk": long_prompt_chunk,
    "first_preemption": first_preemption, "first_prefix_hit": first_prefix_hit,
}


@per_trace  # read by the payload's bookmark buttons and by the start cursor on every rerun
def find_bookmarks(trace: Trace) -> tuple[Bookmark, ...]:
    """Every bookmark the run has, in BOOKMARK_KINDS order."""
    found = (FINDERS[kind](trace) for kind in BOOKMARK_KINDS)
    return tuple(b for b in found if b is not None)
