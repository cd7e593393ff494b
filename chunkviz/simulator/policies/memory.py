"""Each engine's KV pool from its own memory rule: the bytes per GPU its KV cache gets, before they are cut into
blocks (simulator/kv/setup.py).

Invariant: a rule reads only its own engine's knob (CacheConfig.gpu_memory_utilization for vLLM and the engines
modelled on it, mem_fraction_static for SGLang, free_gpu_memory_fraction for TensorRT-LLM) and refuses the others
with one line naming the flag; the pool never exceeds the GPU's memory less the weights per GPU. GPU memory is the
device's total as the driver reports it (cost/catalogue.py: an "80 GB" H100 SXM is 81,559 MiB).

  vLLM V1    gpu_memory_utilization · memory − weights       (vllm/config/cache.py CacheConfig.gpu_memory_utilization
             = 0.92, main @002f10e: the fraction of the GPU for weights, activations and the KV cache; vLLM also
             subtracts the profiled activation peak, not modelled here)
  vLLM V0    the same rule at V0's 0.90 (vllm/engine/arg_utils.py EngineArgs.gpu_memory_utilization = 0.90); the
             research systems (Sarathi-Serve is a fork of vLLM's V0 engine; Orca, static batching) keep it
  SGLang     mem_fraction_static · memory − weights          (python/sglang/srt/server_args.py
             _handle_gpu_memory_settings: mem_fraction_static = round((gpu_mem − reserved) / gpu_mem, 3), gpu_mem in
             MiB, reserved = 512 + max(chunked_prefill_size, 2048) · 1.5 + cuda_graph_max_bs · 2 + tp · pp / 8 · 1024
             MiB, at least 10 GiB on GPUs above 60 GiB; ≈ 0.835 on an H100: the weights and the KV pool share it)
  TRT-LLM    free_gpu_memory_fraction · (memory − weights − activations)   (tensorrt_llm/llmapi/llm_args.py
             KvCacheConfig.free_gpu_memory_fraction = 0.9 of the memory free after the model is loaded and a forward
             of max_num_tokens has run; the activations of that forward are estimated below)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from chunkviz.config import SimConfig
from chunkviz.errors import InputError
from chunkviz.simulator.policies import defaults as d
from chunkviz.simulator.policies import pricing as pr

MIB = 1024 ** 2
GIB = 1024 ** 3
VLLM_V1_GPU_MEMORY_UTILIZATION = 0.92
VLLM_V0_GPU_MEMORY_UTILIZATION = 0.90
TRTLLM_FREE_GPU_MEMORY_FRACTION = 0.9
_FLAGS = {"gpu_memory_utilization": "--gpu-memory-utilization", "mem_fraction_static": "--mem-fraction-static",
          "free_gpu_memory_fraction": "--free-gpu-memory-fraction"}


@dataclass(frozen=True, slots=True)
class KvPool:
    """The KV pool of one GPU and how it was sized."""

    pool_bytes: int  # bytes per GPU for the KV cache, whole bytes as the engines keep them (each rule takes int())
    knob: str  # the engine's knob that sized it
    fraction: float  # its value (the engine's default or the user's)
    rule: str  # the formula, for the notes


PoolRule = Callable[[SimConfig], KvPool]


def _own_knob(config: SimConfig, own: str, engine: str) -> float | None:
    """The engine's own knob (None: its default); another engine's knob set is refused."""
    for knob, flag in _FLAGS.items():
        if knob != own and getattr(config.cache, knob) is not None:
            raise InputError(f"{flag} is not a knob of {engine}; it sizes its KV pool with {_FLAGS[own]}")
    return getattr(config.cache, own)


def _weights_per_gpu(config: SimConfig) -> float:
    return config.model.weight_bytes / config.tensor_parallel


def vllm_pool(default_utilization: float, engine: str) -> PoolRule:
    """vLLM's rule at the engine's default utilization."""
    def rule(config: SimConfig) -> KvPool:
        util = _own_knob(config, "gpu_memory_utilization", engine)
        util = default_utilization if util is None else util
        # vLLM gpu_worker.py determine_available_memory returns an int of bytes
        return KvPool(int(config.gpu.memory_bytes * util - _weights_per_gpu(config)), "gpu_memory_utilization", util,
                      "gpu_memory_utilization · memory − weights")
    return rule


VLLM_V1_POOL = vllm_pool(VLLM_V1_GPU_MEMORY_UTILIZATION, "vLLM V1")
VLLM_V0_POOL = vllm_pool(VLLM_V0_GPU_MEMORY_UTILIZATION, "vLLM V0 and the engines modelled on it")


def sglang_mem_fraction_static(config: SimConfig) -> float:
    """SGLang's default mem_fraction_static (module docstring), pipeline parallel 1, no speculative decoding or DP
    attention."""
    gpu_mib = config.gpu.memory_bytes / MIB
    chunk = config.scheduler.max_num_batched_tokens
    if chunk is None:
        chunk = next((size for limit, size in d.SGLANG_CHUNK_BY_MEMORY_MIB if gpu_mib < limit),
                     d.SGLANG_CHUNK_LARGEST)
    graph_bs = config.cost.cuda_graph_max_bs
    if graph_bs is None:
        graph_bs = pr.sglang_default_max_bs(config.gpu.memory_bytes, config.tensor_parallel)
    reserved_mib = 512 + max(chunk, 2048) * 1.5 + graph_bs * 2 + config.tensor_parallel / 8 * 1024
    if gpu_mib > 60 * 1024:
        reserved_mib = max(reserved_mib, 10 * 1024)
    return round((gpu_mib - reserved_mib) / gpu_mib, 3)


def sglang_pool(config: SimConfig) -> KvPool:
    frac = _own_knob(config, "mem_fraction_static", "SGLang")
    frac = sglang_mem_fraction_static(config) if frac is None else frac
    return KvPool(int(config.gpu.memory_bytes * frac - _weights_per_gpu(config)), "mem_fraction_static", frac,
                  "mem_fraction_static · memory − weights")


def activation_bytes(config: SimConfig, num_tokens: int) -> float:
    """Peak activations of a forward of `num_tokens` tokens per GPU (assumption: the MLP's gate and up outputs plus
    the residual stream and the attention output, 2 · intermediate + 2 · hidden values per token, in the model's
    dtype; the weights' workspace and the CUDA context are not counted)."""
    m = config.model
    return num_tokens * (2 * m.intermediate_size + 2 * m.hidden_size) * m.bytes_per_param / config.tensor_parallel


def trtllm_pool(config: SimConfig) -> KvPool:
    frac = _own_knob(config, "free_gpu_memory_fraction", "TensorRT-LLM")
    frac = TRTLLM_FREE_GPU_MEMORY_FRACTION if frac is None else frac
    tokens = config.scheduler.max_num_batched_tokens
    tokens = d.TRTLLM_MAX_NUM_TOKENS if tokens is None else tokens
    free = config.gpu.memory_bytes - _weights_per_gpu(config) - activation_bytes(config, tokens)
    return KvPool(int(frac * free), "free_gpu_memory_fraction", frac,
                  "free_gpu_memory_fraction · (memory − weights − activations of max_num_tokens)")
