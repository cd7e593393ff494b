"""Why chunked prefill is exact: single-head causal attention computed in one pass and chunk by chunk over a KV cache.

Invariant: chunk queries that see every cached key plus their own causal triangle give the one-pass output (up to
float64 rounding, ~1e-15), the attention pairs sum to n(n+1)/2 whatever the chunk (same FLOPs), and only the KV
bytes read grow, because each chunk re-reads the cache of all earlier chunks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MAX_NUM_TOKENS = 4096
MAX_HEAD_DIM = 256
DEFAULT_BYTES_PER_ELEMENT = 2  # bf16 K and V in the cache
# The lecture's one example (chapter 3's stage, /attention opened from it, chapter 9's FLOPs claim): one set of
# numbers on every page that shows it.
LECTURE_EXAMPLE = {"num_tokens": 64, "head_dim": 64, "chunk_tokens": 16}
# Chapter 3's chunk-size handle: the lecture's example run at each of these chunk sizes (the lecture's 16 among them,
# where the handle opens). 16 chunks of 4 down to one pass of 64; 24 leaves a shorter last chunk (24, 24, 16).
LECTURE_CHUNK_GRID_TOKENS = (4, 8, 16, 24, 32, 64)


def _check_int_range(name: str, value: object, low: int, high: int) -> None:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
        raise ValueError(f"{name} must be an integer from {low} to {high}, got {value!r}")


def _check_qkv(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> None:
    if q.ndim != 2 or q.shape != k.shape or q.shape != v.shape:
        raise ValueError(f"q, k and v must be 2-D arrays of one shape (tokens, head_dim), got "
                         f"{q.shape}, {k.shape}, {v.shape}")
    _check_int_range("number of tokens", q.shape[0], 1, MAX_NUM_TOKENS)
    _check_int_range("head_dim", q.shape[1], 1, MAX_HEAD_DIM)


@dataclass(frozen=True, slots=True)
class ChunkRecord:
    """The work of one prefill chunk: tokens [start_token, end_token) attend to the cache plus themselves."""

    chunk_index: int
    start_token: int
    end_token: int
    num_query_tokens: int  # c
    num_cached_tokens: int  # p: keys of earlier chunks, read back from the KV cache
    num_attention_pairs: int  # c·p + c(c+1)/2 (query, key) cells that are not masked
    qk_flops: int  # 2·d per pair: one multiply and one add per head dimension for QK^T
    av_flops: int  # 2·d per pair again for the weighted sum of V
    kv_read_bytes: int  # (p + c) tokens x (K and V) x d x bytes per element


@dataclass(frozen=True, slots=True)
class ChunkedAttentionDemo:
    """One-pass vs chunked attention on the same random Q/K/V: the gap, and work totals for both."""

    num_tokens: int
    head_dim: int
    chunk_tokens: int
    seed: int
    bytes_per_element: int
    max_abs_diff: float
    chunks: tuple[ChunkRecord, ...]
    total_attention_pairs: int
    total_attention_flops: int
    one_pass_attention_flops: int
    total_kv_read_bytes: int
    one_pass_kv_read_bytes: int


def make_qkv(num_tokens: int, head_dim: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Standard-normal float64 Q, K, V of shape (num_tokens, head_dim) from default_rng(seed)."""
    _check_int_range("num_tokens", num_tokens, 1, MAX_NUM_TOKENS)
    _check_int_range("head_dim", head_dim, 1, MAX_HEAD_DIM)
    rng = np.random.default_rng(seed)
    q, k, v = (rng.standard_normal((num_tokens, head_dim)) for _ in range(3))
    return q, k, v


def _masked_attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, visible: np.ndarray) -> np.ndarray:
    # Softmax over visible keys only; subtracting the row max keeps exp() from overflowing, and every row sees at
    # least its own key, so the max is finite.
    scores = np.where(visible, q @ k.T / np.sqrt(q.shape[1]), -np.inf)
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    out: np.ndarray = (weights / weights.sum(axis=1, keepdims=True)) @ v
    return out


