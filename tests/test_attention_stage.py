"""The attention stage's data: per-chunk blocks, the growing KV cache and running FLOPs/bytes, which end exactly
at attention_math's totals (the numbers the attention page shows as its cards)."""

from __future__ import annotations

import json

import pytest

from chunkviz.lessons.attention_math import run_attention_demo
from chunkviz.lessons.attention_stage import stage_data


@pytest.mark.parametrize(("n", "d", "chunk"), [(64, 64, 16), (64, 16, 7), (100, 8, 100), (512, 128, 48)])
def test_running_totals_end_at_the_demo_totals(n, d, chunk):
    demo = run_attention_demo(num_tokens=n, head_dim=d, chunk_tokens=chunk)
    data = stage_data(n, d, chunk)
    c = data["chunks"]
    assert data["num_chunks"] == len(demo.chunks) == -(-n // chunk)
    assert c["cum_flops"][-1] == demo.total_attention_flops == data["total_flops"]
    assert c["cum_bytes"][-1] == demo.total_kv_read_bytes == data["total_bytes"]
    assert c["cum_pairs"][-1] == n * (n + 1) // 2  # every causal (query, key) pair once
    assert data["one_pass_flops"] == data["total_flops"]  # chunking adds no attention FLOPs
    assert data["max_abs_diff"] == demo.max_abs_diff < 1e-12
    assert [r.qk_flops + r.av_flops for r in demo.chunks] == c["flops"]


def test_each_chunk_reads_the_cache_of_earlier_chunks_and_grows_it():
    c = stage_data(64, 64, 16)["chunks"]
    assert c["start"] == [0, 16, 32, 48] and c["end"] == [16, 32, 48, 64]
    assert c["cached"] == [0, 16, 32, 48] and c["kv_tokens"] == [16, 32, 48, 64]
    # Chunk 2: 16 queries × 16 cached keys + a 16-token causal triangle (16·17/2) = 392 pairs; 4·d FLOPs per pair.
    assert c["pairs"][1] == 392 and c["flops"][1] == 392 * 4 * 64
    # KV read per chunk: (cached + own) tokens × K and V × d × 2 bytes (bf16).
    assert c["bytes"] == [t * 2 * 64 * 2 for t in (16, 32, 48, 64)]
    assert json.loads(json.dumps(stage_data(64, 64, 16)))["chunks"] == c
