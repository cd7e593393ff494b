"""Cost model: hand-worked golden numbers, terms that add up, monotonicity."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkviz.cost.catalogue import GPUS, MODELS, get_gpu, get_model
from chunkviz.config import CostConfig
from chunkviz.cost.fitted import A100_DENSE
from chunkviz.cost.kernels import dense_layer_s
from chunkviz.cost.roofline import mfu_at, shape_of, step_cost

LLAMA3 = get_model("llama-3-8b")
H100 = get_gpu("h100-sxm")


def test_llama3_shapes_match_published_figures():
    # costmodel.md fact 2: 128 KiB of KV per token; P_lin = 6.98 B; 15.0 GB read per step (layers + lm_head).
    assert LLAMA3.kv_bytes_per_token == 128 * 1024
    assert LLAMA3.num_dense_params == 6_979_584_000  # 32 · (2·4096² + 2·4096·1024 + 3·4096·14336 + 2·4096)
    assert (LLAMA3.num_dense_params + LLAMA3.num_lm_head_params) * 2 / 1e9 == pytest.approx(15.0, abs=0.05)
    assert get_model("llama-2-7b").kv_bytes_per_token == 512 * 1024  # no GQA


def test_golden_prefill_512_on_h100():
    cost = step_cost(shape_of(((512, 0),)), LLAMA3, H100)
    # The tokens-only MFU curve is still what lm_head uses: A100-equivalent tokens 512 · (312/2.039) / (989/3.35)
    # = 265.3, between the 256 (65%) and 512 (72→70%) points: MFU = 0.65 + (log2 265.3 − 8) · 0.05 = 0.6526.
    x = 512 * (312e12 / 2.039e12) / (989e12 / 3.35e12)
    mfu = 0.65 + (math.log2(x) - 8) * 0.05
    assert mfu_at(512, H100) == pytest.approx(mfu)
    # Dense (changed in cost model v2, issue 15): 32 layers of the fitted per-kernel model. v1's single roofline
    # said 11.07 ms (2 · 512 · 6.98e9 FLOPs at 65% MFU); the kernel model adds the launch costs, norms, rotary,
    # activation and residual add, and the lower efficiency of 512-row GEMMs: 13.85 ms.
    assert cost.dense_s == pytest.approx(32 * dense_layer_s(512, LLAMA3, H100, 1, A100_DENSE), rel=1e-12)
    assert cost.dense_s == pytest.approx(0.01385, abs=1e-4)
    assert cost.dense_s > 2 * 512 * 6_979_584_000 / 989e12  # never faster than the peak
    # Attention: 4 · 4096 · 32 · (512·513/2) FLOPs at FlashAttention's 50%, vs reading 512 tokens of KV.
    attn_flops = 4 * 4096 * 32 * (512 * 513 // 2)
    attn_bytes = 512 * 131072
    assert cost.attention_s == pytest.approx(max(attn_flops / (989e12 * 0.5), attn_bytes / (3.35e12 * 0.78)))
    # Host (default pricing: eager, no overlap, vLLM V0's CPU costs, cost/host_time.py): scheduling of 1 request,
    # preparation of 512 tokens of 1 sequence, and 32 · 11 + 6 = 358 eager launches of (3.3 ms + 10 µs) / 358 each.
    per_request_s = (29 / 38 * 13.52e-3 - 0.5e-3 - 256 * 0.2e-6) / 512
    host_s = (0.25e-3 + per_request_s) + (0.25e-3 + per_request_s + 512 * 0.2e-6) + (3.3e-3 + 10e-6)
    assert cost.overhead_s == pytest.approx(host_s, rel=1e-12)
    assert cost.overhead_s == pytest.approx(3.95e-3, abs=1e-5)


@pytest.mark.parametrize(("tokens", "vidur_ms"), [(1, 9.76), (2048, 142.6), (8192, 546.2)])
def test_a100_dense_matches_vidur_forward(tokens, vidur_ms):
    # costmodel.md §1.3: vidur's measured non-attention forward of Llama-3-8B on A100 (32 layers).
    cost = step_cost(shape_of(((tokens, 0),)), LLAMA3, get_gpu("a100-80gb"))
    assert cost.dense_s * 1e3 == pytest.approx(vidur_ms, rel=0.05)


def test_golden_decode_is_bandwidth_bound():
    cost = step_cost(shape_of((), (1024,)), LLAMA3, H100)
    # One token: the dense layers cost at least their weight read at the fitted GEMM bandwidth fraction,
    # 6.98e9 params · 2 B / (3.35 TB/s · gemm_mbu), plus the nine kernel launches of each layer.
    weight_read_s = 6_979_584_000 * 2 / (3.35e12 * A100_DENSE.gemm_mbu)
    assert weight_read_s < cost.dense_s < weight_read_s * 1.35
    # lm_head: 128256 · 4096 · 2 B over the same bandwidth = 0.402 ms.
    assert cost.lm_head_s == pytest.approx(128256 * 4096 * 2 / (3.35e12 * 0.78), rel=1e-9)
    assert cost.mbu > cost.mfu


def test_chunking_keeps_flops_but_reads_more_bytes():
    whole = step_cost(shape_of(((4096, 0),)), LLAMA3, H100)
    chunks = [step_cost(shape_of(((512, p),)), LLAMA3, H100) for p in range(0, 4096, 512)]
    dense_attn_flops = lambda c: c.flops - 2 * LLAMA3.num_lm_head_params  # one logits row per step
    assert sum(dense_attn_flops(c) for c in chunks) == pytest.approx(dense_attn_flops(whole), rel=1e-12)
    assert sum(c.bytes for c in chunks) > whole.bytes * 7
    assert sum(c.total_s for c in chunks) > whole.total_s


@pytest.mark.parametrize("model_id", sorted(MODELS))
@pytest.mark.parametrize("gpu_id", sorted(GPUS))
def test_terms_add_up(model_id, gpu_id):
    for tp in (1, 2, 4):
        cost = step_cost(shape_of(((700, 300),), (500, 900, 12)), MODELS[model_id], GPUS[gpu_id], CostConfig(), tp)
        terms = cost.dense_s + cost.attention_s + cost.lm_head_s + cost.communication_s + cost.overhead_s
        assert cost.total_s == pytest.approx(terms, rel=1e-12)
        assert 0 < cost.mfu < 1 and 0 < cost.mbu < 1
        assert (cost.communication_s > 0) == (tp > 1)


@settings(max_examples=200, deadline=None)
@given(c=st.integers(1, 16384), p=st.integers(0, 16384), decodes=st.lists(st.integers(0, 8000), max_size=64),
       extra=st.integers(1, 2048), gpu_id=st.sampled_from(sorted(GPUS)))
def test_cost_never_decreases_when_work_is_added(c, p, decodes, extra, gpu_id):
    gpu = GPUS[gpu_id]
    base = step_cost(shape_of(((c, p),), tuple(decodes)), LLAMA3, gpu)
    more_chunk = step_cost(shape_of(((c + extra, p),), tuple(decodes)), LLAMA3, gpu)
    more_decodes = step_cost(shape_of(((c, p),), tuple(decodes) + (100,)), LLAMA3, gpu)
    more_context = step_cost(shape_of(((c, p + extra),), tuple(decodes)), LLAMA3, gpu)
    assert more_chunk.total_s >= base.total_s
    assert more_decodes.total_s >= base.total_s
    assert more_context.total_s >= base.total_s


def test_mfu_curve_monotone_and_ridge_scaled():
    a100, h100 = get_gpu("a100-80gb"), get_gpu("h100-sxm")
    values = [mfu_at(t, a100) for t in range(1, 20000, 37)]
    assert values == sorted(values)
    assert mfu_at(128, a100) == pytest.approx(0.47)
    # H100's ridge is 1.93× A100's, so it needs 1.93× the tokens for the same efficiency.
    ratio = h100.ridge_tokens / a100.ridge_tokens
    assert mfu_at(256 * ratio, h100) == pytest.approx(mfu_at(256, a100))
