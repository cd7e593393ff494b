"""What the paged-KV page shows, computed without any UI: a teaching-size scenario, one snapshot as a block grid
and block tables, jump targets, and paged vs contiguous memory per step.

Invariant: the grid has exactly num_gpu_blocks cells, one per physical block in id order; a cell is in use iff its
block's ref count is > 0, and its owners are exactly the block tables that hold it.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, replace

from chunkviz.config import CacheConfig
from chunkviz.lessons.contiguous import compare_fit, replay_contiguous
from chunkviz.workloads.presets import make_workload
from chunkviz.request import Request
from chunkviz.analysis.scenario import Scenario
from chunkviz.simulator.trace import Snapshot, Trace
from chunkviz.workloads.generators import WorkloadSpec

KV_SCENARIOS: tuple[str, ...] = ("shared-system-prompt", "multi-turn", "parallel-sampling", "long-among-chats")
MIN_REQUESTS, MAX_REQUESTS = 12, 24
MIN_BLOCKS, MAX_BLOCKS = 48, 512
BLOCK_SIZES: tuple[int, ...] = (4, 8, 16)
# A context limit to match the shrunken prompts: the contiguous baseline reserves this much per sequence, and with
# a real model's 8k limit not one sequence would fit in a teaching cache of a few thousand tokens.
TEACHING_MAX_MODEL_LEN_TOKENS = 1024
LONG_PROMPT_MIN_TOKENS = 2000  # prompts above this (the 6-8k documents of long-among-chats) are shrunk ...
LONG_PROMPT_DIVISOR = 16  # ... to 375-500 tokens: a quarter of the default cache, not more than all of it
# (mean prompt tokens, mean output tokens, shared system-prompt tokens) per scenario, small enough for a grid.
_SIZES = {"shared-system-prompt": (64, 32, 96), "multi-turn": (48, 32, 0), "parallel-sampling": (64, 32, 0),
          "long-among-chats": (64, 32, 0)}


def teaching_requests(preset: str, num_requests: int, qps: float, seed: int) -> tuple[Request, ...]:
    """The preset's requests at teaching size (tokens in tens to hundreds), ids in arrival order."""
    prompt, output, shared = _SIZES[preset]
    spec = WorkloadSpec(num_requests=num_requests, qps=qps, prompt_tokens=prompt, output_tokens=output,
                        shared_prefix_tokens=shared, seed=seed)
    return tuple(replace(r, prompt_tokens=r.prompt_tokens // LONG_PROMPT_DIVISOR, segments=None)
                 if r.prompt_tokens > LONG_PROMPT_MIN_TOKENS else r for r in make_workload(preset, spec))


def kv_scenario(base: Scenario, preset: str, num_requests: int, cache: CacheConfig) -> Scenario:
    """The sidebar's model, GPU, scheduler, rate and seed with a teaching workload and cache."""
    requests = teaching_requests(preset, num_requests, base.workload.qps, base.workload.seed)
    max_len = min(base.model.max_model_len_tokens, TEACHING_MAX_MODEL_LEN_TOKENS)
    # A cache of a few hundred blocks cannot run vLLM's 256 sequences anyway; capping says so instead of a note.
    limits = [x for x in (base.scheduler.max_num_seqs, cache.num_gpu_blocks) if x is not None]
    max_seqs = min(limits) if limits else None  # None: the engine's default
    # The parallel-sampling lesson shows the paper's fork + copy-on-write (vLLM V0); V1's child requests share
    # only full blocks through the prefix cache and copy nothing.
    sampling = "v0-fork-cow" if preset == "parallel-sampling" else base.scheduler.parallel_sampling
    return replace(base, workload_preset=preset, explicit_requests=requests, cache=cache, record_detail=True,
                   model=replace(base.model, max_model_len_tokens=max_len),
                   scheduler=replace(base.scheduler, max_num_seqs=max_seqs, parallel_sampling=sampling))


@dataclass(frozen=True, slots=True)
class GridCell:
    block_id: int
    state: str  # "empty" (free, no cached content), "cached" (free, content kept), "used" (ref count > 0)
    request_id: int | None  # the oldest owner's request, which decides the colour; None when free
    ref_count: int
    key: str | None
    num_filled_tokens: int
    owners: tuple[tuple[int, int], ...]
    free_position: int | None  # 0 = reused next; None in use, or free beyond the snapshot's queue head


def grid_cells(snapshot: Snapshot, num_gpu_blocks: int) -> tuple[GridCell, ...]:
    """One cell per physical block; blocks the engine never handed out are free and empty."""
    views = {b.block_id: b for b in snapshot.blocks}
    head = {block_id: i for i, block_id in enumerate(snapshot.free_queue_head)}
    cells = []
    for block_id in range(num_gpu_blocks):
        b = views.get(block_id)
        if b is None:
            cells.append(GridCell(block_id, "empty", None, 0, None, 0, (), head.get(block_id)))
            continue
        state = "used" if b.ref_count > 0 else ("cached" if b.key is not None else "empty")
        owner = b.owners[0][0] if b.owners else None
        cells.append(GridCell(block_id, state, owner, b.ref_count, b.key, b.num_filled_tokens, b.owners,
                              b.free_position))
    return tuple(cells)


@dataclass(frozen=True, slots=True)
class TableRow:
    request_id: int
    sample_index: int
    computed_tokens: int
    total_tokens: int
    block_ids: tuple[int, ...]
    shared_block_ids: tuple[int, ...]  # blocks another table also holds (ref count > 1)


def table_rows(snapshot: Snapshot) -> tuple[TableRow, ...]:
    """Every block table in the snapshot (running sequences), by request and sample."""
    ref_count = {b.block_id: b.ref_count for b in snapshot.blocks}
    progress = {(rid, s): (done, total) for rid, s, done, total in snapshot.progress}
    rows = []
    for rid, sample, ids in snapshot.block_tables:
        done, total = progress.get((rid, sample), (0, 0))
        rows.append(TableRow(rid, sample, done, total, ids, tuple(b for b in ids if ref_count.get(b, 0) > 1)))
    return tuple(rows)


def event_steps(trace: Trace, kind: str) -> tuple[int, ...]:
    """Indices of the steps that emitted at least one event of `kind`, ascending."""
    return tuple(i for i, record in enumerate(trace.steps) if any(e.kind == kind for e in record.events))


def next_step(steps: tuple[int, ...], cursor: int) -> int | None:
    """The first index in `steps` after `cursor`, or None."""
    i = bisect_right(steps, cursor)
    return steps[i] if i < len(steps) else None


@dataclass(frozen=True, slots=True)
class MemorySeries:
    """Per step (index into trace.steps): paged vs contiguous KV memory in tokens, and sequences held."""

    capacity_tokens: int
    max_model_len_tokens: int
    reserved_max_len_tokens: tuple[int, ...]  # contiguous, max_model_len reserved per placed sequence
    reserved_exact_tokens: tuple[int, ...]  # contiguous, prompt + output reserved (an oracle)
    paged_tokens: tuple[int, ...]  # paged: blocks in use x block size
    used_tokens: tuple[int, ...]  # KV the running sequences have computed (shared blocks count once per sequence)
    num_running: tuple[int, ...]  # sequences the paged engine held
    num_placed_max_len: tuple[int, ...]
    num_placed_exact: tuple[int, ...]
    num_seqs: int  # compare_fit: sequences if all requests came at once, and how many fit each way
    num_fit_paged_prompts: int
    num_fit_paged_full: int
    num_fit_max_len: int
    num_fit_exact: int


def memory_series(trace: Trace, requests: tuple[Request, ...], max_model_len_tokens: int) -> MemorySeries:
    """Replays the trace in a contiguous space of the same size under both reservation modes."""
    by_len = replay_contiguous(trace, "max_model_len", max_model_len_tokens)
    exact = replay_contiguous(trace, "prompt_plus_output", max_model_len_tokens)
    fit_len = compare_fit(requests, trace.num_gpu_blocks, trace.block_size, max_model_len_tokens, "max_model_len")
    fit_exact = compare_fit(requests, trace.num_gpu_blocks, trace.block_size, max_model_len_tokens,
                            "prompt_plus_output")
    used = []
    for record in trace.steps:
        snap = record.snapshot
        running = set(snap.running) if snap is not None else set()
        used.append(sum(done for rid, s, done, _ in (snap.progress if snap else ()) if (rid, s) in running))
    return MemorySeries(
        capacity_tokens=by_len.capacity_tokens, max_model_len_tokens=max_model_len_tokens,
        reserved_max_len_tokens=tuple(s.reserved_tokens for s in by_len.steps),
        reserved_exact_tokens=tuple(s.reserved_tokens for s in exact.steps),
        paged_tokens=tuple(s.paged_used_blocks * trace.block_size for s in exact.steps), used_tokens=tuple(used),
        num_running=tuple(s.num_running for s in exact.steps),
        num_placed_max_len=tuple(s.num_placed for s in by_len.steps),
        num_placed_exact=tuple(s.num_placed for s in exact.steps), num_seqs=fit_exact.num_seqs,
        num_fit_paged_prompts=fit_exact.num_fit_paged_at_admission, num_fit_paged_full=fit_exact.num_fit_paged_at_peak,
        num_fit_max_len=fit_len.num_fit_contiguous, num_fit_exact=fit_exact.num_fit_contiguous,
    )


def rejections(trace: Trace) -> tuple[tuple[int, str], ...]:
    """(request id, the engine's reason) for every request that could not be served."""
    return tuple((r.request_id, r.rejected_reason) for r in trace.requests if r.rejected_reason is not None)
