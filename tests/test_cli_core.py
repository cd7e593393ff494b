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


# --- no silent workload flags (issue 36): a generator flag the preset does not read is refused, naming it -------

@pytest.mark.parametrize("sub", ["simulate", "sweep", "capacity"])
def test_a_flag_the_default_preset_ignores_is_refused_naming_it_and_the_preset(capsys, sub):
    extra = {"simulate": [], "sweep": ["--budgets", "512"], "capacity": ["--slo-tbt-p99-ms", "100"]}[sub]
    code = main([sub, "--json", "--num-requests", "8", "--shared-prefix-tokens", "1000", "--length-dist", "fixed",
                 "--arrival", "poisson", *extra])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert "--arrival, --length-dist, --shared-prefix-tokens" in err and "'long-among-chats'" in err


def test_the_same_flags_on_a_preset_that_reads_them_are_honoured_and_the_json_names_it(capsys):
    out = _run_json(capsys, ["simulate", "--json", "--workload", "synthetic", "--num-requests", "8",
                             "--shared-prefix-tokens", "1000", "--length-dist", "fixed", "--arrival", "poisson"])
    assert out["workload"] == "synthetic" and out["prefix_hit_rate"] > 0.5  # the shared prompt is hit


def test_the_json_names_the_default_workload_and_a_trace(capsys):
    from chunkviz.workloads.loaders import BUNDLED_SAMPLE_PATH

    assert _run_json(capsys, ["simulate", "--json", "--num-requests", "4"])["workload"] == "long-among-chats"
    out = _run_json(capsys, ["simulate", "--json", "--trace", str(BUNDLED_SAMPLE_PATH), "--sample", "4"])
    assert out["workload"] == f"trace:{BUNDLED_SAMPLE_PATH.name}"
    rows = _run_json(capsys, ["sweep", "--json", "--workers", "1", "--budgets", "256", "--num-requests", "4",
                              "--workload", "seed-article"])["rows"]
    assert [r["workload"] for r in rows] == ["seed-article"]


@pytest.mark.parametrize("argv, fragment", [
    (["--workload", "seed-article", "--prompt-tokens", "99"], "--prompt-tokens: the workload preset 'seed-article'"),
    (["--workload", "multi-turn", "--n-samples", "2"], "--n-samples: the workload preset 'multi-turn'"),
    (["--workload", "azure-conv-like", "--length-dist", "fixed"], "--length-dist: the workload preset"),
    (["--workload", "synthetic", "--burstiness-cv", "4"], "--burstiness-cv shapes gamma arrivals only"),
    (["--trace", "chunkviz/data/azure_conv_sample.csv", "--num-requests", "4"],
     "--num-requests shape a generated workload, but --trace replays azure_conv_sample.csv's own requests"),
])
def test_ignored_generator_flags_are_refused(capsys, argv, fragment):
    assert main(["simulate", "--json", *argv]) == 2
    err = capsys.readouterr().err
    assert fragment in err and err.count("\n") == 1


def test_gamma_burstiness_is_read_by_synthetic(capsys):
    base = ["simulate", "--json", "--workload", "synthetic", "--num-requests", "16", "--arrival", "gamma"]
    calm = _run_json(capsys, base + ["--burstiness-cv", "0.1"])
    bursty = _run_json(capsys, base + ["--burstiness-cv", "10"])
    assert calm["workload"] == "synthetic" and calm["ttft_s"] != bursty["ttft_s"]


def test_capacity_refuses_qps_it_would_replace(capsys):
    assert main(["capacity", "--qps", "3", "--slo-tbt-p99-ms", "100"]) == 2
    assert "--qps 3: capacity searches the rate itself" in capsys.readouterr().err
