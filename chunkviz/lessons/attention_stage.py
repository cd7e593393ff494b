"""The attention stage's data: chunk by chunk, which (query, key) blocks chunk k computes (the cached keys of chunks
1…k−1, then its own causal triangle), the KV cache after it, and the FLOPs and KV bytes read so far; the last
position is the check that it all equals one causal pass.

Invariant: pure; every number comes from lessons/attention_math.py (run_attention_demo's ChunkRecords), so the
running totals after the last chunk equal the demo's totals, which the attention page shows as its cards.
Positions: 0 = nothing computed, k = chunk k done (1…K), K+1 = the whole prefill against one causal pass.
"""

from __future__ import annotations

from itertools import accumulate
from typing import Any

from chunkviz.lessons.attention_math import ChunkedAttentionDemo, run_attention_demo


def chunk_columns(demo: ChunkedAttentionDemo) -> dict[str, list[int]]:
    """Per chunk (index k-1 for chunk k): token range [start, end), cached keys read, pairs, FLOPs (QK^T + AV), KV
    bytes read, their running totals, and the KV cache size in tokens once the chunk has written its own K/V."""
    c = demo.chunks
    flops = [r.qk_flops + r.av_flops for r in c]
    read = [r.kv_read_bytes for r in c]
    return {"start": [r.start_token for r in c], "end": [r.end_token for r in c],
            "cached": [r.num_cached_tokens for r in c], "pairs": [r.num_attention_pairs for r in c],
            "flops": flops, "bytes": read, "cum_flops": list(accumulate(flops)), "cum_bytes": list(accumulate(read)),
            "cum_pairs": list(accumulate(r.num_attention_pairs for r in c)), "kv_tokens": [r.end_token for r in c]}


def stage_data(num_tokens: int, head_dim: int, chunk_tokens: int, demo: ChunkedAttentionDemo | None = None
               ) -> dict[str, Any]:
    """Everything the stage draws, without texts or colours; `demo` may be passed when the caller already has it."""
    demo = demo or run_attention_demo(num_tokens=num_tokens, head_dim=head_dim, chunk_tokens=chunk_tokens)
    return {"n": demo.num_tokens, "d": demo.head_dim, "chunk": demo.chunk_tokens,
            "bytes_per_element": demo.bytes_per_element, "num_chunks": len(demo.chunks),
            "chunks": chunk_columns(demo), "total_flops": demo.total_attention_flops,
            "one_pass_flops": demo.one_pass_attention_flops, "total_bytes": demo.total_kv_read_bytes,
            "one_pass_bytes": demo.one_pass_kv_read_bytes, "total_pairs": demo.total_attention_pairs,
            "max_abs_diff": demo.max_abs_diff}


def chunk_variants(num_tokens: int, head_dim: int, chunk_sizes: tuple[int, ...]) -> list[dict[str, Any]]:
    """stage_data of the same Q/K/V (same sizes and seed) at each chunk size, in order: the runs a chunk-size handle
    switches between in the browser."""
    return [stage_data(num_tokens, head_dim, chunk) for chunk in chunk_sizes]
