"""Chapter 4's figures on the paged KV cache: how far shared blocks' ref counts rise, and copy-on-write in
parallel sampling.

Invariant: figures are read from detailed traces (block snapshots and events), never computed beside the engine.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from chunkviz.analysis.scenario import run_scenario
from chunkviz.lessons.chapters import DECODE_FIRST, LECTURE, LECTURE_BUDGET_TOKENS, SHARED_PREFIX
from chunkviz.simulator.trace import Trace


@dataclass(frozen=True, slots=True)
class SharingFigures:
    max_ref_count: int  # the most block tables that held one block at once
    num_shared_blocks: int  # blocks with ref count > 1 at that moment
    step_index: int  # where that happened
    num_copy_on_write: int  # copies made when parallel samples wrote into a shared, partly filled block
    num_samples: int


def _peak_sharing(trace: Trace) -> tuple[int, int, int]:
    best = (0, 0, 0)
    for i, s in enumerate(trace.steps):
        if s.snapshot is None:
            continue
        refs = [b.ref_count for b in s.snapshot.blocks]
        shared = sum(1 for r in refs if r > 1)
        if refs and (max(refs), shared) > best[:2]:
            best = (max(refs), shared, i)
    return best


def sharing_figures(num_samples: int = 2) -> SharingFigures:
    """Peak sharing in the chapter's shared-prompt run, and copy-on-writes in the lecture run with n samples
    (V0 / paper fork)."""
    shared = run_scenario(SHARED_PREFIX.with_policy(DECODE_FIRST, LECTURE_BUDGET_TOKENS))
    max_ref, num_shared, index = _peak_sharing(shared)
    sampling = replace(LECTURE, workload_preset="parallel-sampling",
                       workload=replace(LECTURE.workload, prompt_tokens=300, n_samples=num_samples))
    sampling = sampling.with_policy(DECODE_FIRST, LECTURE_BUDGET_TOKENS)
    # Copy-on-write belongs to vLLM V0 and the PagedAttention paper (fork after the prompt); V1 runs n child
    # requests that share prompt blocks through the prefix cache and never copy a block.
    sampling = replace(sampling, scheduler=replace(sampling.scheduler, parallel_sampling="v0-fork-cow"))
    cow = run_scenario(sampling)
    copies = sum(1 for s in cow.steps for e in s.events if e.kind == "CopyOnWrite")
    return SharingFigures(max_ref, num_shared, index, copies, num_samples)
