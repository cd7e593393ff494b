"""Chapter 4's figures on the paged KV cache: how far shared blocks' ref counts rise, and copy-on-write in
parallel sampling, both read from the chapter's one run.

Invariant: figures are read from detailed traces (block snapshots and events), never computed beside the engine.
"""

from __future__ import annotations

from dataclasses import dataclass

from chunkviz.analysis.scenario import run_scenario
from chunkviz.lessons.chapters import DECODE_FIRST, NUM_SAMPLES, SHARED_PREFIX_SAMPLING, lesson_run
from chunkviz.simulator.trace import Trace


@dataclass(frozen=True, slots=True)
class SharingFigures:
    max_ref_count: int  # the most block tables that held one block at once
    num_shared_blocks: int  # blocks with ref count > 1 at that moment
    step_index: int  # where that happened
    num_copy_on_write: int  # copies made when parallel samples wrote into a shared, partly filled block
    num_samples: int  # of the sampled request (chapters.SAMPLED_REQUEST_ID)


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


def sharing_figures() -> SharingFigures:
    """Peak sharing and copy-on-writes in chapter 4's own run (chapters.SHARED_PREFIX_SAMPLING: the shared system
    prompt, and R1's two samples forked after its prompt as vLLM V0 / the paper do), the run its KV stage draws."""
    trace = run_scenario(lesson_run(SHARED_PREFIX_SAMPLING, DECODE_FIRST))
    max_ref, num_shared, index = _peak_sharing(trace)
    copies = sum(1 for s in trace.steps for e in s.events if e.kind == "CopyOnWrite")
    return SharingFigures(max_ref, num_shared, index, copies, NUM_SAMPLES)
