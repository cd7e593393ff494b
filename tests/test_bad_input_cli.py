"""Bad-input catalogue for the CLI: every numeric flag fed zero, negative, huge, NaN, non-numeric and wrong-type
values. Each either runs (when the value is legitimate) or exits 2 with exactly one line and no traceback."""

from __future__ import annotations

import pytest

from chunkviz.cli.main import main

BASE = ["simulate", "--json", "--workload", "synthetic", "--num-requests", "3", "--prompt-tokens", "64", "--output-tokens", "4"]
BAD_VALUES = ("0", "-1", "HUGE", "nan", "abc", "1.5")
INT_HUGE, FLOAT_HUGE = str(10**12), "1e300"

# flag -> (is_int, values that are legitimate and must run)
SIMULATE_FLAGS = {
    "--tensor-parallel": (True, ()),
    "--max-num-batched-tokens": (True, ("HUGE",)),
    "--max-num-seqs": (True, ()),  # HUGE exceeds max_num_batched_tokens: vLLM refuses it
    "--long-prefill-token-threshold": (True, ("0", "HUGE")),
    "--num-requests": (True, ()),
    "--prompt-tokens": (True, ()),
    "--output-tokens": (True, ()),
    "--seed": (True, ("0", "HUGE")),
    "--shared-prefix-tokens": (True, ("0",)),
    "--n-samples": (True, ()),
    "--block-size": (True, ()),
    "--num-gpu-blocks": (True, ()),
    "--qps": (False, ()),
    "--burstiness-cv": (False, ()),
    "--batch-fraction": (False, ("0",)),
    "--gpu-memory-utilization": (False, ()),
    "--step-overhead-ms": (False, ("0",)),
    "--slo-ttft-ms": (False, ()),
    "--slo-tbt-ms": (False, ()),
}


def _run(capsys, argv):
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse refuses the value before our code runs
        code = exc.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _cases():
    for flag, (is_int, valid) in SIMULATE_FLAGS.items():
        for value in BAD_VALUES:
            if value == "1.5" and not is_int:
                continue  # a fraction is a fine float
            yield flag, value, is_int, value in valid


@pytest.mark.parametrize("flag, value, is_int, is_valid", list(_cases()))
def test_simulate_flag_values(capsys, flag, value, is_int, is_valid):
    text = (INT_HUGE if is_int else FLOAT_HUGE) if value == "HUGE" else value
    code, out, err = _run(capsys, BASE + [flag, text])
    assert "Traceback" not in err
    if is_valid:
        assert code == 0, err
        assert out.startswith("{")
    else:
        assert code == 2, f"{flag}={text} was accepted"
        lines = [line for line in err.splitlines() if "error" in line]
        assert len(lines) == 1 and err.strip().count("\n") <= 1, err


@pytest.mark.parametrize("argv, fragment", [
    (BASE + ["--max-num-batched-tokens", "8"], "at least one KV block"),  # budget below one block
    (BASE + ["--policy", "monolithic", "--max-num-batched-tokens", "16", "--block-size", "32"], "at least one"),
    (BASE + ["--time-window", "5:1", "--trace", "chunkviz/data/azure_conv_sample.csv"], "time window"),
    (BASE + ["--time-window", "x:y", "--trace", "chunkviz/data/azure_conv_sample.csv"], "A:B"),
    (BASE + ["--rate-scale", "0", "--trace", "chunkviz/data/azure_conv_sample.csv"], "rate scale"),
    (BASE + ["--sample", "0", "--trace", "chunkviz/data/azure_conv_sample.csv"], "sample"),
    (BASE + ["--trace", "README.md"], "format"),
    (BASE + ["--workload", "no-such-preset"], "unknown workload preset"),
    (BASE + ["--enable-chunked-prefill", "maybe"], "true or false"),
    (BASE + ["--max-tokens", "0"], "--max-tokens must be 'output', 'unset' or a positive integer"),
    (BASE + ["--max-tokens", "lots"], "--max-tokens must be"),
    (BASE + ["--max-model-len", "0"], "--max-model-len must be an integer from 1"),
    (BASE + ["--max-model-len", "100000"], "the model's max length 8192"),
    (["cost", "--prefill-tokens", "abc"], "invalid int"),
    (["cost", "--decode-batch", "1000000000"], "decode-batch"),
    (["cost", "--prefill-tokens", "10", "--tensor-parallel", "0"], "tensor-parallel"),
    (["paging", "--frames", "0", "--preset", "belady"], "frames"),
    (["paging", "--frames", "3", "--refs", "1,2,,3"], "page"),
    (["paging", "--frames", "3", "--refs", ",".join(["1"] * 501)], "500"),
    (["seed-demo", "--num-requests", "0"], "num_requests"),
    (["seed-demo", "--chunk", "17"], "chunk"),
    (["prefix-cache", "--trace", "chunkviz/data/azure_conv_sample.csv", "--capacity-blocks", "-5"], "capacity"),
])
def test_contradictory_and_malformed_values(capsys, argv, fragment):
    code, _, err = _run(capsys, argv)
    assert code == 2
    assert fragment.lower() in err.lower(), err
    assert "Traceback" not in err and err.strip().count("\n") == 0


def test_prompt_longer_than_kv_capacity_is_rejected_with_reason(capsys):
    code, out, err = _run(capsys, ["simulate", "--workload", "synthetic", "--num-requests", "2", "--prompt-tokens",
                                   "5000", "--length-dist", "fixed", "--num-gpu-blocks", "100", "--output-tokens", "4"])
    assert code == 0
    assert "rejected 2" in out and "KV blocks even alone" in out


def test_more_sequences_than_blocks_is_noted(capsys):
    code, _, err = _run(capsys, BASE + ["--num-gpu-blocks", "20", "--max-num-seqs", "64"])
    assert code == 0
    assert "at most 20 sequences" in err
