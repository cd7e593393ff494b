"""A prompt's prefill in chunks: same dense and attention FLOPs, more bytes read, more time; sums match step_cost."""

from __future__ import annotations

import pytest

from chunkviz.cost.catalogue import GPUS, MODELS
from chunkviz.cost.roofline import shape_of, step_cost
from chunkviz.cost.prefill import prefill_cost

MODEL, GPU = MODELS["llama-3-8b"], GPUS["h100-sxm"]


def test_flops_stay_bytes_and_time_grow() -> None:
    whole = prefill_cost(MODEL, GPU, 8192, 8192)
    costs = [prefill_cost(MODEL, GPU, 8192, c) for c in (2048, 512, 128)]
    for cost in costs:
        assert cost.dense_flops == whole.dense_flops and cost.attention_flops == whole.attention_flops
    reads = [whole.read_bytes] + [c.read_bytes for c in costs]
    times = [whole.time_s] + [c.time_s for c in costs]
    assert reads == sorted(reads) and len(set(reads)) == 4
    assert times == sorted(times) and len(set(times)) == 4
    # The only FLOPs that grow: one lm_head row per step (2 · vocab · hidden per step), under 0.1% of the total.
    assert costs[-1].flops / whole.flops - 1 < 1e-3


def test_numbers_by_hand() -> None:
    cost = prefill_cost(MODEL, GPU, 8192, 512)
    assert cost.num_steps == 16
    # Attention pairs n(n+1)/2 = 33,558,528; FLOPs = 4 · 4096 hidden · 32 layers · pairs.
    assert cost.attention_flops == 4 * 4096 * 32 * 8192 * 8193 // 2
    # KV read: chunk k reads 512·k tokens (its prefix plus itself): 512 · (1 + ... + 16) = 69,632 tokens of 128 KiB.
    assert cost.kv_read_bytes == 512 * 136 * 131072
    # The extra over one pass is about N²/(2C) tokens ≈ 8 GB (costmodel.md §3).
    assert 7.5e9 < cost.kv_read_bytes - prefill_cost(MODEL, GPU, 8192, 8192).kv_read_bytes < 8.5e9
    assert cost.weight_read_bytes == 16 * (MODEL.num_dense_params + MODEL.num_lm_head_params) * 2


def test_sums_match_step_cost() -> None:
    cost = prefill_cost(MODEL, GPU, 1000, 300)  # chunks 300, 300, 300, 100
    steps = [step_cost(shape_of(((c, p),)), MODEL, GPU) for c, p in ((300, 0), (300, 300), (300, 600), (100, 900))]
    assert cost.num_steps == 4
    assert cost.flops == pytest.approx(sum(s.flops for s in steps), rel=1e-12)
    assert cost.read_bytes == pytest.approx(sum(s.bytes for s in steps), rel=1e-12)
    assert cost.time_s == pytest.approx(sum(s.total_s for s in steps), rel=1e-12)
    assert cost.time_s == pytest.approx(cost.dense_s + cost.attention_s + cost.lm_head_s + cost.overhead_s)


def test_chunk_larger_than_prompt_is_one_step() -> None:
    big = prefill_cost(MODEL, GPU, 100, 4096)
    assert big.num_steps == 1 and big.chunk_tokens == 100
    assert big == prefill_cost(MODEL, GPU, 100, 100)


@pytest.mark.parametrize(("prompt", "chunk", "message"), [
    (0, 1, "prompt_tokens must be an integer"), (10, 0, "chunk_tokens must be an integer"),
    (10, True, "chunk_tokens must be an integer"), (1_000_000, 1, "at most 100000"),
])
def test_validation(prompt: int, chunk: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        prefill_cost(MODEL, GPU, prompt, chunk)
