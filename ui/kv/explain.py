"""Turns a step's events into sentences (English or Chinese) for the "explain this step" panel.

Invariant: pure given (step record, language); at most MAX_LINES sentences so a busy step stays readable.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from chunkviz.simulator.trace import StepRecord
from ui.i18n import pair_of, tr

MAX_LINES = 14


# What a learner should read first when a step is busy; lower ranks come first.
_RANK = {"DecodeStalled": 0, "Preempted": 0, "Rejected": 0, "CopyOnWrite": 1, "PrefixHit": 1, "Evicted": 1,
         "Forked": 1, "FirstToken": 2, "Finished": 3, "Admitted": 4, "Arrived": 5, "Allocated": 6, "Freed": 6}


def _short(ids: tuple[int, ...], limit: int = 8) -> str:
    text = ", ".join(str(i) for i in ids[:limit])
    return text + (" …" if len(ids) > limit else "")


def _fields(event: Any) -> dict[str, Any]:
    """An event's fields (every event is a frozen dataclass) plus the derived ones its sentence templates use."""
    data: dict[str, Any] = {f.name: getattr(event, f.name) for f in dataclasses.fields(event)}
    if "block_ids" in data:
        data["blocks"], data["num_blocks"] = _short(data["block_ids"]), len(data["block_ids"])
    if "ttft_s" in data:
        data["ttft_ms"] = data["ttft_s"] * 1e3
    if "request_ids" in data:
        data["n"], data["ids"] = len(data["request_ids"]), _short(data["request_ids"])
    return data


# The field that counts what an event's sentence names ("block" or "blocks"), per event kind.
_COUNTED = {"Preempted": "freed_blocks", "DecodeStalled": "n", "Allocated": "num_blocks", "PrefixHit": "num_blocks",
            "Freed": "num_blocks", "Forked": "shared_blocks"}


def _counted(key: str, n: int, lang: str, **fmt: Any) -> str:
    """The sentence `key` in the number `n` asks for: its singular twin `<key>_one` when n is 1."""
    return tr(f"{key}_one" if n == 1 and pair_of(f"{key}_one") else key, lang, n=n, **fmt)


def _sentence(event: Any, lang: str) -> str:
    fields = _fields(event)
    return _counted(f"ex.{event.kind}", fields.get(_COUNTED.get(event.kind, ""), -1), lang,
                    **{k: v for k, v in fields.items() if k != "n"})


def explain_step(record: StepRecord, budget_tokens: int, lang: str) -> list[str]:
    prefill = sum(c.num_tokens for c in record.chunks if c.phase == "prefill")
    decodes = sum(c.num_tokens for c in record.chunks if c.phase == "decode")
    lines = [tr("ex.summary", lang, step=record.step, ms=record.duration_s * 1e3,
                decode_part=_counted("ex.decode_tokens", decodes, lang),
                prefill_part=_counted("ex.prefill_tokens", prefill, lang),
                budget=budget_tokens)]
    events = sorted((e for e in record.events if e.kind != "ChunkScheduled"), key=lambda e: _RANK.get(e.kind, 9))
    important = [e for e in events if _RANK.get(e.kind, 9) < 5]
    for event in important:
        lines.append(_sentence(event, lang))
    for c in record.chunks:
        if c.phase == "prefill":
            # 1-based and inclusive: a chunk of n tokens after k cached ones covers tokens k+1 … k+n.
            lines.append(tr("ex.chunk", lang, rid=c.request_id, start=c.start_token + 1,
                            end=c.start_token + c.num_tokens))
    for event in events[len(important):]:
        lines.append(_sentence(event, lang))
    if len(lines) > MAX_LINES:
        hidden = len(lines) - (MAX_LINES - 1)
        lines = lines[: MAX_LINES - 1] + [_counted("ex.more", hidden, lang)]
    return lines
