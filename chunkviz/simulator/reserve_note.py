"""ReserveNote: why an admission rule that reserves for the future refused the head of the queue.

Invariant: a plain value read from engine state by the refusing policy's `explain` function; it lives apart from
decision.py so the policies can build it without importing the decision module (which imports the registry).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ReserveNote:
    """Why an admission rule that reserves for the future refused the head of the queue, in its engine's own units:
    TensorRT-LLM's GUARANTEED_NO_EVICT and Orca count KV blocks, SGLang's PrefillAdder counts tokens."""

    rule: str  # "guaranteed_no_evict" (policies/trtllm.py), "prefill_adder" (sglang.py), "max_model_len" (orca.py)
    request_id: int
    max_tokens: int | None  # the client's max_tokens as sent (None: unset); Orca reserves max_model_len instead
    read_max_tokens: int  # the output the rule reserves for: max_tokens as its engine reads it (unset: its default)
    reserve_tokens: int  # what the rule reserves for this request: prompt + max_tokens as the engine reads it
    need: int  # blocks (or tokens) the request would take
    available: int  # blocks (or tokens) left once the running requests' reservations are set aside
