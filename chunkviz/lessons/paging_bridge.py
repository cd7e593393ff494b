"""What the page-replacement page shows, computed without any UI: reference presets, cursor arithmetic, the slot
grid, the five-algorithm comparison, and the same eviction policies replayed on an LLM prefix cache.

Invariant: cursor c means refs[0..c-1] have been referenced (0 = nothing yet, len(refs) = all); a grid cell at or
after the cursor is None, so stepping never reveals the future.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from chunkviz.analysis.prefix_study import (PREFIX_CACHE_POLICIES, block_ids_from_requests, hit_rate_curve,
                                            unlimited_ceiling)
from chunkviz.lessons.paging import (ALGORITHMS, MAX_FRAMES, PRESETS, PagingStep, faults_curve, find_belady_anomaly,
                                     random_refs, simulate_paging)
from chunkviz.workloads.generators import WorkloadSpec
from chunkviz.workloads.presets import make_workload

REF_PRESETS = ("belady", "textbook", "random", "custom")
RANDOM_LENGTH = 20
RANDOM_NUM_PAGES = 7
MAX_COLUMNS = 40  # a wider grid stops being readable; longer strings show a window that follows the cursor
# Cell kinds of the slot grid; the chart maps each to a colour. None = future or empty.
CELL_KINDS = ("resident", "loaded", "hit_page", "miss", "hit", "victim")
KV_WORKLOADS = ("multi-turn", "shared-system-prompt")
KV_BLOCK_TOKENS = (16, 64)
# Capacities as fractions of the distinct blocks a workload touches (1.0 = everything fits, nothing is evicted).
KV_CAPACITY_FRACTIONS = (0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 1.0)


def preset_refs(preset: str, seed: int) -> tuple[int, ...] | None:
    """The reference string of a preset (random: RANDOM_LENGTH pages from 0..RANDOM_NUM_PAGES-1); None for custom."""
    if preset == "random":
        return random_refs(seed, RANDOM_LENGTH, RANDOM_NUM_PAGES)
    return PRESETS.get(preset)


def refs_text(refs: Sequence[int]) -> str:
    return ",".join(str(p) for p in refs)


@dataclass(frozen=True, slots=True)
class RunningCount:
    """Faults and hits among the first `cursor` references; hit_ratio is None before the first reference."""

    num_refs: int
    faults: int
    hits: int
    hit_ratio: float | None


def counts_at(steps: Sequence[PagingStep], cursor: int) -> RunningCount:
    done = steps[:cursor]
    hits = sum(s.is_hit for s in done)
    return RunningCount(len(done), len(done) - hits, hits, hits / len(done) if done else None)


def next_position(steps: Sequence[PagingStep], cursor: int, want_hit: bool) -> int | None:
    """The cursor that shows the next hit (or fault) after the current one, None if there is none."""
    for step in steps[cursor:]:
        if step.is_hit == want_hit:
            return step.index + 1
    return None


def visible_window(num_refs: int, cursor: int, max_columns: int = MAX_COLUMNS) -> tuple[int, int]:
    """[first, last) columns to draw: all of them if they fit, else a window keeping the cursor near its right."""
    if num_refs <= max_columns:
        return 0, num_refs
    first = min(max(cursor - max_columns + 10, 0), num_refs - max_columns)
    return first, first + max_columns


@dataclass(frozen=True, slots=True)
class SlotGrid:
    """Rows = frames then a result row then a victim row; columns = references first..last-1."""

    first: int
    kinds: tuple[tuple[str | None, ...], ...]  # CELL_KINDS entry or None
    labels: tuple[tuple[str, ...], ...]        # page numbers to print in the cells ("" when none)


def _column(step: PagingStep) -> tuple[list[str | None], list[str]]:
    kinds: list[str | None] = []
    labels: list[str] = []
    for page in step.frames:
        if page is None:
            kinds.append(None)
        elif page != step.page:
            kinds.append("resident")
        else:
            kinds.append("hit_page" if step.is_hit else "loaded")
        labels.append("" if page is None else str(page))
    kinds += ["hit" if step.is_hit else "miss", None if step.victim is None else "victim"]
    labels += ["", "" if step.victim is None else str(step.victim)]
    return kinds, labels


def slot_grid(steps: Sequence[PagingStep], num_frames: int, cursor: int, first: int, last: int) -> SlotGrid:
    """Cell kinds and labels for columns first..last-1, blank at and after the cursor."""
    num_rows = num_frames + 2
    columns = [_column(steps[j]) if j < cursor else ([None] * num_rows, [""] * num_rows) for j in range(first, last)]
    kinds = tuple(tuple(col[0][r] for col in columns) for r in range(num_rows))
    labels = tuple(tuple(col[1][r] for col in columns) for r in range(num_rows))
    return SlotGrid(first, kinds, labels)


@dataclass(frozen=True, slots=True)
class AlgorithmCurves:
    """Total faults per algorithm at the chosen frames, faults-vs-frames curves, and each curve's first anomaly."""

    num_frames: int
    alg_to_faults: tuple[tuple[str, int], ...]
    alg_to_curve: tuple[tuple[str, tuple[tuple[int, int], ...]], ...]
    alg_to_anomaly: tuple[tuple[str, tuple[int, int]], ...]  # only algorithms that have one


