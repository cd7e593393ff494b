"""Exports of a trace: per-request metric rows (for CSV) and a Chrome/Perfetto trace of engine steps.

Invariant: exports are pure functions of the trace; times in the Chrome trace are integer microseconds.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from chunkviz.simulator.trace import Trace

REQUEST_COLUMNS = ("request_id", "arrival_s", "prompt_tokens", "output_tokens", "priority", "n_samples",
                   "ttft_s", "e2e_s", "queue_s", "max_tbt_s", "num_preemptions", "prefix_hit_tokens",
                   "rejected_reason")


def request_rows(trace: Trace) -> list[dict[str, Any]]:
    rows = []
    for r in trace.requests:
        rows.append({
            "request_id": r.request_id, "arrival_s": r.arrival_s, "prompt_tokens": r.prompt_tokens,
            "output_tokens": r.output_tokens, "priority": r.priority, "n_samples": r.n_samples,
            "ttft_s": None if r.first_token_s is None else r.first_token_s - r.arrival_s,
            "e2e_s": None if r.finish_s is None else r.finish_s - r.arrival_s,
            "queue_s": None if r.first_scheduled_s is None else r.first_scheduled_s - r.arrival_s,
            "max_tbt_s": r.max_tbt_s, "num_preemptions": r.num_preemptions,
            "prefix_hit_tokens": r.prefix_hit_tokens, "rejected_reason": r.rejected_reason,
        })
    return rows


def requests_csv(trace: Trace) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=REQUEST_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in request_rows(trace):
        writer.writerow({k: "" if v is None else v for k, v in row.items()})
    return buffer.getvalue()


def chrome_trace(trace: Trace) -> dict[str, Any]:
    """One complete ("X") event per engine step on one lane, plus one lane per request (vidur's layout idea)."""
    events: list[dict[str, Any]] = [
        {"name": "process_name", "ph": "M", "pid": 1, "args": {"name": f"engine ({trace.policy})"}},
        {"name": "thread_name", "ph": "M", "pid": 1, "tid": 0, "args": {"name": "steps"}},
    ]
    for step in trace.steps:
        prefill = sum(c.num_tokens for c in step.chunks if c.phase == "prefill")
        decode = sum(c.num_tokens for c in step.chunks if c.phase == "decode")
        ts_us, dur_us = round(step.start_s * 1e6), max(1, round(step.duration_s * 1e6))
        events.append({"name": f"step {step.step}", "ph": "X", "pid": 1, "tid": 0, "ts": ts_us, "dur": dur_us,
                       "args": {"prefill_tokens": prefill, "decode_tokens": decode,
                                "stalled_decodes": step.num_stalled_decodes, "used_blocks": step.num_used_blocks}})
        for c in step.chunks:
            events.append({"name": f"{c.phase} {c.num_tokens}", "ph": "X", "pid": 2, "tid": c.request_id,
                           "ts": ts_us, "dur": dur_us, "args": {"start_token": c.start_token}})
    return {"traceEvents": events, "displayTimeUnit": "ms"}


def chrome_trace_json(trace: Trace) -> str:
    return json.dumps(chrome_trace(trace), separators=(",", ":"))
