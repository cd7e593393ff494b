"""What a fast-forward run keeps (FastForward) and one stretch's aggregates (Stretch): the state fast_forward.py,
fast_absorb.py and fast_kv.py share.

Invariant: a Stretch's aggregates describe the running sequences exactly as the exact loop would hold them after
st.k steps of the stretch (fast_forward.py's docstring lists them); FastForward only accumulates what the stretches
leave for the trace.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from chunkviz.cost.roofline import StepCoster, StepShape
from chunkviz.request import Request
from chunkviz.simulator.sequence import SeqState

# One sequence in a stretch: (seq, first decode step, allocation bucket, finish step, blocks held, computed tokens),
# the last two as of its first decode step.
Row = tuple[SeqState, int, int, int, int, int]


@dataclass(slots=True)
class FastForward:
    """Constants of the roofline for decode-only steps, and what the stretches leave for the trace."""

    coster: StepCoster
    block_size: int
    # (first step, steps, gap position, its prefill-only steps' places in it, decode steps with a joiner's own gap)
    stretches: list[tuple[int, int, int, list[int], list[int]]] = field(default_factory=list)
    step_seqs: list[int] = field(default_factory=list)  # n of each fast step
    step_context: list[int] = field(default_factory=list)  # summed context (kv_read_tokens) of each fast step
    gap_values_s: list[float] = field(default_factory=list)  # the shared token gap of each non-first fast step
    by_n: dict[int, tuple[float, float, float, float, float]] = field(default_factory=dict)
    absorbs_arrivals: bool = False  # PolicyEntry.fast_path_absorbs_arrivals: admissions into a mixed step
    chunks_admissions: bool = False  # Knobs.chunks_prompts: the last admission may be cut to the tokens left
    # PolicyEntry.fast_path_reserve's answer: blocks a request sets aside to its completion (None: no such check)
    reserve: Callable[[Request], int] | None = None
    # PolicyEntry.fast_path_prefill_first: admissions form a prefill-only step of their own (SGLang), not a mixed one
    prefill_first: bool = False
    max_num_seqs: int = 0
    budget_tokens: int = 0
    mixed_costs: list[tuple[int, float, float]] = field(default_factory=list)  # (step index, MFU, MBU) of mixed steps
    paged: bool = False  # a BlockManager (prefix caching, parallel samples): its block operations are replayed
    replay: Callable | None = None  # PolicyEntry.fast_path_replay: the policy's own state over a stretch's steps

    @property
    def num_steps(self) -> int:
        return len(self.step_seqs)

    def fixed_terms(self, n: int) -> tuple[float, float, float, float, float]:
        """(dense_s, lm_head_s, communication_s, work_s, launch_s) of a step of n decodes with nothing waiting:
        StepCoster's terms that ignore context (dense at the CUDA graph's padded size; the host's scheduling and
        preparation of n requests, and the launches of the step's graph mode)."""
        terms = self.by_n.get(n)
        if terms is None:
            cost = self.coster(StepShape(n, n, n, 0))
            terms = self.by_n[n] = (cost.dense_s, cost.lm_head_s, cost.communication_s, *self.coster.host_of(n, n, n))
        return terms


@dataclass(slots=True)
class Stretch:
    """The aggregates of one stretch (the steady loop copies them into local names while it runs)."""

    rows: list[Row]
    slack: int
    free: int
    peak: int
    now_s: float
    busy_s: float
    num_steps: int
    n: int
    context: int
    allocs_at: list[int]
    finishes: list[tuple[int, int]]  # heap of (finish step, row index)
    total_blocks: int
    durations: list[float]  # the run's step durations (the loop appends to it)
    kv: object = None  # the paged BlockManager, or None (the counting manager's arithmetic is replayed at the end)
    bucket_rows: list[list[int]] = field(default_factory=list)  # paged: live row indices per bucket, running order
    ends_s: list[float] = field(default_factory=list)
    k: int = 0
    ops_done_k: int = 0  # lean manager: steps before this one had their block operations applied (fast_kv.lean_flush)
    # A fresh request whose prompt is being chunked over the stretch's mixed steps (fast_absorb), its SeqState kept
    # as the exact loop keeps it; it becomes a row when its last chunk samples its first token.
    prefill: SeqState | None = None
    # Prefill-only steps (fast_prefill.py, SGLang): k counts decode steps only (ends_s and the rows are
    # indexed by it), so a stretch's steps are its decode steps plus these, at their places among all its steps.
    stalls: list[int] = field(default_factory=list)
    # (decode step, row, end of its prefill step) of each joiner from a prefill-only step: its first token gap runs
    # from that end to its first decode, not from the previous decode step's end as everyone else's
    specials: list[tuple[int, int, float]] = field(default_factory=list)
    replay_from: int = 0  # FastForward.step_seqs before this index were replayed into the policy's state already
    first_step: int = 0  # the run's step count when the stretch began
    # Indices of rows that may still run, in running order; rows that finished are pruned only when it is read
    # (fast_absorb.live_rows), so the steady loop never touches it.
    live: list[int] = field(default_factory=list)
