"""Each engine's KV pool from its own memory rule (simulator/policies/memory.py), on the default scenario (Llama-3-8B,
one H100 SXM): `simulate --json`'s kv_pool_bytes equals the engine's formula worked by hand; each engine's flag
moves its own pool and is refused by the others; bad values are refused in one line naming the flag."""

from __future__ import annotations

import json

import pytest

from chunkviz.cli.main import main
from chunkviz.cost.catalogue import get_gpu, get_model

# By hand: an "80 GB" H100 SXM reports 81,559 MiB; Llama-3-8B's bf16 weights are (6,979,584,000 dense + 2 ·
# 128,256 · 4,096 embedding and lm_head) parameters · 2 bytes.
H100_BYTES = 81_559 * 1024 * 1024  # 85,520,809,984
WEIGHT_BYTES = (6_979_584_000 + 2 * 128_256 * 4_096) * 2  # 16,060,514,304
BLOCK_BYTES_16 = 16 * 128 * 1024  # 16 tokens of 128 KiB


def _run(capsys, *flags: str) -> dict:
    assert main(["simulate", "--json", *flags]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_units_are_the_devices():
    assert get_gpu("h100-sxm").memory_bytes == H100_BYTES == 85_520_809_984
    assert get_model("llama-3-8b").weight_bytes == WEIGHT_BYTES == 16_060_514_304


@pytest.mark.parametrize("policy", ["chunked", "vllm-nochunk"])
def test_vllm_v1_takes_0_92_of_total_memory_less_the_weights(capsys, policy):
    out = _run(capsys, "--policy", policy)
    pool = 0.92 * 85_520_809_984 - 16_060_514_304  # 62,618,630,881.28 bytes
    assert out["kv_pool_bytes"] == pytest.approx(62_618_630_881.28, abs=1)
    assert out["kv_pool_bytes"] == pytest.approx(pool, abs=1)
    assert out["num_gpu_blocks"] == 62_618_630_881 // BLOCK_BYTES_16 == 29_858


def test_vllm_v0_and_the_research_systems_take_0_90(capsys):
    for policy in ("monolithic", "sarathi", "orca", "static"):
        assert _run(capsys, "--policy", policy)["kv_pool_bytes"] == pytest.approx(
            0.90 * 85_520_809_984 - 16_060_514_304, abs=1)  # 60,908,214,681.6


def test_sglang_sizes_mem_fraction_static_from_what_it_reserves(capsys):
    # reserved = 512 + max(chunked_prefill_size 8192, 2048) · 1.5 + cuda_graph_max_bs 256 · 2 + tp 1 / 8 · 1024
    #          = 512 + 12,288 + 512 + 128 = 13,440 MiB (above the 10 GiB floor);
    # mem_fraction_static = round((81,559 − 13,440) / 81,559, 3) = round(0.83521, 3) = 0.835.
    out = _run(capsys, "--policy", "sglang")
    assert out["kv_pool_bytes"] == pytest.approx(0.835 * 85_520_809_984 - 16_060_514_304, abs=1)
    assert out["kv_pool_bytes"] == pytest.approx(55_349_362_032.64, abs=1)


def test_tensorrt_llm_takes_0_9_of_what_is_free_after_weights_and_activations(capsys):
    # Activations of a max_num_tokens (8192) forward: 8192 · (2 · 14,336 + 2 · 4,096) · 2 bytes = 603,979,776.
    out = _run(capsys, "--policy", "trtllm")
    free = 85_520_809_984 - 16_060_514_304 - 603_979_776  # 68,856,315,904
    assert out["kv_pool_bytes"] == pytest.approx(0.9 * free, abs=1)
    assert out["kv_pool_bytes"] == pytest.approx(61_970_684_313.6, abs=1)
    assert out["num_gpu_blocks"] == int(0.9 * free) // (32 * 128 * 1024)  # tokens_per_block 32


def test_the_engines_pools_differ_on_the_same_gpu(capsys):
    pools = {p: _run(capsys, "--policy", p)["kv_pool_bytes"] for p in ("chunked", "sglang", "trtllm")}
    assert pools["sglang"] < pools["trtllm"] < pools["chunked"]


@pytest.mark.parametrize(("policy", "flag", "value", "pool"), [
    ("chunked", "--gpu-memory-utilization", "0.5", 0.5 * H100_BYTES - WEIGHT_BYTES),
    ("sglang", "--mem-fraction-static", "0.7", 0.7 * H100_BYTES - WEIGHT_BYTES),
    ("trtllm", "--free-gpu-memory-fraction", "0.5", 0.5 * (H100_BYTES - WEIGHT_BYTES - 603_979_776)),
])
def test_each_engines_flag_sizes_its_own_pool(capsys, policy, flag, value, pool):
    assert _run(capsys, "--policy", policy, flag, value)["kv_pool_bytes"] == pytest.approx(pool, abs=1)


@pytest.mark.parametrize(("policy", "flag"), [
    ("chunked", "--mem-fraction-static"), ("chunked", "--free-gpu-memory-fraction"),
    ("sglang", "--gpu-memory-utilization"), ("sglang", "--free-gpu-memory-fraction"),
    ("trtllm", "--gpu-memory-utilization"), ("trtllm", "--mem-fraction-static"),
])
def test_another_engines_flag_is_refused_naming_it(capsys, policy, flag):
    assert main(["simulate", "--policy", policy, flag, "0.5"]) == 2
    err = capsys.readouterr().err.strip()
    assert flag in err and "\n" not in err


@pytest.mark.parametrize("flag", ["--gpu-memory-utilization", "--mem-fraction-static", "--free-gpu-memory-fraction"])
@pytest.mark.parametrize("value", ["0", "-0.1", "1.5", "nan", "inf", "92"])
def test_bad_fractions_are_refused_in_one_line_naming_the_flag(capsys, flag, value):
    assert main(["simulate", flag, value]) == 2
    err = capsys.readouterr().err.strip()
    assert flag in err and "\n" not in err


def test_a_pool_too_small_for_one_block_names_the_knob(capsys):
    assert main(["simulate", "--policy", "sglang", "--mem-fraction-static", "0.1"]) == 2
    err = capsys.readouterr().err.strip()
    assert "no room for a KV cache" in err and "mem_fraction_static" in err and "\n" not in err
