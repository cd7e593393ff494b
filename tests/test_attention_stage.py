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


def test_chapter_3s_handle_runs_are_the_demo_at_each_chunk_size():
    """Chapter 3's chunk-size handle (ui/components/attention_stage/export.py payload's `variants`): each run sent is
    run_attention_demo of the lecture's example at that chunk size, figure for figure, and the handle opens on the
    lecture's own size, whose run is exactly what the stage draws without a handle (chapter 9's and /attention's)."""
    from chunkviz.lessons.attention_math import LECTURE_CHUNK_GRID_TOKENS, LECTURE_EXAMPLE
    from ui.components.attention_stage.export import payload

    lecture = run_attention_demo(**LECTURE_EXAMPLE)
    data = payload(lecture, "en", LECTURE_CHUNK_GRID_TOKENS)
    v = data["variants"]
    assert v["values"] == list(LECTURE_CHUNK_GRID_TOKENS) and 4 <= len(v["values"]) <= 6
    assert v["values"][v["index"]] == LECTURE_EXAMPLE["chunk_tokens"]
    assert v["runs"][v["index"]] == {k: data[k] for k in v["runs"][0]}  # the default is the lecture's drawn run
    assert data["total_flops"] == 532_480  # what chapter 9 and /attention print as 532.48 k
    for chunk, run in zip(v["values"], v["runs"]):
        demo = run_attention_demo(num_tokens=LECTURE_EXAMPLE["num_tokens"], head_dim=LECTURE_EXAMPLE["head_dim"],
                                  chunk_tokens=chunk)
        assert run["chunk"] == chunk and run["num_chunks"] == len(demo.chunks) == -(-64 // chunk)
        assert run["total_flops"] == demo.total_attention_flops == demo.one_pass_attention_flops
        assert run["one_pass_flops"] == demo.one_pass_attention_flops
        assert run["total_bytes"] == demo.total_kv_read_bytes and run["one_pass_bytes"] == demo.one_pass_kv_read_bytes
        assert run["max_abs_diff"] == demo.max_abs_diff
        assert run["chunks"]["end"] == [r.end_token for r in demo.chunks]
        assert run["chunks"]["cum_bytes"][-1] == demo.total_kv_read_bytes
    # What the handle teaches: the same FLOPs at every size, and more KV bytes read the smaller the chunk.
    read = [run["total_bytes"] for run in v["runs"]]
    assert read == sorted(read, reverse=True) and read[-1] == v["runs"][-1]["one_pass_bytes"]
    assert len({run["total_flops"] for run in v["runs"]}) == 1


def test_a_chunk_grid_without_the_demos_run_is_refused():
    from ui.components.attention_stage.export import payload

    with pytest.raises(ValueError, match="holds no run equal to the demo"):
        payload(run_attention_demo(num_tokens=64, head_dim=64, chunk_tokens=16), "en", (8, 32))
    with pytest.raises(ValueError, match="holds no run equal to the demo"):  # another seed: other Q/K/V
        payload(run_attention_demo(num_tokens=64, head_dim=64, chunk_tokens=16, seed=3), "en", (16,))
