"""Chunked prefill attention equals one causal pass; FLOPs stay put, KV bytes read grow, the mask tiles the triangle."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkviz.lessons.attention_math import (
    causal_mask_by_chunk,
    chunked_prefill_attention,
    full_causal_attention,
    make_qkv,
    run_attention_demo,
)


@st.composite
def _sizes(draw: st.DrawFn) -> tuple[int, int, int, int]:
    num_tokens = draw(st.integers(1, 48))
    return num_tokens, draw(st.integers(1, num_tokens)), draw(st.integers(1, 8)), draw(st.integers(0, 2**32 - 1))


@settings(max_examples=60, deadline=None)
@given(_sizes())
def test_chunked_equals_one_pass_with_same_flops_and_more_bytes(sizes: tuple[int, int, int, int]) -> None:
    n, chunk, d, seed = sizes
    demo = run_attention_demo(n, d, chunk, seed)
    assert demo.max_abs_diff < 1e-10
    assert demo.total_attention_pairs == n * (n + 1) // 2  # exact integers, no tolerance
    assert demo.total_attention_flops == demo.one_pass_attention_flops == 4 * d * n * (n + 1) // 2
    # Chunk k re-reads all end_k tokens of K and V (2 · d · 2 bytes each); one pass reads the n tokens once.
    assert demo.total_kv_read_bytes == sum(r.end_token for r in demo.chunks) * 2 * d * 2
    assert demo.one_pass_kv_read_bytes == n * 2 * d * 2
    if chunk < n:
        assert demo.total_kv_read_bytes > demo.one_pass_kv_read_bytes
    else:
        assert demo.total_kv_read_bytes == demo.one_pass_kv_read_bytes
    assert len(demo.chunks) == -(-n // chunk)


@pytest.mark.parametrize("chunk", [1, 3, 8, 13, 64])
def test_several_chunk_sizes_match(chunk: int) -> None:
    q, k, v = make_qkv(64, 32, seed=11)
    out, records = chunked_prefill_attention(q, k, v, chunk)
    assert out.dtype == np.float64 and out.shape == (64, 32)
    assert np.max(np.abs(out - full_causal_attention(q, k, v))) < 1e-10
    assert [r.start_token for r in records] == list(range(0, 64, chunk))


def test_records_by_hand() -> None:
    q, k, v = make_qkv(6, 4, seed=0)
    _, records = chunked_prefill_attention(q, k, v, 2)
    # c = 2 each; p = 0, 2, 4; pairs = c·p + c(c+1)/2 = 3, 7, 11 (sum 21 = 6·7/2).
    assert [(r.num_cached_tokens, r.num_attention_pairs) for r in records] == [(0, 3), (2, 7), (4, 11)]
    # FLOPs: 2·d·pairs for QK^T and again for AV; bytes: (p + c) · 2 (K, V) · d=4 · 2 bytes.
    assert [(r.qk_flops, r.av_flops, r.kv_read_bytes) for r in records] == [(24, 24, 32), (56, 56, 64), (88, 88, 96)]


def test_first_token_sees_only_itself() -> None:
    q, k, v = make_qkv(5, 3, seed=2)
    np.testing.assert_allclose(full_causal_attention(q, k, v)[0], v[0], rtol=0, atol=1e-15)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40).flatmap(lambda n: st.tuples(st.just(n), st.integers(1, n))))
def test_mask_tiles_the_lower_triangle(sizes: tuple[int, int]) -> None:
    n, chunk = sizes
    mask = causal_mask_by_chunk(n, chunk)
    assert mask.shape == (n, n) and np.issubdtype(mask.dtype, np.integer)
    np.testing.assert_array_equal(mask > 0, np.tril(np.ones((n, n), dtype=bool)))
    rows = np.arange(n)
    for i in rows:  # each query row is computed by exactly one chunk: the one holding that query
        assert set(mask[i, : i + 1].tolist()) == {1 + i // chunk}
    assert mask.max() == -(-n // chunk)


@pytest.mark.parametrize(("call", "message"), [
    (lambda: run_attention_demo(0, 4, 1), "num_tokens must be an integer from 1 to 4096"),
    (lambda: run_attention_demo(4097, 4, 1), "num_tokens must be an integer from 1 to 4096"),
    (lambda: run_attention_demo(8, 257, 1), "head_dim must be an integer from 1 to 256"),
    (lambda: run_attention_demo(8, 4, 0), "chunk_tokens must be an integer from 1 to 8"),
    (lambda: run_attention_demo(8, 4, 9), "chunk_tokens must be an integer from 1 to 8"),
    (lambda: causal_mask_by_chunk(4, 5), "chunk_tokens must be an integer from 1 to 4"),
    (lambda: full_causal_attention(np.zeros((3, 2)), np.zeros((3, 2)), np.zeros((4, 2))), "one shape"),
])
def test_validation_messages(call: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()  # type: ignore[operator]


def test_demo_is_frozen_and_deterministic() -> None:
    demo = run_attention_demo(32, 8, 5, seed=3)
    assert demo == run_attention_demo(32, 8, 5, seed=3)
    assert hash(demo) == hash(run_attention_demo(32, 8, 5, seed=3))
    with pytest.raises(AttributeError):
        demo.max_abs_diff = 1.0  # type: ignore[misc]


def test_imports_no_ui_or_torch() -> None:
    code = "import sys, chunkviz.lessons.attention_math; print('streamlit' in sys.modules, 'torch' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["False", "False"]
