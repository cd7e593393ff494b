"""Typed, frozen events the engine emits; the playback panel turns them into sentences.

Invariant: events are plain data (ints, floats, strings, tuples) with a `kind`, so a trace serialises to JSON and
back without loss.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, ClassVar


@dataclass(frozen=True, slots=True)
class Arrived:
    kind: ClassVar[str] = "Arrived"
    request_id: int
    prompt_tokens: int
    output_tokens: int


@dataclass(frozen=True, slots=True)
class Rejected:
    kind: ClassVar[str] = "Rejected"
    request_id: int
    reason: str


@dataclass(frozen=True, slots=True)
class Admitted:
    kind: ClassVar[str] = "Admitted"
    request_id: int
    sample_index: int
    prefix_hit_tokens: int


@dataclass(frozen=True, slots=True)
class ChunkScheduled:
    kind: ClassVar[str] = "ChunkScheduled"
    request_id: int
    sample_index: int
    num_tokens: int
    start_token: int  # tokens already in the KV cache before this chunk
    phase: str  # "prefill" or "decode"


@dataclass(frozen=True, slots=True)
class FirstToken:
    kind: ClassVar[str] = "FirstToken"
    request_id: int
    ttft_s: float


@dataclass(frozen=True, slots=True)
class Finished:
    kind: ClassVar[str] = "Finished"
    request_id: int
    sample_index: int
    e2e_s: float


@dataclass(frozen=True, slots=True)
class Preempted:
    kind: ClassVar[str] = "Preempted"
    request_id: int
    sample_index: int
    freed_blocks: int


@dataclass(frozen=True, slots=True)
class DecodeStalled:
    kind: ClassVar[str] = "DecodeStalled"
    request_ids: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Allocated:
    kind: ClassVar[str] = "Allocated"
    request_id: int
    sample_index: int
    block_ids: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class PrefixHit:
    kind: ClassVar[str] = "PrefixHit"
    request_id: int
    sample_index: int
    block_ids: tuple[int, ...]
    hit_tokens: int


@dataclass(frozen=True, slots=True)
class CopyOnWrite:
    kind: ClassVar[str] = "CopyOnWrite"
    request_id: int
    sample_index: int
    from_block: int
    to_block: int


@dataclass(frozen=True, slots=True)
class Evicted:
    kind: ClassVar[str] = "Evicted"
    block_id: int
    block_key: str


@dataclass(frozen=True, slots=True)
class Freed:
    kind: ClassVar[str] = "Freed"
    request_id: int
    sample_index: int
    block_ids: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Forked:
    kind: ClassVar[str] = "Forked"
    request_id: int
    num_samples: int
    shared_blocks: int


Event = (Arrived | Rejected | Admitted | ChunkScheduled | FirstToken | Finished | Preempted | DecodeStalled
         | Allocated | PrefixHit | CopyOnWrite | Evicted | Freed | Forked)
EVENT_TYPES: dict[str, type] = {t.kind: t for t in (Arrived, Rejected, Admitted, ChunkScheduled, FirstToken, Finished,
                                                    Preempted, DecodeStalled, Allocated, PrefixHit, CopyOnWrite,
                                                    Evicted, Freed, Forked)}


def event_to_dict(event: Any) -> dict[str, Any]:
    return {"kind": event.kind, **asdict(event)}


def event_from_dict(data: dict[str, Any]) -> Any:
    fields = {k: (tuple(v) if isinstance(v, list) else v) for k, v in data.items() if k != "kind"}
    return EVENT_TYPES[data["kind"]](**fields)
