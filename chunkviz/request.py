"""Requests as the workload hands them to the engine: immutable specs with ids in arrival order.

Invariant: a prompt's content segments add up to exactly `prompt_tokens`; equal segment keys at equal offsets
mean equal token ids, which is all prefix caching needs to know about token content.
"""

from __future__ import annotations

from dataclasses import dataclass

from chunkviz.inputs import MAX_TIME_S

# Priority classes (the article's "per-class SLO"): 0 is interactive chat, 1 is offline batch. Under a priority
# scheduling policy (SchedulerConfig.scheduling_policy) the lower value is served first, as in vLLM
# (vllm/v1/core/sched/request_queue.py PriorityRequestQueue: "requests with a smaller value of `priority` are
# processed first"), so chats go before documents.
PRIORITY_INTERACTIVE = 0
PRIORITY_BATCH = 1
# Request.max_tokens: the client sent its request's true output length (what benchmark clients send, e.g. vLLM's
# benchmark_serving `max_tokens=output_len`); None is a client that sent no max_tokens (chat clients often do).
MAX_TOKENS_AS_OUTPUT = "output"


@dataclass(frozen=True, slots=True)
class Segment:
    """A run of `num_tokens` tokens whose ids are a fixed function of (key, offset).

    Two prompts that hold the same key at the same offsets hold the same token ids, so a shared system prompt is
    one segment reused by many requests, and a conversation's next turn repeats the earlier turns' segments.
    """

    key: str
    num_tokens: int


@dataclass(frozen=True, slots=True)
class Request:
    """One user request: when it arrives, how long its prompt is, how many tokens it will generate."""

    request_id: int
    arrival_s: float
    prompt_tokens: int
    output_tokens: int
    priority: int = PRIORITY_INTERACTIVE
    n_samples: int = 1
    # None means "unique content": the prompt shares nothing with any other request.
    segments: tuple[Segment, ...] | None = None
    # Segment key of the generated tokens (sample 0); a later turn that quotes this answer uses the same key.
    output_key: str | None = None
    # Disaggregated serving (simulator/deployment.py): the prompt's KV cache and the first output token were made on a
    # prefill instance and arrive with the request at `arrival_s`; this engine only decodes (vLLM's KV connectors load
    # them as "external computed tokens", KVConnectorBase_V1.get_num_new_matched_tokens).
    kv_transferred: bool = False
    # The client's max_tokens, apart from the tokens it will really produce: "output" (MAX_TOKENS_AS_OUTPUT), None
    # (unset) or a cap >= output_tokens. Only admission rules that reserve for the future read it (client_max_tokens).
    max_tokens: int | str | None = MAX_TOKENS_AS_OUTPUT

    def __post_init__(self) -> None:
        if self.prompt_tokens < 1:
            raise ValueError(f"request {self.request_id}: prompt_tokens must be at least 1, got {self.prompt_tokens}")
        if self.output_tokens < 1:
            raise ValueError(f"request {self.request_id}: output_tokens must be at least 1, got {self.output_tokens}")
        if self.n_samples < 1:
            raise ValueError(f"request {self.request_id}: n_samples must be at least 1, got {self.n_samples}")
        if not self.arrival_s >= 0.0:  # also rejects NaN
            raise ValueError(f"request {self.request_id}: arrival_s must be a number >= 0, got {self.arrival_s}")
        if not self.arrival_s <= MAX_TIME_S:  # beyond it the float clock loses the step times (chunkviz.inputs)
            raise ValueError(f"request {self.request_id}: arrival_s is {self.arrival_s:g} s; the limit is "
                             f"{MAX_TIME_S:g} s (about 3.2 years), where the simulator's clock still resolves 15 ns")
        if self.kv_transferred and (self.output_tokens < 2 or self.n_samples != 1):
            raise ValueError(f"request {self.request_id}: a transferred prompt needs output_tokens >= 2 and n_samples 1")
        if isinstance(self.priority, bool) or not isinstance(self.priority, int):
            raise ValueError(f"request {self.request_id}: priority must be an integer (lower is served first), "
                             f"got {self.priority!r}")
        _check_max_tokens(self)
        if self.segments is not None and sum(s.num_tokens for s in self.segments) != self.prompt_tokens:
            raise ValueError(f"request {self.request_id}: segments must add up to prompt_tokens")

    @property
    def client_max_tokens(self) -> int | None:
        """The max_tokens the engine receives: an int, or None where the client left it unset."""
        if self.max_tokens == MAX_TOKENS_AS_OUTPUT:
            return self.output_tokens
        assert not isinstance(self.max_tokens, str)  # __post_init__ (_check_max_tokens) refused any other string
        return self.max_tokens

    def prompt_segments(self) -> tuple[Segment, ...]:
        """The prompt's content; a request without declared content gets one segment of its own."""
        if self.segments is not None:
            return self.segments
        return (Segment(f"r{self.request_id}", self.prompt_tokens),)


def _check_max_tokens(request: Request) -> None:
    value = request.max_tokens
    if value is None or value == MAX_TOKENS_AS_OUTPUT:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"request {request.request_id}: max_tokens must be 'output', None or an integer, "
                         f"got {value!r}")
    if value < request.output_tokens:  # the engine stops at max_tokens: cut the output first (workloads/max_tokens)
        raise ValueError(f"request {request.request_id}: max_tokens ({value}) is below output_tokens "
                         f"({request.output_tokens})")