def full_causal_attention(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
    """softmax(QK^T/√d + causal mask)·V in one pass; shape (tokens, head_dim)."""
    _check_qkv(q, k, v)
    positions = np.arange(q.shape[0])
    return _masked_attention(q, k, v, positions[None, :] <= positions[:, None])


def _chunk_record(index: int, start: int, end: int, head_dim: int, bytes_per_element: int) -> ChunkRecord:
    c, p = end - start, start
    pairs = c * p + c * (c + 1) // 2
    return ChunkRecord(index, start, end, c, p, pairs, 2 * head_dim * pairs, 2 * head_dim * pairs,
                       (p + c) * 2 * head_dim * bytes_per_element)


def chunked_prefill_attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, chunk_tokens: int,
                              bytes_per_element: int = DEFAULT_BYTES_PER_ELEMENT,
                              ) -> tuple[np.ndarray, tuple[ChunkRecord, ...]]:
    """Causal attention chunk by chunk over a growing KV cache; returns (output (tokens, head_dim), chunk records)."""
    _check_qkv(q, k, v)
    num_tokens, head_dim = q.shape
    _check_int_range("chunk_tokens", chunk_tokens, 1, num_tokens)
    _check_int_range("bytes_per_element", bytes_per_element, 1, 8)
    # A preallocated cache filled slot by slot, like a paged KV cache, so appending never copies earlier chunks.
    k_cache, v_cache = np.empty_like(k), np.empty_like(v)
    outputs, records = [], []
    for index, start in enumerate(range(0, num_tokens, chunk_tokens)):
        end = min(start + chunk_tokens, num_tokens)
        # The chunk's own K/V are written before it attends, as an engine stores KV and then runs attention.
        k_cache[start:end], v_cache[start:end] = k[start:end], v[start:end]
        # Every cached key of earlier chunks is visible; within the chunk, query i sees keys up to i.
        query_pos, key_pos = np.arange(start, end), np.arange(end)
        visible = key_pos[None, :] <= query_pos[:, None]
        outputs.append(_masked_attention(q[start:end], k_cache[:end], v_cache[:end], visible))
        records.append(_chunk_record(index, start, end, head_dim, bytes_per_element))
    return np.concatenate(outputs), tuple(records)


def causal_mask_by_chunk(num_tokens: int, chunk_tokens: int) -> np.ndarray:
    """(query, key) grid for a heatmap: 0 where masked, else 1 + the index of the chunk that computes the cell."""
    _check_int_range("num_tokens", num_tokens, 1, MAX_NUM_TOKENS)
    _check_int_range("chunk_tokens", chunk_tokens, 1, num_tokens)
    rows, cols = np.arange(num_tokens)[:, None], np.arange(num_tokens)[None, :]
    # A cell belongs to its query's chunk: that is the chunk whose step reads the key from cache or computes it.
    return np.where(cols <= rows, 1 + rows // chunk_tokens, 0).astype(np.int64)


def run_attention_demo(num_tokens: int = 64, head_dim: int = 16, chunk_tokens: int = 16, seed: int = 0,
                       bytes_per_element: int = DEFAULT_BYTES_PER_ELEMENT) -> ChunkedAttentionDemo:
    """Compare one-pass and chunked attention on seeded Q/K/V; FLOPs and bytes are for one head of one layer."""
    q, k, v = make_qkv(num_tokens, head_dim, seed)
    _check_int_range("chunk_tokens", chunk_tokens, 1, num_tokens)
    chunked_out, chunks = chunked_prefill_attention(q, k, v, chunk_tokens, bytes_per_element)
    one_pass = _chunk_record(0, 0, num_tokens, head_dim, bytes_per_element)
    return ChunkedAttentionDemo(
        num_tokens=num_tokens, head_dim=head_dim, chunk_tokens=chunk_tokens, seed=seed,
        bytes_per_element=bytes_per_element,
        max_abs_diff=float(np.max(np.abs(full_causal_attention(q, k, v) - chunked_out))), chunks=chunks,
        total_attention_pairs=sum(r.num_attention_pairs for r in chunks),
        total_attention_flops=sum(r.qk_flops + r.av_flops for r in chunks),
        one_pass_attention_flops=one_pass.qk_flops + one_pass.av_flops,
        total_kv_read_bytes=sum(r.kv_read_bytes for r in chunks), one_pass_kv_read_bytes=one_pass.kv_read_bytes)
