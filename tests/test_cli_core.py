"""The simulate and cost subcommands: JSON contracts and one-line errors."""

from __future__ import annotations

import json

import pytest

from chunkviz.cli.main import main

SIM_KEYS = {"policy", "num_requests", "num_finished", "num_rejected", "num_steps", "makespan_s",
            "throughput_output_tokens_per_s", "ttft_s", "tbt_s", "e2e_s", "num_preemptions", "mfu_mean",
            "num_gpu_blocks", "prefix_hit_tokens", "prefix_hit_rate", "peak_blocks_used", "num_evicted_blocks",
            "blocks_in_use_at_end"}


def _run_json(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_simulate_json_contract(capsys):
    out = _run_json(capsys, ["simulate", "--json", "--num-requests", "30", "--qps", "5", "--policy", "chunked",
                             "--max-num-batched-tokens", "512", "--seed", "2"])
    assert SIM_KEYS <= set(out)
    for key in ("ttft_s", "tbt_s", "e2e_s"):
        assert {"mean", "p50", "p90", "p99"} <= set(out[key])
        assert out[key]["p50"] <= out[key]["p99"]
    assert out["num_finished"] == 30 and out["blocks_in_use_at_end"] == 0


def test_simulate_chunked_cuts_p99_tbt_against_monolithic(capsys):
    common = ["simulate", "--json", "--workload", "long-among-chats", "--num-requests", "64", "--qps", "16",
              "--prompt-tokens", "300", "--output-tokens", "128"]
    mono = _run_json(capsys, common + ["--policy", "monolithic"])
    chunked = _run_json(capsys, common + ["--policy", "chunked", "--max-num-batched-tokens", "512"])
    assert mono["tbt_s"]["p99"] > 4 * chunked["tbt_s"]["p99"]
    ratio = chunked["throughput_output_tokens_per_s"] / mono["throughput_output_tokens_per_s"]
    assert 0.95 < ratio < 1.05


def test_simulate_with_user_model_and_gpu_files(capsys, tmp_path):
    model = tmp_path / "config.json"
    model.write_text(json.dumps({"num_hidden_layers": 4, "hidden_size": 512, "num_attention_heads": 8,
                                 "num_key_value_heads": 2, "intermediate_size": 1024, "vocab_size": 1000,
                                 "torch_dtype": "bfloat16"}))
    gpu = tmp_path / "gpu.json"
    gpu.write_text(json.dumps({"name": "toy", "peak_tflops": 100, "hbm_tb_per_s": 1, "memory_gb": 16}))
    out = _run_json(capsys, ["simulate", "--json", "--num-requests", "5", "--model-spec", str(model),
                             "--gpu-spec", str(gpu), "--prompt-tokens", "100", "--output-tokens", "10"])
    assert out["num_finished"] == 5


def test_cost_json_terms(capsys):
    out = _run_json(capsys, ["cost", "--model", "llama-3-8b", "--gpu", "a100-80gb", "--prefill-tokens", "512",
                             "--context-tokens", "1024", "--decode-batch", "8", "--decode-context", "2000", "--json"])
    terms = out["dense_s"] + out["attention_s"] + out["lm_head_s"] + out["overhead_s"] + out["communication_s"]
    assert out["total_s"] == pytest.approx(terms)
    assert {"flops", "bytes", "mfu", "mbu"} <= set(out)


@pytest.mark.parametrize("argv, fragment", [
    (["simulate", "--qps", "0"], "qps"),
    (["simulate", "--num-requests", "-3"], "num_requests"),
    (["simulate", "--policy", "nope"], "invalid choice"),
    (["simulate", "--model", "gpt-9"], "unknown model"),
    (["simulate", "--gpu", "tpu"], "unknown GPU"),
    (["simulate", "--block-size", "0"], "block_size"),
    (["simulate", "--gpu-memory-utilization", "1.5"], "--gpu-memory-utilization"),
    (["simulate", "--gpu-memory-utilization", "nan"], "--gpu-memory-utilization"),
    (["simulate", "--max-num-batched-tokens", "0"], "max_num_batched_tokens"),
    (["simulate", "--model-spec", "/nonexistent/config.json"], "No such file"),
    (["simulate", "--qps", "abc"], "invalid float"),
    (["simulate", "--gpu", "l40s", "--model", "llama-2-7b", "--gpu-memory-utilization", "0.2"], "no room"),
    (["cost", "--prefill-tokens", "-1"], "prefill-tokens"),
    (["cost"], "nothing to cost"),
])
def test_bad_input_gives_one_line_and_exit_2(capsys, argv, fragment):
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse errors
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2
    assert fragment in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_simulate_replays_the_bundled_trace(capsys):
    from chunkviz.workloads.loaders import BUNDLED_SAMPLE_PATH

    out = _run_json(capsys, ["simulate", "--json", "--trace", str(BUNDLED_SAMPLE_PATH), "--sample", "40",
                             "--rate-scale", "2", "--policy", "chunked"])
    assert out["num_requests"] == 40 and out["num_finished"] == 40


def test_trace_flags_need_a_trace(capsys):
    assert main(["simulate", "--rate-scale", "2"]) == 2
    assert "need --trace" in capsys.readouterr().err
