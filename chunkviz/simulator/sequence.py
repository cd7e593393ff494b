"""Live per-sequence progress inside the engine (mutable; never leaves engine code).

Invariant: 0 <= num_computed_tokens <= num_tokens, where num_tokens = prompt + tokens sampled so far; a sequence is
decode-ready when everything but its newest sampled token is in the KV cache.
"""

from __future__ import annotations

from dataclasses import dataclass

from chunkviz.simulator.kv.blocks import Content
from chunkviz.request import Request


@dataclass(slots=True)
class SeqState:
    request: Request
    sample_index: int = 0
    num_output_tokens: int = 0
    num_computed_tokens: int = 0
    admit_seq_no: int = 0
    num_preemptions: int = 0
    prefix_hit_tokens: int = 0
    prefix_query_tokens: int = 0  # tokens looked up in the prefix cache at its first admission
    prefix_hit_tokens_readmitted: int = 0  # the same at admissions after a preemption, counted apart (as vLLM)
    prefix_query_tokens_readmitted: int = 0
    kv_transferred_tokens: int = 0  # prompt tokens whose KV came from a prefill instance (0 once preempted)
    num_forks_pending: int = 0  # V0-style parallel sampling: samples this sequence forks after its prompt
    max_gap_s: float | None = None  # longest gap between two of this sequence's output tokens
    kv_capacity_tokens: int = 0  # tokens its blocks can hold (kept by sched_common for the fast decode path)
    # Lean manager only: a step whose tokens end at or below this changes no block (LeanPrefixCache.cover_limit), so
    # it needs no allocate, covers or on_computed call; 0 (ask the manager) until sched_common.allocate sets it.
    kv_cover_limit_tokens: int = 0
    first_scheduled_s: float | None = None
    last_token_s: float | None = None
    token_times_s: list[float] | None = None
    wait_key: tuple[int, int] = (0, 0)  # (priority, order of entry): its place in a priority-ordered waiting queue
    # Derived, kept as plain fields because the step loop reads them millions of times in large runs.
    key: tuple[int, int] = (0, 0)
    num_tokens: int = 0
    prompt_segments: tuple = ()  # request.prompt_segments(), built once: content() runs once per block cached

    def __post_init__(self) -> None:
        self.key = (self.request.request_id, self.sample_index)
        self.num_tokens = self.request.prompt_tokens + self.num_output_tokens
        self.prompt_segments = self.request.prompt_segments()

    def add_output_token(self) -> None:
        self.num_output_tokens += 1
        self.num_tokens += 1

    @property
    def is_decode_ready(self) -> bool:
        return self.num_output_tokens > 0 and self.num_computed_tokens == self.num_tokens - 1

    @property
    def seats_needed(self) -> int:
        """Running slots this sequence will occupy once admitted: a V0-style parent forks into n."""
        return 1 + self.num_forks_pending

    def content(self, start: int, end: int) -> Content:
        """Token ids of [start, end) as (segment key, from, to) runs; generated tokens form a per-sample segment."""
        segments = self.prompt_segments
        if segments and 0 <= start < end <= segments[0].num_tokens:
            # Within the first segment (every block of a prompt without declared content): the loop's one run.
            return ((segments[0].key, start, end),)
        runs: list[tuple[str, int, int]] = []
        offset = 0
        for segment in segments:
            lo, hi = max(start, offset), min(end, offset + segment.num_tokens)
            if lo < hi:
                runs.append((segment.key, lo - offset, hi - offset))
            offset += segment.num_tokens
            if offset >= end:
                return tuple(runs)
        out_key = self.request.output_key or f"r{self.request.request_id}.out"
        if self.sample_index:
            out_key += f".s{self.sample_index}"
        lo = max(start, offset)
        if lo < end:
            runs.append((out_key, lo - offset, end - offset))
        return tuple(runs)