def curve_max_frames(refs: Sequence[int], num_frames: int) -> int:
    """Enough frames for the curve to flatten (distinct pages + 1), at least the chosen count, capped at 12."""
    return min(max(len(set(refs)) + 1, num_frames, 2), 12, MAX_FRAMES)


def compare_algorithms(refs: tuple[int, ...], num_frames: int, clock_ref_bit_on_load: bool,
                       lfu_tie_break: str) -> AlgorithmCurves:
    """Every algorithm on the same string under the same conventions."""
    bit, tie = clock_ref_bit_on_load, lfu_tie_break
    max_frames = curve_max_frames(refs, num_frames)
    curves = tuple((alg, faults_curve(alg, refs, max_frames, clock_ref_bit_on_load=bit, lfu_tie_break=tie))
                   for alg in ALGORITHMS)
    faults = tuple((alg, simulate_paging(alg, refs, num_frames, clock_ref_bit_on_load=bit, lfu_tie_break=tie).faults)
                   for alg in ALGORITHMS)
    anomalies = tuple((alg, a) for alg, curve in curves if (a := find_belady_anomaly(curve)) is not None)
    return AlgorithmCurves(num_frames, faults, curves, anomalies)


@dataclass(frozen=True, slots=True)
class KvCurves:
    """Prefix-cache hit rate (hit blocks / prompt blocks) per policy at each capacity, and the no-eviction ceiling."""

    workload: str
    block_tokens: int
    num_requests: int
    num_distinct_blocks: int
    capacities_blocks: tuple[int, ...]
    policy_to_hit_rates: tuple[tuple[str, tuple[float, ...]], ...]
    ceiling_hit_rate: float


def kv_hit_rate_curves(workload: str, block_tokens: int, num_requests: int = 128, seed: int = 0) -> KvCurves:
    """Replay a workload preset's prompts, cut into blocks, through FIFO/LRU/LFU caches of several sizes."""
    requests = make_workload(workload, WorkloadSpec(num_requests=num_requests, seed=seed))
    block_lists = block_ids_from_requests(requests, block_tokens)
    distinct = len({b for blocks in block_lists for b in blocks})
    capacities = tuple(sorted({max(1, round(distinct * f)) for f in KV_CAPACITY_FRACTIONS}))
    results = hit_rate_curve(block_lists, capacities)
    rates = tuple((p, tuple(r.hit_rate for r in results if r.policy == p)) for p in PREFIX_CACHE_POLICIES)
    return KvCurves(workload, block_tokens, len(requests), distinct, capacities, rates,
                    unlimited_ceiling(block_lists).hit_rate)
