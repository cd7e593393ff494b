"""Chat windows as data for the comparison component: a few requests per engine whose boxes type their tokens as
the browser's cursor moves, so a stall is frozen text the whole room can see (ui/components/comparison/comparison.js
`drawChats`).

Invariant: pure (no Streamlit); a box carries the trace's own times (arrival, every token, prefill progress), so the
browser shows exactly the tokens emitted at or before the cursor; "frozen" is 3× the run's median token gap.
"""

from __future__ import annotations

import numpy as np

from chunkviz.simulator.trace import RequestResult, Trace


def frozen_after_s(trace: Trace) -> float:
    """A chat counts as frozen once its gap exceeds 3× the run's median token gap (a few decode steps)."""
    return 3.0 * float(np.median(trace.tbt_gaps_s)) if trace.tbt_gaps_s else 0.05


def stalled_ids(trace: Trace, step_index: int) -> tuple[int, ...]:
    """The requests frozen in a step: decode-ready, no token (the engine's DecodeStalled event)."""
    return tuple(sorted({r for e in trace.steps[step_index].events if e.kind == "DecodeStalled"
                         for r in e.request_ids}))


def shown_requests(trace: Trace, max_boxes: int, named: tuple[int, ...] = ()) -> tuple[RequestResult, ...]:
    """The longest prompt (the document), every request in `named` (those the slide's labels name or count), then
    the first other requests, in id order, up to `max_boxes` windows: the stall and its victims."""
    longest = max(trace.requests, key=lambda r: (r.prompt_tokens, -r.request_id))
    must = {longest.request_id, *named}
    others = [r for r in trace.requests if r.request_id not in must][: max(0, max_boxes - len(must))]
    return tuple(sorted([r for r in trace.requests if r.request_id in must] + others, key=lambda r: r.request_id))


def _prefill_progress(trace: Trace, request_id: int) -> list[list[float]]:
    """[[step end ms, prompt tokens done], …]: how far the prompt has been read after each of its chunks."""
    out, done = [], 0
    for s in trace.steps:
        for c in s.chunks:
            if c.request_id == request_id and c.phase == "prefill":
                done += c.num_tokens
                out.append([(s.start_s + s.duration_s) * 1e3, done])
    return out


def chat_payload(trace: Trace, max_boxes: int = 4, named: tuple[int, ...] = ()) -> dict:
    """One engine's chat windows for the comparison element's JS; every request in `named` has one."""
    boxes = [{"r": r.request_id, "arr": r.arrival_s * 1e3, "out": r.output_tokens, "prompt": r.prompt_tokens,
              "tok": [x * 1e3 for x in (r.token_times_s[0] if r.token_times_s else ())],
              "pre": _prefill_progress(trace, r.request_id)} for r in shown_requests(trace, max_boxes, named)]
    return {"boxes": boxes, "frozen_ms": frozen_after_s(trace) * 1e3}
