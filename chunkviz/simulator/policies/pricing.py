"""Each engine's step pricing as shipped: which steps it replays as CUDA graphs (and at which sizes) and whether
it overlaps the next step's CPU work with this step's GPU work; a policy's registry entry names its rule.

Invariant: a rule is a pure function of the GPU, the tensor-parallel degree, the resolved max_num_seqs and the
largest captured size asked for; step_pricing applies the user's knobs on top (each engine's own switch names), and
--enforce-eager with overlap off runs every step eagerly without overlap; the host's CPU costs per step are the
policy's entry's (cost/host_time.py). Sources:
  vLLM V1   vllm/config/scheduler.py SchedulerConfig.async_scheduling (None → True in vllm/config/vllm.py
            VllmConfig.__post_init__ unless pooling, pipeline parallel or some speculative methods; commit 1f8758d);
            cudagraph_mode FULL_AND_PIECEWISE (docs/design/cuda_graphs.md: FULL graphs for uniform-decode batches,
            PIECEWISE for the rest, both only up to max_cudagraph_capture_size and padded to a captured size);
            capture sizes [1, 2, 4] + range(8, 256, 8) + range(256, max + 1, 16), max = min(2·max_num_seqs, 512)
            (CompilationConfig / VllmConfig._set_cudagraph_sizes).
  vLLM V0   vllm/worker/model_runner.py _BATCH_SIZES_TO_CAPTURE = [1, 2, 4] + 8·(1..32), decode-only, padded,
            capped by max_num_seqs; prefills eager; no async scheduling (V0's async output processing overlapped
            detokenisation only and is not modelled).
  SGLang    python/sglang/srt/server_args.py: disable_overlap_schedule=False; cuda_graph_max_bs by GPU memory
            (_handle_gpu_memory_settings: 35–60 GB 32 / 160 at tp ≥ 4, 60–160 GB 256 / 512, larger 512, else 160);
            cuda_graph_bs (_generate_cuda_graph_batch_sizes) [1, 2, 4, 8, 12] + range(16, 257, 8) + range(272, 512,
            16) + range(512, max + 1, 32); disable_cuda_graph_padding=False: FULL graphs for decode batches. Since
            0.5.10 (PR #16331) extend batches (prefill and mixed-chunk) run as piecewise CUDA graphs by default
            (disable_piecewise_cuda_graph=False) up to piecewise_cuda_graph_max_tokens = chunked_prefill_size (PR
            #15927; 2048 for MLA backends, not modelled: no MLA model here), at the sizes of
            _generate_piecewise_cuda_graph_tokens: range(4, 33, 4) + range(48, 257, 16) + range(288, 513, 32) +
            range(576, 1025, 64) + range(1280, 4097, 256) + range(4608, max + 1, 512), padded up; decode batches
            beyond cuda_graph_max_bs stay eager (the piecewise runner takes extend batches only).
  TRT-LLM   tensorrt_llm/llmapi/llm_args.py: disable_overlap_scheduler=False; cuda_graph_config=CudaGraphConfig()
            (generation-only batches; max_batch_size 128; enable_padding=False, so batch_sizes = 1..31, 32, 64, 128
            and any other size runs eager).
  Orca, Sarathi-Serve, static batching: eager and without overlap, as today (the research systems' schedulers are
  modelled, not their executors; neither paper's prototype is described with CUDA graphs or an overlap scheduler).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from chunkviz.config import SimConfig
from chunkviz.cost.host_time import HostCosts
from chunkviz.cost.step_pricing import StepPricing

GIB = 1024 ** 3


@dataclass(frozen=True, slots=True)
class GraphQuery:
    memory_bytes: float  # the GPU's memory (SGLang sizes cuda_graph_max_bs from it)
    tensor_parallel: int
    max_num_seqs: int  # resolved
    max_bs: int | None  # the user's --cuda-graph-max-bs, None for the engine's default
    max_num_batched_tokens: int | None = None  # resolved (SGLang's chunked_prefill_size caps its piecewise graphs)


@dataclass(frozen=True, slots=True)
class Graphs:
    decode_sizes: tuple[int, ...]
    pads_decode: bool
    piecewise_sizes: tuple[int, ...]
    rule: str
    piecewise_decodes: bool = True  # StepPricing.piecewise_decodes


GraphRule = Callable[[GraphQuery], Graphs]


def _up_to(sizes: list[int], largest: int) -> tuple[int, ...]:
    return tuple(s for s in sizes if s <= largest) or (largest,)


def vllm_v1_graphs(q: GraphQuery) -> Graphs:
    largest = q.max_bs if q.max_bs is not None else min(2 * q.max_num_seqs, 512)
    sizes = _up_to([1, 2, 4] + list(range(8, 256, 8)) + list(range(256, max(largest, 256) + 1, 16)), largest)
    return Graphs(sizes, True, sizes, f"FULL_AND_PIECEWISE graphs up to {sizes[-1]}")


def vllm_v0_graphs(q: GraphQuery) -> Graphs:
    largest = q.max_bs if q.max_bs is not None else min(q.max_num_seqs, 256)
    sizes = _up_to([1, 2, 4] + [8 * i for i in range(1, 33)] + list(range(264, largest + 1, 8)), largest)
    return Graphs(sizes, True, (), f"decode graphs up to {sizes[-1]}, prefills eager")


def sglang_default_max_bs(memory_bytes: float, tensor_parallel: int) -> int:
    big_tp = tensor_parallel >= 4
    if 35 * GIB <= memory_bytes < 60 * GIB:
        return 160 if big_tp else 32
    if 60 * GIB <= memory_bytes < 160 * GIB:
        return 512 if big_tp else 256
    return 512 if memory_bytes >= 160 * GIB else 160


def sglang_piecewise_tokens(max_tokens: int) -> tuple[int, ...]:
    """server_args.py ServerArgs._generate_piecewise_cuda_graph_tokens: the extend batch sizes (tokens) captured."""
    sizes = (list(range(4, 33, 4)) + list(range(48, 257, 16)) + list(range(288, 513, 32))
             + list(range(576, 1025, 64)) + list(range(1280, 4097, 256)) + list(range(4608, max_tokens + 1, 512)))
    return tuple(s for s in sizes if s <= max_tokens)


def sglang_graphs(q: GraphQuery) -> Graphs:
    largest = q.max_bs if q.max_bs is not None else sglang_default_max_bs(q.memory_bytes, q.tensor_parallel)
    sizes = _up_to([1, 2, 4, 8, 12] + list(range(16, 257, 8)) + list(range(272, 512, 16))
                   + list(range(512, largest + 1, 32)), largest)
    piecewise = sglang_piecewise_tokens(q.max_num_batched_tokens) if q.max_num_batched_tokens else ()
    extend = f"extend batches piecewise up to {piecewise[-1]} tokens" if piecewise else "extend batches eager"
    return Graphs(sizes, True, piecewise, f"decode graphs up to {sizes[-1]} (padded), {extend}",
                  piecewise_decodes=False)


def trtllm_graphs(q: GraphQuery) -> Graphs:
    largest = q.max_bs if q.max_bs is not None else 128
    powers = [2 ** i for i in range(8, max(8, (largest - 1).bit_length()))]
    sizes = sorted(set(_up_to(list(range(1, 33)) + [64, 128] + powers, largest)) | {largest})
    return Graphs(tuple(sizes), False, (), f"generation-only graphs at {len(sizes)} sizes up to {largest}, "
                                           f"no padding, context batches eager")


def step_pricing(config: SimConfig, max_num_seqs: int, overlap_default: bool, graphs: GraphRule | None,
                 engine: str, host: HostCosts, max_num_batched_tokens: int | None = None) -> StepPricing:
    """The engine's pricing as shipped with the user's switches applied; a switch the engine lacks is refused
    with ValueError (the caller turns it into a one-line message)."""
    cost = config.cost
    if cost.overlap_scheduling and not overlap_default:
        raise ValueError(f"overlap scheduling (--async-scheduling) is not available: {engine} has no overlap "
                         f"scheduler; leave it unset")
    if cost.cuda_graph_max_bs is not None and graphs is None:
        raise ValueError(f"--cuda-graph-max-bs does not apply: {engine} runs every step eagerly; leave it unset")
    overlap = overlap_default if cost.overlap_scheduling is None else cost.overlap_scheduling
    if graphs is None or cost.enforce_eager:
        return StepPricing(overlap=overlap, rule=f"eager, {'overlap scheduling' if overlap else 'no overlap'}",
                           host=host)
    g = graphs(GraphQuery(config.gpu.memory_bytes, config.tensor_parallel, max_num_seqs, cost.cuda_graph_max_bs,
                          max_num_batched_tokens))
    return StepPricing(overlap=overlap, decode_sizes=g.decode_sizes, pads_decode=g.pads_decode,
                       piecewise_sizes=g.piecewise_sizes, piecewise_decodes=g.piecewise_decodes,
                       rule=f"{g.rule}, {'overlap scheduling' if overlap else 'no overlap'}", host=host)
