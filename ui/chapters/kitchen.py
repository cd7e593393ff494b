"""Chapter 1's kitchen as data for the comparison component (ui/components/comparison/comparison.js `drawKitchen`):
the one stove (what each engine step cooks), a table per request with its order ticket, and the fridge (the KV
cache), all read from the run's trace.

Invariant: pure (no Streamlit); every figure the kitchen prints is a trace value: the stove's prompt chunks are the
step's ScheduledChunks, its dishes the step's decodes and first tokens, the fridge's fill is the step's
`num_used_blocks` out of the run's `num_gpu_blocks`, a table's share is the blocks its request holds after the step
(its Allocated / PrefixHit / CopyOnWrite minus its Freed / Preempted events), "frozen" is the step's DecodeStalled
event, and the dishes plated by the cursor are the request's own token times.
"""

from __future__ import annotations

from chunkviz.simulator.trace import RequestResult, StepRecord, Trace

# A table's state during a step (comparison.js reads the same codes): the request has not arrived yet, waits in the
# queue, has its prompt on the stove, is plated a dish (a decode token), sits frozen (decode-ready, no token: the
# step's DecodeStalled), or is done (finished in an earlier step).
STATES = ("not_arrived", "waiting", "cooking", "served", "frozen", "done")


def _held_blocks(trace: Trace) -> list[dict[int, int]]:
    """Per step, the KV blocks each request holds once the step is applied (when num_used_blocks is recorded)."""
    held: dict[int, set[int]] = {}
    out = []
    for s in trace.steps:
        for e in s.events:
            if e.kind in ("Allocated", "PrefixHit"):
                held.setdefault(e.request_id, set()).update(e.block_ids)
            elif e.kind == "CopyOnWrite":
                held.setdefault(e.request_id, set()).discard(e.from_block)
                held[e.request_id].add(e.to_block)
            elif e.kind == "Freed":
                held.get(e.request_id, set()).difference_update(e.block_ids)
            elif e.kind == "Preempted":
                held.pop(e.request_id, None)
        out.append({r: len(b) for r, b in held.items() if b})
    return out


def _state(step: StepRecord, r: RequestResult, finished_before: bool) -> int:
    """The table's state code (STATES) during `step`."""
    if finished_before:
        return STATES.index("done")
    if r.arrival_s > step.start_s + step.duration_s:
        return STATES.index("not_arrived")
    phases = {c.phase for c in step.chunks if c.request_id == r.request_id}
    if "prefill" in phases:
        return STATES.index("cooking")
    if "decode" in phases:
        return STATES.index("served")
    if any(e.kind == "DecodeStalled" and r.request_id in e.request_ids for e in step.events):
        return STATES.index("frozen")
    return STATES.index("waiting")


def _plated(step: StepRecord) -> list[int]:
    """The requests the step plates a dish (an output token) for: each decode, and each prompt it finishes (its
    FirstToken: the prefill step emits the first token)."""
    return ([c.request_id for c in step.chunks if c.phase == "decode"]
            + [e.request_id for e in step.events if e.kind == "FirstToken"])


def kitchen_payload(trace: Trace, tables: tuple[RequestResult, ...]) -> dict:
    """The kitchen of one engine's run, its `tables` (requests) in the order drawn; per step: `cook` the prompt
    chunks on the stove ([request, tokens]), `plated` the requests it plates a dish for, `used` the KV blocks in use,
    `state` and `blocks` per table."""
    held = _held_blocks(trace)
    finish_step = {e.request_id: s.step for s in trace.steps for e in s.events if e.kind == "Finished"}
    index = {s.step: i for i, s in enumerate(trace.steps)}
    done_at = {r: index[n] for r, n in finish_step.items() if n in index}
    return {
        "total_blocks": trace.num_gpu_blocks,
        "used": [s.num_used_blocks for s in trace.steps],
        "cook": [[[c.request_id, c.num_tokens] for c in s.chunks if c.phase == "prefill"] for s in trace.steps],
        "plated": [_plated(s) for s in trace.steps],
        "tables": [{"r": r.request_id, "arr": r.arrival_s * 1e3, "prompt": r.prompt_tokens, "out": r.output_tokens,
                    "tok": [x * 1e3 for x in (r.token_times_s[0] if r.token_times_s else ())]} for r in tables],
        "state": [[_state(s, r, done_at.get(r.request_id, len(trace.steps)) < i) for r in tables]
                  for i, s in enumerate(trace.steps)],
        "blocks": [[h.get(r.request_id, 0) for r in tables] for h in held],
    }
