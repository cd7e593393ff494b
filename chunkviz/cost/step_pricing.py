"""How an engine runs a step on the host: its CPU time (scheduling, input preparation, kernel launches;
cost/host_time.py) and how much of it the step exposes, by CUDA-graph mode and overlap scheduling.

Invariant: graphs only remove launch time (scheduling and input preparation are the same in every mode); overlap
only hides the CPU work (scheduling + input preparation), never the launches, and never more than the GPU time;
so the exposed host time of a step is never zero under the engines' model and never more than its CPU time.

  exposed = launches + work                      without overlap (the GPU waits for the host every step)
          = launches + max(0, work − gpu)        with overlap (step k+1's scheduling and preparation run during
                                                 step k's GPU work; an eager step's launches still pace the GPU)
  work    = scheduling + input preparation       (host_time.HostCosts of the engine)
With CostConfig.step_overhead_s set (the CLI's --step-overhead-ms), that flat figure replaces the whole host model:
work = step_overhead_s in every mode, no launches (0 leaves the GPU's time alone, for comparisons with measurements).
A graph is captured for given sizes only: a step between sizes runs the next captured size (padding: the dense
kernels compute the padded rows) or, where the engine does not pad, eagerly; a step above the largest size is eager.
Overlap is priced in steady state: the first step after an idle engine is charged as if a GPU step had preceded it.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass

from chunkviz.config import CostConfig, ModelSpec
from chunkviz.cost.host_time import (ATTENTION_KERNELS_PER_LAYER, DENSE_KERNELS_PER_LAYER,  # noqa: F401 (re-export)
                                     GRAPH_LAUNCH_S, KERNEL_LAUNCH_S, KERNELS_PER_STEP, MODES, VLLM_V0, HostCosts,
                                     launch_times_s)


@dataclass(frozen=True, slots=True)
class StepPricing:
    """What the engine does on the host for a step (resolved from its policy's rule and the user's knobs)."""

    overlap: bool = False  # CPU work of the next step hides behind this step's GPU work
    decode_sizes: tuple[int, ...] = ()  # batch sizes with a FULL graph for decode-only steps, ascending; () = none
    pads_decode: bool = True  # a decode batch between captured sizes runs the next size up (else eager)
    piecewise_sizes: tuple[int, ...] = ()  # token counts with PIECEWISE graphs for every other step; () = eager
    # a decode-only step beyond the FULL sizes may run PIECEWISE (vLLM); SGLang's piecewise runner takes extend
    # batches only, so its large decode batches run eager
    piecewise_decodes: bool = True
    rule: str = "eager, no overlap"  # which engine behaviour this is, for the docs and the UI
    host: HostCosts = VLLM_V0  # the engine's scheduling and input-preparation costs (cost/host_time.py)

    def __post_init__(self) -> None:
        for name in ("decode_sizes", "piecewise_sizes"):
            sizes = getattr(self, name)
            if list(sizes) != sorted(set(sizes)) or any(s < 1 for s in sizes):
                raise ValueError(f"{name} must be distinct positive sizes in ascending order, got {sizes!r}")


EAGER = StepPricing()


def _graph_size(sizes: tuple[int, ...], n: int, pads: bool) -> int | None:
    """The captured size a batch of n runs as, or None when it runs eagerly."""
    i = bisect_left(sizes, n)
    if i == len(sizes) or (sizes[i] != n and not pads):
        return None
    return sizes[i]


def step_mode(pricing: StepPricing, num_tokens: int, num_seqs: int) -> tuple[str, int]:
    """(mode, tokens the dense kernels compute) of a step; decode-only means one token per sequence, as vLLM's
    uniform-decode test (max_query_len == 1) and profiled.ProfiledStepCoster.locate read it."""
    if num_tokens == num_seqs and pricing.decode_sizes:
        size = _graph_size(pricing.decode_sizes, num_seqs, pricing.pads_decode)
        if size is not None:
            return "full", size
    if pricing.piecewise_sizes and (pricing.piecewise_decodes or num_tokens != num_seqs):
        size = _graph_size(pricing.piecewise_sizes, num_tokens, True)  # vLLM pads piecewise runs too
        if size is not None:
            return "piecewise", size
    return "eager", num_tokens


class HostModel:
    """The host seconds of a step: (scheduling, input preparation, launches), before any overlap."""

    __slots__ = ("host", "flat_s", "launch_s")

    def __init__(self, model: ModelSpec, cost: CostConfig, pricing: StepPricing):
        self.host, self.flat_s = pricing.host, cost.step_overhead_s
        launches = launch_times_s(model.num_layers)
        self.launch_s = {mode: 0.0 for mode in MODES} if self.flat_s is not None else launches

    def terms(self, mode: str, num_tokens: int, num_seqs: int, num_active: int) -> tuple[float, float, float]:
        """(host_sched_s, host_prep_s, launch_s) of a step in `mode` with `num_active` requests held."""
        if self.flat_s is not None:
            return self.flat_s, 0.0, 0.0
        return self.host.sched_s(num_active), self.host.prep_s(num_tokens, num_seqs), self.launch_s[mode]

    def work_launch(self, mode: str, num_tokens: int, num_seqs: int, num_active: int) -> tuple[float, float]:
        """(scheduling + preparation, launches): what exposed_s takes."""
        sched_s, prep_s, launch_s = self.terms(mode, num_tokens, num_seqs, num_active)
        return sched_s + prep_s, launch_s


def exposed_s(work_s: float, launch_s: float, gpu_s: float, overlap: bool) -> float:
    """Host time the step adds to the clock: all of it, or with overlap the launches and what of the CPU work the
    GPU's time does not cover."""
    if not overlap:
        return launch_s + work_s
    return launch_s + (work_s - gpu_s if work_s > gpu_s else 0.0)
