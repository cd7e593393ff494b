"""Per-engine, per-GPU defaults of the two batch knobs, as each engine picks them when the user gives none.

Invariant: a function here is pure; it returns (max_num_batched_tokens, max_num_seqs) for the knobs left None and
echoes the ones given. Sources: vLLM vllm/engine/arg_utils.py EngineArgs.get_batch_defaults / _set_default_args
(OPENAI_API_SERVER context, i.e. `vllm serve`); SGLang python/sglang/srt/server_args.py
_handle_gpu_memory_settings and model_runner/scheduler max_running_requests; TensorRT-LLM llmapi BuildConfig.
"""

from __future__ import annotations

from dataclasses import dataclass

from chunkviz.config import GpuSpec, ModelSpec

GIB = 1024 ** 3
MIB = 1024 ** 2
# vLLM DEFAULT_MAX_NUM_BATCHED_TOKENS (vllm/config/scheduler.py), V0's floor when chunked prefill is off.
VLLM_FALLBACK_TOKENS = 2048
# SGLang server_args._handle_gpu_memory_settings: chunked_prefill_size by GPU memory (MiB thresholds).
SGLANG_CHUNK_BY_MEMORY_MIB = ((20 * 1024, 2048), (35 * 1024, 2048), (60 * 1024, 4096), (90 * 1024, 8192),
                              (160 * 1024, 8192))
SGLANG_CHUNK_LARGEST = 16384  # B200, MI300
# TensorRT-LLM BuildConfig defaults: max_num_tokens 8192, max_batch_size 2048.
TRTLLM_MAX_NUM_TOKENS = 8192
TRTLLM_MAX_BATCH_SIZE = 2048
# Sarathi-Serve sarathi/config/config.py (microsoft/sarathi-serve, commit 13f16cf4): BaseSchedulerConfig
# max_num_seqs 128; SarathiSchedulerConfig chunk_size 512, and get_max_num_batched_tokens returns chunk_size
# ("Sarathi never schedules more than chunk_size tokens in one iteration").
SARATHI_MAX_NUM_SEQS = 128
SARATHI_CHUNK_SIZE = 512


@dataclass(frozen=True, slots=True)
class DefaultsQuery:
    gpu: GpuSpec
    model: ModelSpec
    chunks_prompts: bool
    kv_capacity_tokens: int  # tokens the KV cache holds (SGLang sizes max_running_requests from it)
    max_num_batched_tokens: int | None  # as given by the user
    max_num_seqs: int | None


def vllm_v1_defaults(q: DefaultsQuery) -> tuple[int, int]:
    """EngineArgs.get_batch_defaults: GPUs with >= 70 GiB that are not A100 get 8192 tokens / 1024 seqs under
    `vllm serve`, others 2048 / 256; without chunked prefill the budget is max(max_model_len, that table value)
    (EngineArgs._set_default_args: "If max_model_len is too short, use the default for higher throughput",
    vllm-project/vllm vllm/engine/arg_utils.py, commit 99d7eb5d); then max_num_seqs = min(default,
    max_num_batched_tokens)."""
    big = q.gpu.memory_bytes >= 70 * GIB and "a100" not in q.gpu.gpu_id.lower()
    tokens = q.max_num_batched_tokens
    if tokens is None:
        table_tokens = 8192 if big else 2048
        tokens = table_tokens if q.chunks_prompts else max(q.model.max_model_len_tokens, table_tokens)
    seqs = q.max_num_seqs if q.max_num_seqs is not None else min(1024 if big else 256, tokens)
    return tokens, seqs


def vllm_v0_defaults(q: DefaultsQuery) -> tuple[int, int]:
    """vLLM V0 SchedulerConfig: without chunked prefill the budget is max(max_model_len, 2048); max_num_seqs 256."""
    tokens = q.max_num_batched_tokens
    if tokens is None:
        tokens = max(q.model.max_model_len_tokens, VLLM_FALLBACK_TOKENS) if not q.chunks_prompts \
            else VLLM_FALLBACK_TOKENS
    return tokens, q.max_num_seqs if q.max_num_seqs is not None else 256


def sglang_defaults(q: DefaultsQuery) -> tuple[int, int]:
    """chunked_prefill_size by GPU memory; max_running_requests = min(max_total_num_tokens // 2, pool size), the
    pool being min(max(total / context_len * 512, 2048), 4096) requests (ModelRunner.init_memory_pool)."""
    tokens = q.max_num_batched_tokens
    if tokens is None:
        mib = q.gpu.memory_bytes / MIB
        tokens = next((size for limit, size in SGLANG_CHUNK_BY_MEMORY_MIB if mib < limit), SGLANG_CHUNK_LARGEST)
    seqs = q.max_num_seqs
    if seqs is None:
        total = q.kv_capacity_tokens
        pool = min(max(int(total / q.model.max_model_len_tokens * 512), 2048), 4096)
        seqs = max(1, min(total // 2, pool))
    return tokens, seqs


def trtllm_defaults(q: DefaultsQuery) -> tuple[int, int]:
    tokens = q.max_num_batched_tokens if q.max_num_batched_tokens is not None else TRTLLM_MAX_NUM_TOKENS
    return tokens, q.max_num_seqs if q.max_num_seqs is not None else TRTLLM_MAX_BATCH_SIZE


def sarathi_defaults(q: DefaultsQuery) -> tuple[int, int]:
    """Sarathi-Serve's own defaults (SarathiSchedulerConfig): the budget is chunk_size 512, max_num_seqs 128."""
    tokens = q.max_num_batched_tokens if q.max_num_batched_tokens is not None else SARATHI_CHUNK_SIZE
    return tokens, q.max_num_seqs if q.max_num_seqs is not None else SARATHI_MAX_NUM_SEQS


def orca_defaults(q: DefaultsQuery) -> tuple[int, int]:
    """Sarathi-Serve OrcaSchedulerConfig.get_max_num_batched_tokens: max_num_seqs * max_model_len (no token budget
    of its own: whole prompts of every admitted request fit); max_num_seqs 128 (BaseSchedulerConfig)."""
    seqs = q.max_num_seqs if q.max_num_seqs is not None else SARATHI_MAX_NUM_SEQS
    tokens = q.max_num_batched_tokens
    if tokens is None:
        tokens = seqs * q.model.max_model_len_tokens
    return tokens, seqs
