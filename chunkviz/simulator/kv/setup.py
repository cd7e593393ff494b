"""How many KV blocks a GPU holds, and which KV manager a run needs.

Invariant: blocks · block_size · KV bytes per token (per GPU) <= the engine's KV pool per GPU
(simulator/policies/memory.py: each engine's own memory rule), unless the user fixes num_gpu_blocks.
"""

from __future__ import annotations

from typing import Callable, Sequence

from chunkviz.simulator.kv.blocks import BlockManager
from chunkviz.config import MAX_NUM_GPU_BLOCKS, SimConfig
from chunkviz.errors import InputError
from chunkviz.simulator.kv.counting import CountingKvManager
from chunkviz.simulator.kv.lean import LeanPrefixCache
from chunkviz.simulator.kv.manager import KvManager
from chunkviz.request import Request

MAX_GRID_BLOCKS = 4096  # snapshots list individual blocks only up to this cache size (a readable grid)


def kv_bytes_per_token_per_gpu(config: SimConfig) -> float:
    # KV heads split across GPUs; with more GPUs than KV heads the heads are replicated (as vLLM does).
    shards = min(config.tensor_parallel, config.model.num_kv_heads)
    return config.model.kv_bytes_per_token / shards


def num_gpu_blocks(config: SimConfig, pool_bytes: int, knob: str = "the memory fraction") -> int:
    """The whole blocks of `pool_bytes` (the engine's KV pool per GPU, policies/memory.py), or the user's count."""
    if config.cache.num_gpu_blocks is not None:
        return config.cache.num_gpu_blocks
    block_bytes = config.cache.block_size * kv_bytes_per_token_per_gpu(config)
    if pool_bytes < block_bytes:
        weight_bytes = config.model.weight_bytes / config.tensor_parallel
        raise InputError(
            f"no room for a KV cache: {config.model.model_id} weights need {weight_bytes / 1e9:.1f} GB per GPU and "
            f"{config.gpu.gpu_id}'s pool by {knob} is {max(pool_bytes, 0.0) / 1e9:.1f} GB; raise tensor_parallel or "
            f"{knob}, or pick a larger GPU")
    return min(int(pool_bytes // block_bytes), MAX_NUM_GPU_BLOCKS)


def needs_paged_manager(config: SimConfig, requests: Sequence[Request], prefix_caching: bool) -> bool:
    """Block identities matter for snapshots, prefix caching and parallel sampling; otherwise counting is enough.
    `prefix_caching` is the run's resolved setting (Knobs.prefix_caching: the engine's default when left None)."""
    return config.record_detail or prefix_caching or any(r.n_samples > 1 for r in requests)


def lean_fits(config: SimConfig, requests: Sequence[Request], prefix_caching: bool) -> bool:
    """LeanPrefixCache makes BlockManager's decisions for metrics-only, prefix-cached runs under LRU eviction
    without forked samples (FIFO and LFU read per-block cache order and hits; forks copy on write)."""
    forks = config.scheduler.parallel_sampling == "v0-fork-cow" and any(r.n_samples > 1 for r in requests)
    return LEAN_ENABLED and not config.record_detail and prefix_caching and config.cache.eviction == "lru" and not forks


LEAN_ENABLED = True  # tests/test_lean_prefix_cache.py turns it off to replay the same runs on BlockManager


def make_kv_manager(config: SimConfig, requests: Sequence[Request], emit: Callable[[object], None],
                    prefix_caching: bool, num_blocks: int) -> KvManager:
    if lean_fits(config, requests, prefix_caching):
        return LeanPrefixCache(num_blocks, config.cache.block_size, requests)
    if needs_paged_manager(config, requests, prefix_caching):
        # Only detailed runs record events: without them the manager builds none (one per block it hands out).
        return BlockManager(num_blocks, config.cache.block_size, prefix_caching, config.cache.eviction,
                            emit if config.record_detail else None)
    return CountingKvManager(num_blocks, config.cache.block_size)
