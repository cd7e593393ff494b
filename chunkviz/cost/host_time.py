"""Host (CPU) time of one engine step: scheduling, input preparation and kernel launches, each engine's constants
from a cited measurement or a named assumption.

Invariant: every term is positive for every engine, model depth and step (a fixed part per step), scheduling grows
with the requests the scheduler holds (running + waiting), input preparation with the step's tokens and sequences,
and launches depend on the model's depth and the step's CUDA-graph mode only; none of them depends on the GPU.

    sched_s  = sched_fixed_s + sched_per_request_s · (running + waiting)
    prep_s   = prep_fixed_s + prep_per_seq_s · sequences in the step + prep_per_token_s · tokens in the step
    launch_s = eager:     kernels · KERNEL_LAUNCH_S                   (every kernel launched one by one)
               piecewise: attention kernels · KERNEL_LAUNCH_S + (layers + 1) · GRAPH_LAUNCH_S
               full:      GRAPH_LAUNCH_S                              (one replay of the recorded step)

Anchors (the arithmetic is in the constants' comments; "GPU time" is chunkviz's roofline of that step, which moves
when the roofline is refitted — the constants are fixed seconds, not re-derived):
  - vLLM's performance blog (2024-09-05, v0.5.3, Llama-3-8B on one H100, ShareGPT): scheduling and input
    preparation took 29% of the total execution time, the GPU's work 38% (the API server, 33%, ran in the same
    process and is not modelled): CPU work = 29/38 of the GPU time at the benchmark's batch.
  - TensorRT-LLM `tensorrt_llm/_torch/pyexecutor/scheduler/design.md` §5: `schedule_request` of Llama-8B on one
    B200 took 2.89 ms per iteration compiled with mypyc (10.5 ms in Python, 17.4 ms on main) over 411 iterations.
  - Eager vs CUDA graph, Llama-3.1-8B decode on H100 SXM: 8.4 ms eager, 5.1 ms graphed (third-party benchmark,
    costmodel.md "Quantities the engines ship"): an eager 32-layer step launches 3.3 ms more than one graph replay.
"""

from __future__ import annotations

from dataclasses import dataclass

# Kernels of one decoder layer: the nine dense kernels of cost/kernels.py (vidur's GPTBlock) and two for attention
# (vLLM's reshape_and_cache and the attention kernel itself).
DENSE_KERNELS_PER_LAYER = 9
ATTENTION_KERNELS_PER_LAYER = 2
# Per step outside the layers: embedding, final norm, lm_head, logits processing and sampling (assumption).
KERNELS_PER_STEP = 6
# CPU cost of one cudaGraphLaunch: one driver call for the whole recorded sequence, ~3–10 µs whatever the kernel
# count (costmodel.md); the top of that range.
GRAPH_LAUNCH_S = 10e-6
# CPU cost of one eager kernel launch, PyTorch dispatch included, from the 3.3 ms eager penalty of an 8B decode step:
# a 32-layer step launches 32 · 11 + 6 = 358 kernels eagerly instead of one graph, so one launch is
# (3.3 ms + 10 µs) / 358 ≈ 9.25 µs (within the 5–20 µs measured per launch with PyTorch's dispatch).
EAGER_PENALTY_8B_DECODE_S = 3.3e-3
_KERNELS_32_LAYERS = 32 * (DENSE_KERNELS_PER_LAYER + ATTENTION_KERNELS_PER_LAYER) + KERNELS_PER_STEP
KERNEL_LAUNCH_S = (EAGER_PENALTY_8B_DECODE_S + GRAPH_LAUNCH_S) / _KERNELS_32_LAYERS

MODES: tuple[str, ...] = ("eager", "piecewise", "full")


@dataclass(frozen=True, slots=True)
class HostCosts:
    """One engine's CPU seconds per step, as linear terms (see the module docstring)."""

    sched_fixed_s: float
    sched_per_request_s: float  # per running or waiting request the scheduler holds
    prep_fixed_s: float
    prep_per_seq_s: float  # per sequence in the step (its block table, positions, sampling parameters)
    prep_per_token_s: float  # per token in the step (input ids, positions, slot mapping)
    source: str  # the measurement or assumption behind the numbers

    def __post_init__(self) -> None:
        values = (self.sched_fixed_s, self.sched_per_request_s, self.prep_fixed_s, self.prep_per_seq_s,
                  self.prep_per_token_s)
        if self.sched_fixed_s <= 0 or self.prep_fixed_s <= 0 or any(v < 0 for v in values):
            raise ValueError(f"host costs must be positive fixed parts and non-negative slopes, got {values!r}")

    def sched_s(self, num_active: int) -> float:
        return self.sched_fixed_s + self.sched_per_request_s * num_active

    def prep_s(self, num_tokens: int, num_seqs: int) -> float:
        return self.prep_fixed_s + self.prep_per_seq_s * num_seqs + self.prep_per_token_s * num_tokens


