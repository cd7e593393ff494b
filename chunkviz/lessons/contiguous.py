"""The pre-paging baseline: every running sequence holds one contiguous KV region, placed first-fit.

A detailed trace's running set is replayed, step by step, in a linear address space as large as the paged cache
(num_gpu_blocks × block_size tokens). Invariant: regions never overlap and stay inside the space, so at every step
reserved + free == capacity, reserved == used + internal fragmentation, external == free − largest hole.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Sequence

from chunkviz.errors import InputError
from chunkviz.request import Request
from chunkviz.simulator.trace import StepRecord, Trace

# max_model_len: what pre-paging servers did (the output length is unknown at admission, so reserve the maximum).
# prompt_plus_output: an oracle that knows each output length in advance; the best a contiguous layout can do.
RESERVE_MODES: tuple[str, ...] = ("max_model_len", "prompt_plus_output")

SeqKey = tuple[int, int]
Region = tuple[int, int]  # (start token, length in tokens)


@dataclass(frozen=True, slots=True)
class ContiguousStep:
    step: int
    num_running: int  # sequences the paged engine held after this step
    num_placed: int  # of those, how many found a contiguous region
    reserved_tokens: int
    used_tokens: int  # KV actually computed by the placed sequences
    internal_frag_tokens: int  # reserved − used: reserved for tokens not (yet) generated
    free_tokens: int
    largest_hole_tokens: int
    external_frag_tokens: int  # free − largest hole: free space split into holes too small to be one region
    is_head_blocked_by_holes: bool  # the next sequence to place fits in the free total but in no single hole
    paged_used_blocks: int
    paged_waste_tokens: int  # paged blocks × block_size − computed KV: only the partly filled last blocks

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class ContiguousReport:
    mode: str
    capacity_tokens: int
    block_size: int
    steps: tuple[ContiguousStep, ...]
    mean_internal_frag_tokens: float  # per step, unweighted
    mean_external_frag_tokens: float
    mean_paged_waste_tokens: float
    max_num_running: int  # the paged engine's peak concurrency
    max_num_placed: int  # the contiguous layout's peak concurrency
    max_num_unplaced: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class FitComparison:
    """How many sequences (requests in arrival order, one per sample) can be resident at once."""

    mode: str
    capacity_tokens: int
    num_seqs: int
    num_fit_paged_at_admission: int  # prompt blocks only: what a paged engine needs to start them
    num_fit_paged_at_peak: int  # prompt + output rounded up to whole blocks: all of them at their longest
    num_fit_contiguous: int  # one reservation each, packed with no holes (the best case for contiguous)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def reservation_tokens(prompt_tokens: int, output_tokens: int, mode: str, max_model_len_tokens: int) -> int:
    """Tokens a contiguous allocator reserves for one sequence at admission."""
    if mode not in RESERVE_MODES:
        raise InputError(f"mode must be one of {', '.join(RESERVE_MODES)}, got {mode!r}")
    if isinstance(max_model_len_tokens, bool) or not isinstance(max_model_len_tokens, int) or max_model_len_tokens < 1:
        raise InputError(f"max_model_len_tokens must be an integer >= 1, got {max_model_len_tokens!r}")
    return max_model_len_tokens if mode == "max_model_len" else prompt_tokens + output_tokens


def first_fit(regions: Sequence[Region], size: int, capacity: int) -> int | None:
    """Start of the lowest hole that holds `size` tokens (regions sorted by start), or None."""
    cursor = 0
    for start, length in regions:
        if start - cursor >= size:
            return cursor
        cursor = start + length
    return cursor if capacity - cursor >= size else None


def hole_sizes(regions: Sequence[Region], capacity: int) -> list[int]:
    """Sizes of the gaps between sorted regions and at the end of the space, in tokens (empty gaps left out)."""
    holes, cursor = [], 0
    for start, length in regions:
        holes.append(start - cursor)
        cursor = start + length
    holes.append(capacity - cursor)
    return [h for h in holes if h > 0]


def replay_contiguous(trace: Trace, mode: str, max_model_len_tokens: int) -> ContiguousReport:
    """Replay the trace's running sets in a contiguous space of the same size; a sequence that finds no hole
    waits (unplaced) and is retried every step; one that leaves the running set frees its region."""
    if not trace.steps or trace.steps[0].snapshot is None:
        raise InputError("the contiguous replay needs a detailed trace (record_detail=True) with snapshots")
    need = {r.request_id: reservation_tokens(r.prompt_tokens, r.output_tokens, mode, max_model_len_tokens)
            for r in trace.requests}
    capacity = trace.num_gpu_blocks * trace.block_size
    regions: dict[SeqKey, Region] = {}
    steps = tuple(_replay_step(record, regions, need, capacity, trace.block_size) for record in trace.steps)
    n = len(steps)
    return ContiguousReport(
        mode=mode, capacity_tokens=capacity, block_size=trace.block_size, steps=steps,
        mean_internal_frag_tokens=sum(s.internal_frag_tokens for s in steps) / n,
        mean_external_frag_tokens=sum(s.external_frag_tokens for s in steps) / n,
        mean_paged_waste_tokens=sum(s.paged_waste_tokens for s in steps) / n,
        max_num_running=max(s.num_running for s in steps), max_num_placed=max(s.num_placed for s in steps),
        max_num_unplaced=max(s.num_running - s.num_placed for s in steps),
    )


def _replay_step(record: StepRecord, regions: dict[SeqKey, Region], need: dict[int, int], capacity: int,
                 block_size: int) -> ContiguousStep:
    snap = record.snapshot
    assert snap is not None
    computed = {(rid, sample): done for rid, sample, done, _ in snap.progress}
    running = set(snap.running)
    for key in [k for k in regions if k not in running]:
        del regions[key]  # finished or preempted: the region is released
    unplaced = []
    for key in snap.running:  # admission order: older sequences get the first chance at a hole
        if key not in regions:
            start = first_fit(sorted(regions.values()), need[key[0]], capacity)
            if start is None:
                unplaced.append(key)
            else:
                regions[key] = (start, need[key[0]])
    holes = hole_sizes(sorted(regions.values()), capacity)
    reserved = sum(length for _, length in regions.values())
    used = sum(computed[key] for key in regions)
    free, largest = capacity - reserved, max(holes, default=0)
    head = unplaced[0] if unplaced else (snap.waiting[0] if snap.waiting else None)
    head_need = need[head[0]] if head is not None else None
    # Sharing (forks, prefix hits) can make paged memory smaller than the logical KV; that is no waste.
    paged_waste = max(0, record.num_used_blocks * block_size - sum(computed[key] for key in snap.running))
    return ContiguousStep(
        step=record.step, num_running=len(snap.running), num_placed=len(regions), reserved_tokens=reserved,
        used_tokens=used, internal_frag_tokens=reserved - used, free_tokens=free, largest_hole_tokens=largest,
        external_frag_tokens=free - largest,
        is_head_blocked_by_holes=head_need is not None and largest < head_need <= free,
        paged_used_blocks=record.num_used_blocks, paged_waste_tokens=paged_waste,
    )


def compare_fit(requests: Sequence[Request], num_gpu_blocks: int, block_size: int, max_model_len_tokens: int,
                mode: str) -> FitComparison:
    """Sequences (in order) resident at once under paging (at admission, at peak) and contiguous reservation."""
    capacity = num_gpu_blocks * block_size

    def blocks(tokens: int) -> int:
        return -(-tokens // block_size)

    def num_fit(sizes: list[int], room: int) -> int:
        total = count = 0
        for size in sizes:
            if total + size > room:
                break
            total, count = total + size, count + 1
        return count

    seqs = [r for r in requests for _ in range(r.n_samples)]
    return FitComparison(
        mode=mode, capacity_tokens=capacity, num_seqs=len(seqs),
        num_fit_paged_at_admission=num_fit([blocks(r.prompt_tokens) for r in seqs], num_gpu_blocks),
        num_fit_paged_at_peak=num_fit([blocks(r.prompt_tokens + r.output_tokens) for r in seqs], num_gpu_blocks),
        num_fit_contiguous=num_fit([reservation_tokens(r.prompt_tokens, r.output_tokens, mode, max_model_len_tokens)
                                    for r in seqs], capacity),
    )
