"""How an engine runs a step on the host: its CPU time (scheduling, input preparation, kernel launches) and whether
that time overlaps the GPU's work, by CUDA-graph mode and overlap scheduling.

Invariant: with EAGER (no graphs, no overlap) a step's CPU time is CostConfig.step_overhead_s exactly, so the
price is today's (GPU time + step_overhead_s) bit for bit; graphs only remove launch time (the CPU time never
grows when graphs are on); overlap only hides CPU time behind the same step's GPU time, never more than all of it.

The model (the sources and the assumptions are in the constants' comments):
  cpu(eager)     = step_overhead_s                       (costmodel.md §1.4: launches, sampling, scheduling 1–3 ms)
  launches(eager) = min(step_overhead_s, kernels · KERNEL_LAUNCH_S)  — the part of it that is kernel launches
  host           = step_overhead_s − launches(eager)     — scheduling, input preparation, sampling bookkeeping
  cpu(full)      = host + GRAPH_LAUNCH_S                 — one graph replays every kernel of the step
  cpu(piecewise) = host + attention launches + (layers + 1) · GRAPH_LAUNCH_S — graphs between the attention kernels
  exposed        = cpu                     without overlap (the GPU waits for the host every step)
                 = max(0, cpu − gpu)       with overlap (step k+1's host work runs during step k's GPU work)
A graph is captured for given sizes only: a step between sizes runs the next captured size (padding: the dense
kernels compute the padded rows) or, where the engine does not pad, eagerly; a step above the largest size is eager.
Overlap is priced in steady state: the first step after an idle engine is charged as if a GPU step had preceded it.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass

from chunkviz.config import CostConfig, ModelSpec

# CPU cost of one eager kernel launch: cudaLaunchKernel takes about 4–6 µs of host time (measured on an RTX 5070 Ti,
# susun-blog.com "pegainfer (3): From Launch Overhead to CUDA Graph"; ~5 µs on A100 per learnaivisually.com "CUDA
# Graphs for LLM Decode"). PyTorch's own dispatch adds more per op, so this is a low estimate (assumption).
KERNEL_LAUNCH_S = 5e-6
# CPU cost of one cudaGraphLaunch: one driver call for the whole recorded sequence; taken as two kernel launches
# (assumption; no measurement in costmodel.md).
GRAPH_LAUNCH_S = 10e-6
# Kernels of one decoder layer: the nine dense kernels of cost/kernels.py (vidur's GPTBlock) and two for attention
# (vLLM's reshape_and_cache and the attention kernel itself).
DENSE_KERNELS_PER_LAYER = 9
ATTENTION_KERNELS_PER_LAYER = 2
# Per step outside the layers: embedding, final norm, lm_head, logits processing and sampling (assumption).
KERNELS_PER_STEP = 6

MODES: tuple[str, ...] = ("eager", "piecewise", "full")


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


def cpu_times_s(model: ModelSpec, cost: CostConfig) -> dict[str, float]:
    """Host seconds of one step in each mode (see the module docstring); eager is step_overhead_s itself."""
    layers = model.num_layers
    kernels = layers * (DENSE_KERNELS_PER_LAYER + ATTENTION_KERNELS_PER_LAYER) + KERNELS_PER_STEP
    eager_s = cost.step_overhead_s
    launches_s = min(eager_s, kernels * KERNEL_LAUNCH_S)
    host_s = eager_s - launches_s
    attention_s = min(launches_s, layers * ATTENTION_KERNELS_PER_LAYER * KERNEL_LAUNCH_S)
    piecewise_s = min(eager_s, host_s + attention_s + (layers + 1) * GRAPH_LAUNCH_S)
    full_s = min(eager_s, host_s + GRAPH_LAUNCH_S)
    return {"eager": eager_s, "piecewise": piecewise_s, "full": full_s}


def exposed_s(cpu_s: float, gpu_s: float, overlap: bool) -> float:
    """Host time the step adds to the clock: all of it, or with overlap what the GPU's work does not cover."""
    if not overlap:
        return cpu_s
    return cpu_s - gpu_s if cpu_s > gpu_s else 0.0