# Fixed parts (assumption): one pass of a Python engine loop with a few host-to-device copies, a quarter of a
# millisecond each for the scheduler and for input preparation; per token (assumption): 0.2 µs, a few Python list
# or numpy writes per token (input id, position, slot).
_FIXED_S = 0.25e-3
_PER_TOKEN_S = 0.2e-6
# vLLM V0 at the blog's operating point: a saturated decode batch of 256 (V0's max_num_seqs; the blog does not state
# the batch, an assumption) with a mean context of 315 tokens (ShareGPT in vLLM's benchmark: ~220 prompt + half of
# ~190 output tokens). chunkviz's roofline gives that step 13.52 ms of GPU time on H100 SXM, so the CPU work is
# 29/38 · 13.52 = 10.32 ms; less the fixed parts (0.5 ms) and the tokens (256 · 0.2 µs) that leaves 9.77 ms for 256
# requests, split evenly between scheduling and preparation (the blog gives only their sum): 19.1 µs each.
_V0_PER_REQUEST_S = (29 / 38 * 13.52e-3 - 2 * _FIXED_S - 256 * _PER_TOKEN_S) / 256 / 2
VLLM_V0 = HostCosts(_FIXED_S, _V0_PER_REQUEST_S, _FIXED_S, _V0_PER_REQUEST_S, _PER_TOKEN_S,
                    "vLLM blog 2024-09-05: scheduling + input preparation 29% vs GPU 38% (Llama-3-8B, 1×H100)")
# vLLM V1 (scheduler, persistent batch, numpy input preparation): no per-step breakdown is published; its alpha blog
# (2025-01-27) reports up to 1.7× V0's throughput and aims at "near-zero CPU overhead". Assumption: a third of V0's
# per-request and per-token work (V1 then runs the blog's operating point 1.4× faster than V0 without overlap).
_V1_PER_REQUEST_S = _V0_PER_REQUEST_S / 3
VLLM_V1 = HostCosts(_FIXED_S, _V1_PER_REQUEST_S, _FIXED_S, _V1_PER_REQUEST_S, _PER_TOKEN_S / 3,
                    "assumption: a third of vLLM V0's per-request work (V1 alpha blog: up to 1.7× V0's throughput)")
# SGLang's Python scheduler and ForwardBatch preparation: no per-step breakdown published (the v0.4 blog shows the
# overlap hiding it, not its size). Assumption: vLLM V1's.
SGLANG = HostCosts(_FIXED_S, _V1_PER_REQUEST_S, _FIXED_S, _V1_PER_REQUEST_S, _PER_TOKEN_S / 3,
                   "assumption: as vLLM V1 (no published breakdown of SGLang's scheduler)")
# TensorRT-LLM's PyTorch executor: scheduling from design.md's 2.89 ms per iteration (the compiled scheduler; the
# default C++ SimpleScheduler is taken to cost the same), read at a batch of 256 (assumption: the experiment's batch
# is not stated): (2.89 − 0.25) ms / 256 = 10.3 µs per request. Input preparation: assumption, as vLLM V1's.
TRTLLM = HostCosts(_FIXED_S, (2.89e-3 - _FIXED_S) / 256, _FIXED_S, _V1_PER_REQUEST_S, _PER_TOKEN_S / 3,
                   "TensorRT-LLM scheduler/design.md: 2.89 ms per iteration (Llama-8B, B200); preparation as vLLM V1")


def launch_times_s(num_layers: int) -> dict[str, float]:
    """CPU seconds of kernel launches for a step of a `num_layers`-deep model in each CUDA-graph mode."""
    kernels = num_layers * (DENSE_KERNELS_PER_LAYER + ATTENTION_KERNELS_PER_LAYER) + KERNELS_PER_STEP
    attention_s = num_layers * ATTENTION_KERNELS_PER_LAYER * KERNEL_LAUNCH_S
    return {"eager": kernels * KERNEL_LAUNCH_S,
            "piecewise": attention_s + (num_layers + 1) * GRAPH_LAUNCH_S,
            "full": GRAPH_LAUNCH_S}
