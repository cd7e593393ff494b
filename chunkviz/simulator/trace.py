"""What a simulation leaves behind: per-step records with events and snapshots, and per-request results.

Invariant: everything here is frozen plain data; to_json() is byte-identical for equal traces, and from_json()
inverts it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from typing import Any

from chunkviz.cost.roofline import StepCost
from chunkviz.request import MAX_TOKENS_AS_OUTPUT
from chunkviz.simulator.decision import StepDecision
from chunkviz.simulator.events import event_from_dict, event_to_dict
from chunkviz.simulator.float_array import FloatArray


@dataclass(frozen=True, slots=True)
class ScheduledChunk:
    request_id: int
    sample_index: int
    num_tokens: int
    start_token: int  # tokens of this sequence already in the KV cache
    phase: str  # "prefill" (prompt or recompute) or "decode"


@dataclass(frozen=True, slots=True)
class BlockView:
    block_id: int
    ref_count: int
    key: str | None
    num_filled_tokens: int
    owners: tuple[tuple[int, int], ...]  # (request_id, sample_index) of every table holding the block
    free_position: int | None  # place in the free queue (0 = reused next), None while in use


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Engine state after a step: queues, progress, and (for paged runs) the blocks ever touched."""

    waiting: tuple[tuple[int, int], ...]
    running: tuple[tuple[int, int], ...]
    progress: tuple[tuple[int, int, int, int], ...]  # (request_id, sample, computed tokens, total tokens)
    blocks: tuple[BlockView, ...]
    block_tables: tuple[tuple[int, int, tuple[int, ...]], ...]
    free_queue_head: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class StepRecord:
    step: int
    start_s: float
    duration_s: float
    chunks: tuple[ScheduledChunk, ...]
    cost: StepCost
    events: tuple[Any, ...]
    num_waiting: int
    num_running: int
    num_used_blocks: int
    num_stalled_decodes: int
    snapshot: Snapshot | None
    decision: StepDecision | None = None  # the scheduler's reasons (simulator/decision.py), for explanations


@dataclass(frozen=True, slots=True)
class RequestResult:
    request_id: int
    arrival_s: float
    prompt_tokens: int
    output_tokens: int
    priority: int
    n_samples: int
    first_scheduled_s: float | None
    first_token_s: float | None
    finish_s: float | None
    num_generated_tokens: int  # over all samples
    num_preemptions: int
    prefix_hit_tokens: int
    prefix_query_tokens: int  # tokens looked up at admissions (a preempted request is looked up again)
    max_tbt_s: float | None  # longest gap between two output tokens of any of its samples
    rejected_reason: str | None
    token_times_s: tuple[tuple[float, ...], ...] | None  # per sample, only in detailed runs
    # Prefix-cache lookups at re-admissions after a preemption, kept apart from the first admission's (as vLLM).
    prefix_hit_tokens_readmitted: int = 0
    prefix_query_tokens_readmitted: int = 0
    # The client's max_tokens as the request carried it (Request.max_tokens: "output", None = unset, or a cap),
    # written to the JSON only when it is not the default "output", so traces of default runs keep their bytes and
    # a trace file without the key reads back as "output".
    max_tokens: int | str | None = field(default=MAX_TOKENS_AS_OUTPUT, metadata={"json_omit_default": True})


@dataclass(frozen=True, slots=True)
class Trace:
    policy: str
    budget_tokens: int
    num_gpu_blocks: int
    block_size: int
    steps: tuple[StepRecord, ...]  # empty in metrics-only runs
    requests: tuple[RequestResult, ...]
    num_steps: int
    makespan_s: float
    busy_s: float
    tbt_gaps_s: tuple[float, ...] | FloatArray  # every gap between consecutive output tokens of a sequence
    step_durations_s: tuple[float, ...]
    step_mfu: tuple[float, ...]
    step_mbu: tuple[float, ...]
    peak_blocks_used: int
    blocks_in_use_at_end: int
    num_evicted_blocks: int
    num_stall_steps: int
    max_num_seqs: int = 0  # the resolved limit (0 in traces written before it was recorded)
    # The resolved prefix caching (Knobs.prefix_caching: the engine's default when the run left it at None); False
    # in traces written before it was recorded, which all ran with it off unless asked.
    prefix_caching: bool = False
    # The KV pool per GPU the run had (simulator/policies/memory.py: the engine's memory rule, or the user's
    # num_gpu_blocks whole blocks); 0 in traces written before it was recorded.
    kv_pool_bytes: int = 0
    # How the run was computed, not what it computed: equal traces may differ here, and JSON leaves it out.
    fast_forwarded_steps: int = field(default=0, compare=False, metadata={"json": False})
    # Settings that ran but contradict each other (policies.resolve.knob_notes), found when the run resolved its
    # knobs, its one resolution: the CLI and the app read them here. About the config, not the results, so they
    # stay out of equality and of the JSON (whose bytes the golden hashes fix); a trace read from JSON has none.
    knob_notes: tuple[str, ...] = field(default=(), compare=False, metadata={"json": False})

    def to_json(self) -> str:
        # allow_nan=False: NaN is not JSON (issue 16); a non-finite figure raises instead of writing a broken file.
        return json.dumps(_to_plain(self), sort_keys=True, separators=(",", ":"), allow_nan=False)

    @staticmethod
    def from_json(text: str) -> "Trace":
        return _trace_from_plain(json.loads(text))


def _to_plain(obj: Any) -> Any:
    if hasattr(obj, "kind") and hasattr(obj, "__dataclass_fields__"):
        return event_to_dict(obj)
    if hasattr(obj, "__dataclass_fields__"):
        return {f.name: _to_plain(getattr(obj, f.name)) for f in fields(obj) if f.metadata.get("json", True)
                and not (f.metadata.get("json_omit_default") and getattr(obj, f.name) == f.default)}
    if isinstance(obj, FloatArray):
        return obj.tolist()
    if isinstance(obj, (tuple, list)):
        return [_to_plain(x) for x in obj]
    return obj


def _tuplify(value: Any) -> Any:
    return tuple(_tuplify(v) for v in value) if isinstance(value, list) else value


def _snapshot_from_plain(d: dict[str, Any] | None) -> Snapshot | None:
    if d is None:
        return None
    blocks = tuple(BlockView(**{k: _tuplify(v) for k, v in b.items()}) for b in d["blocks"])
    rest = {k: _tuplify(v) for k, v in d.items() if k != "blocks"}
    return Snapshot(blocks=blocks, **rest)


def _decision_from_plain(d: dict[str, Any] | None) -> StepDecision | None:
    return None if d is None else StepDecision(**{k: _tuplify(v) for k, v in d.items()})


def _trace_from_plain(d: dict[str, Any]) -> Trace:
    steps = tuple(
        StepRecord(
            step=s["step"], start_s=s["start_s"], duration_s=s["duration_s"],
            chunks=tuple(ScheduledChunk(**c) for c in s["chunks"]), cost=StepCost(**s["cost"]),
            events=tuple(event_from_dict(e) for e in s["events"]), num_waiting=s["num_waiting"],
            num_running=s["num_running"], num_used_blocks=s["num_used_blocks"],
            num_stalled_decodes=s["num_stalled_decodes"], snapshot=_snapshot_from_plain(s["snapshot"]),
            decision=_decision_from_plain(s.get("decision")),
        )
        for s in d["steps"]
    )
    requests = tuple(RequestResult(**{k: _tuplify(v) for k, v in r.items()}) for r in d["requests"])
    rest = {k: _tuplify(v) for k, v in d.items() if k not in ("steps", "requests")}
    return Trace(steps=steps, requests=requests, **rest)

