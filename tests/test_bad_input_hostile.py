"""Hostile-input catalogue (issue 16), CLI and loaders: every class of bad input the issue lists, each refused with
its exact message, exit status 2, one line on stderr, nothing on stdout and no file written.

Classes: nesting (deep JSON), digits (huge integers), types (torch_dtype, GPU name), size (/dev/zero, a 3 GB
file), memory (prefix blocks, prefix-study block ids, detailed runs' queues and block views), config (tensor
parallelism), unrepresentable figures (times beyond the clock's resolution, rate scales, subnormal or enormous hardware
and profile figures, capacity's rate bound and SLOs), address (Dask scheduler addresses: form, refused, silent, alien).
scripts/hostile_catalogue.py runs the same classes (and more) in memory-capped child processes.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from pathlib import Path

import pytest

from chunkviz.analysis.parallel import ADDRESS_FORM, CONNECT_TIMEOUT_S
from chunkviz.cli.main import main
from chunkviz.cost.catalogue import gpu_from_json, model_from_hf_config
from chunkviz.cost.profile import profile_from_json
from chunkviz.analysis.prefix_study import check_num_prompt_blocks, num_prompt_blocks
from chunkviz.errors import InputError
from chunkviz.inputs import MAX_JSON_DEPTH, parse_json, read_bounded, strict_dumps
from chunkviz.workloads.loaders import load_trace
from scripts.hostile_catalogue import (CAPACITY, DETAILED_1_TOKEN_BLOCKS, SWEEP, deep_json, mooncake_line,
                                       profile_json, silent_listener)

SIM = ["simulate", "--json", "--num-requests", "3", "--prompt-tokens", "64", "--output-tokens", "4"]
LLAMA = {"num_hidden_layers": 32, "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
         "intermediate_size": 14336, "vocab_size": 128256}
QWEN = {"num_hidden_layers": 28, "hidden_size": 3584, "num_attention_heads": 28, "num_key_value_heads": 4,
        "intermediate_size": 18944, "vocab_size": 152064}
SAMPLE = "chunkviz/data/azure_conv_sample.csv"
LIMIT_S = "the limit is 1e+08 s (about 3.2 years), where the simulator's clock still resolves 15 ns"


_deep, _mooncake = deep_json, mooncake_line  # the catalogue script's builders
_profile = profile_json  # one builder for the catalogue script and these tests


FILES = {
    "deep_model.json": '{"a": ' + _deep(5000) + "}",
    "deep_gpu.json": '{"peak_tflops": ' + _deep(100_000) + "}",
    "deep_profile.json": '{"format": ' + _deep(100_000) + "}",
    "deep_mooncake.jsonl": _mooncake(hash_ids=_deep(100_000)),
    "digits_mooncake.jsonl": _mooncake(timestamp="9" * 5000),
    "bigint_mooncake.jsonl": _mooncake(timestamp="1" + "0" * 400),
    "long_hash_id.jsonl": _mooncake(hash_ids="[" + "9" * 4000 + "]"),
    "late_mooncake.jsonl": _mooncake("0") + _mooncake("1e303"),
    "late.csv": "arrival_s,prompt_tokens,output_tokens\n0,64,4\n1e300,64,4\n",
    "dtype_list.json": json.dumps({**LLAMA, "torch_dtype": ["bfloat16"]}),
    "dtype_object.json": json.dumps({**LLAMA, "torch_dtype": {"a": 1}}),
    "bigint_model.json": '{"num_hidden_layers": 1' + "0" * 5000 + "}",
    "qwen.json": json.dumps(QWEN),
    "name_gpu.json": json.dumps({"peak_tflops": 900, "hbm_tb_per_s": 3, "memory_gb": 80, "name": {"x": 1}}),
    "subnormal_gpu.json": json.dumps({"peak_tflops": 5e-324, "hbm_tb_per_s": 5e-324, "memory_gb": 80}),
    "tiny_gpu.json": json.dumps({"peak_tflops": 900, "hbm_tb_per_s": 1e-300, "memory_gb": 80}),
    "huge_profile.json": _profile(1e300),
    "tiny_profile.json": _profile(5e-324),
    "long_prompts.csv": "arrival_s,prompt_tokens,output_tokens\n" + "".join(f"{i},1000000,4\n" for i in range(200)),
    "zero_layers.json": json.dumps({**LLAMA, "num_hidden_layers": 0}),
    "empty_name_gpu.json": json.dumps({"peak_tflops": 900, "hbm_tb_per_s": 3, "memory_gb": 80, "name": ""}),
    "many_blocks.jsonl": "".join(_mooncake(str(i), "[" + ",".join(map(str, range(1954))) + "]", 1_000_000)
                                 for i in range(520)),
}

# (argv with {name} for files, exact message after "chunkviz CMD: error: ")
CASES = [
    ("nesting", SIM + ["--model-spec", "{deep_model.json}"],
     "model config.json nests arrays or objects more than 32 levels deep (the limit)"),
    ("nesting", SIM + ["--gpu-spec", "{deep_gpu.json}"],
     "GPU JSON nests arrays or objects more than 32 levels deep (the limit)"),
    ("nesting", SIM + ["--profile", "{deep_profile.json}"],
     "cost profile nests arrays or objects more than 32 levels deep (the limit)"),
    ("nesting", SIM + ["--trace", "{deep_mooncake.jsonl}"],
     "line 1 nests arrays or objects more than 32 levels deep (the limit)"),
    ("nesting", ["prefix-cache", "--capacity-blocks", "9", "--trace", "{deep_mooncake.jsonl}"],
     "line 1 nests arrays or objects more than 32 levels deep (the limit)"),
    ("digits", SIM + ["--trace", "{digits_mooncake.jsonl}"],
     "line 1: the integer 999999999999… has 5,000 digits; the limit is 19"),
    ("digits", SIM + ["--trace", "{bigint_mooncake.jsonl}"],
     "line 1: the integer 100000000000… has 401 digits; the limit is 19"),
    ("digits", ["prefix-cache", "--capacity-blocks", "9", "--trace", "{long_hash_id.jsonl}"],
     "line 1: the integer 999999999999… has 4,000 digits; the limit is 19"),
    ("digits", SIM + ["--model-spec", "{bigint_model.json}"],
     "model config.json: the integer 100000000000… has 5,001 digits; the limit is 19"),
    ("types", SIM + ["--model-spec", "{dtype_list.json}"],
     "model config.json: torch_dtype must be a string, one of bfloat16, float16, float32, fp8, float8_e4m3fn; "
     "got a JSON array"),
    ("types", SIM + ["--model-spec", "{dtype_object.json}"],
     "model config.json: torch_dtype must be a string, one of bfloat16, float16, float32, fp8, float8_e4m3fn; "
     "got a JSON object"),
    ("types", SIM + ["--gpu-spec", "{name_gpu.json}"], "GPU JSON: 'name' must be a string, got a JSON object"),
    ("types", SIM + ["--model-spec", "{zero_layers.json}"],
     "model config.json: 'num_hidden_layers' must be a positive integer, got 0"),
    ("types", SIM + ["--gpu-spec", "{empty_name_gpu.json}"],
     "GPU JSON: 'name' must be a non-empty string (the GPU's name, e.g. \"H100\"), got an empty string"),
    ("size", SIM + ["--trace", "/dev/zero"], "trace file /dev/zero holds more than 50.0 MB, the limit"),
    ("size", SIM + ["--model-spec", "/dev/zero"], "--model-spec /dev/zero holds more than 1,000,000 bytes, the limit"),
    ("size", SIM + ["--gpu-spec", "/dev/zero"], "--gpu-spec /dev/zero holds more than 1,000,000 bytes, the limit"),
    ("size", SIM + ["--profile", "/dev/zero"], "--profile /dev/zero holds more than 2,000,000 bytes, the limit"),
    ("size", ["prefix-cache", "--capacity-blocks", "9", "--trace", "/dev/zero"],
     "trace file /dev/zero holds more than 50.0 MB, the limit"),
    ("size", SIM + ["--trace", "{sparse.csv}"], "trace file {sparse.csv} is 3221.2 MB; the limit is 50.0 MB"),
    ("size", SIM + ["--model-spec", "{sparse.csv}"],
     "--model-spec {sparse.csv} is 3221.2 MB; the limit is 1,000,000 bytes"),
    ("memory", ["prefix-cache", "--capacity-blocks", "9", "--trace", "{many_blocks.jsonl}"],
     "line 512: the trace declares more than 1,000,000 prefix blocks (hash_ids or prefix_ids), the limit that keeps "
     "a replay within memory; cut it to a time window first"),
    ("memory", SIM[:2] + ["--workload", "synthetic", "--num-requests", "20000", "--qps", "1000", "--prompt-tokens", "64", "--output-tokens",
                          "2000", "--length-dist", "fixed"],
     "a detailed run records every queued sequence at every step, and this one passed the limit of 3,000,000 "
     "(steps x queued sequences); use fewer requests or a lower load, or run without the detailed trace "
     "(no --trace-out)"),
    ("memory", ["prefix-cache", "--capacity-blocks", "10", "--block-tokens", "1", "--trace", "{long_prompts.csv}"],
     "--block-tokens 1: the prompts (200,000,000 tokens) cut into 200,000,000 prefix block ids, over the limit of "
     "1,000,000; use larger blocks (at least 200 tokens) or fewer requests"),
    ("memory", ["prefix-cache", "--capacity-blocks", "10", "--block-tokens", "0", "--trace", "{long_prompts.csv}"],
     "--block-tokens must be a whole number of tokens >= 1, got 0"),
    ("memory", ["simulate", *DETAILED_1_TOKEN_BLOCKS],
     "a detailed run lists every touched KV block at every step, and this one passed the limit of 2,000,000 block "
     "views (steps x blocks, caches of up to 4,096 blocks); use larger or fewer blocks (--block-size, "
     "--num-gpu-blocks), fewer requests, or run without the detailed trace (no --trace-out)"),
    ("config", SIM + ["--model", "qwen2.5-7b", "--tensor-parallel", "8"],
     "tensor_parallel=8 must divide the model's 28 attention heads (vLLM's rule); divisors up to 64: "
     "1, 2, 4, 7, 14, 28"),
    ("config", SIM + ["--model-spec", "{qwen.json}", "--tensor-parallel", "8"],
     "tensor_parallel=8 must divide the model's 28 attention heads (vLLM's rule); divisors up to 64: "
     "1, 2, 4, 7, 14, 28"),
    ("config", SIM + ["--tensor-parallel", "64"],
     "tensor_parallel=64 must divide the model's 32 attention heads (vLLM's rule); divisors up to 64: "
     "1, 2, 4, 8, 16, 32"),
    ("config", ["cost", "--json", "--prefill-tokens", "512", "--tensor-parallel", "3"],
     "--tensor-parallel 3 must divide the model's 32 attention heads (vLLM's rule); divisors up to 64: "
     "1, 2, 4, 8, 16, 32"),
    ("config", ["cost", "--json", "--prefill-tokens", "512", "--model", "qwen2.5-7b", "--tensor-parallel", "8"],
     "--tensor-parallel 8 must divide the model's 28 attention heads (vLLM's rule); divisors up to 64: "
     "1, 2, 4, 7, 14, 28"),
    ("figures", SIM + ["--trace", "{late.csv}"],
     f"the trace spans 1e+300 s from its first to its last arrival; {LIMIT_S}"),
    ("figures", SIM + ["--trace", "{late_mooncake.jsonl}"],
     f"the trace spans 1e+300 s from its first to its last arrival; {LIMIT_S}"),
    ("figures", SIM + ["--trace", SAMPLE, "--rate-scale", "1e308"],
     "rate scale must be from 1e-06 to 1e+06, got 1e+308"),
    ("figures", SIM + ["--trace", SAMPLE, "--rate-scale", "1e-300"],
     "rate scale must be from 1e-06 to 1e+06, got 1e-300"),
    ("figures", SIM + ["--qps", "1e-300"], f"request 1: arrival_s is 1.0196e+300 s; {LIMIT_S}"),
    ("figures", SIM + ["--profile", "{huge_profile.json}"],
     "cost profile: 'prefill[0].median_s' must be from 1e-09 to 3600, got 1e+300"),
    ("figures", SIM + ["--profile", "{tiny_profile.json}"],
     "cost profile: 'prefill[0].median_s' must be from 1e-09 to 3600, got 5e-324"),
    ("figures", SIM + ["--gpu-spec", "{subnormal_gpu.json}"],
     "GPU JSON: 'peak_tflops' must be a number from 0.01 to 100000, got 5e-324"),
    ("figures", SIM + ["--gpu-spec", "{tiny_gpu.json}"],
     "GPU JSON: 'hbm_tb_per_s' must be a number from 0.001 to 1000, got 1e-300"),
    ("figures", CAPACITY + ["--qps-max", "20000"],
     "need 0 < --qps-min < --qps-max <= 10000 for a generated workload (a loaded trace goes to 100000), "
     "got --qps-min 0.25 and --qps-max 20000"),
    ("figures", CAPACITY[:3] + ["--slo-tbt-p99-ms", "5e-324"],
     "--slo-tbt-p99-ms must be a number of milliseconds from 1e-06 to 3600000, got 5e-324"),
    ("figures", CAPACITY + ["--slo-ttft-p50-ms", "5e-324"],
     "--slo-ttft-p50-ms must be a number of milliseconds from 1e-06 to 3600000, got 5e-324"),
    *[("address", argv + ["--scheduler-address", address],
       f"--scheduler-address must be {ADDRESS_FORM}, got '{address}'")
      for argv in (SWEEP, CAPACITY)
      for address in ("tls://127.0.0.1:1", "ucx://127.0.0.1:1", "inproc://nothing-here", "tcp://127.0.0.1:http",
                      "tcp://127.0.0.1:70000", "tcp://127.0.0.1", "127.0.0.1:8786")],
]


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("hostile")
    paths = {}
    for name, text in FILES.items():
        (folder / name).write_text(text)
        paths[name] = str(folder / name)
    sparse = folder / "sparse.csv"
    with open(sparse, "wb") as fh:
        fh.truncate(3 * 2**30)  # holes: instant to make, and must be refused by size before any read
    paths["sparse.csv"] = str(sparse)
    return paths


def _fill(text: str, files: dict[str, str]) -> str:
    for name, path in files.items():
        text = text.replace("{" + name + "}", path)
    return text


@pytest.mark.parametrize("cls, argv, message", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_hostile_input_is_refused_with_its_message(capsys, tmp_path, files, cls, argv, message):
    argv = [_fill(arg, files) for arg in argv]
    out_file = tmp_path / "trace.json"
    if argv[0] == "simulate":
        argv = argv + ["--trace-out", str(out_file)]
    code = main(argv)
    captured = capsys.readouterr()
    assert code == 2
    assert captured.err == f"chunkviz {argv[0]}: error: {_fill(message, files)}\n"
    assert captured.out == ""
    assert not out_file.exists()  # nothing written


def test_every_class_of_the_issue_is_covered():
    assert {c[0] for c in CASES} == {"nesting", "digits", "types", "size", "memory", "config", "figures",
                                     "address"}


@pytest.mark.parametrize("command", [SWEEP, CAPACITY])
def test_a_refused_scheduler_port_fails_at_once(capsys, command):
    started = time.monotonic()
    assert main(command + ["--scheduler-address", "tcp://127.0.0.1:1"]) == 2  # loopback port 1: nothing listens
    assert capsys.readouterr().err == (f"chunkviz {command[0]}: error: --scheduler-address tcp://127.0.0.1:1: could "
                                       "not reach a Dask scheduler there (Connection refused)\n")
    assert time.monotonic() - started < 2  # was 10 s: distributed retries a refused port until its timeout


def test_a_silent_scheduler_port_fails_within_the_connect_timeout(capsys):
    # A port that accepts but never speaks: distributed reads the handshake with no timeout and waited forever.
    with silent_listener() as address:
        started = time.monotonic()
        assert main(SWEEP + ["--scheduler-address", address]) == 2
        elapsed_s = time.monotonic() - started
    assert capsys.readouterr().err == (f"chunkviz sweep: error: --scheduler-address {address}: no Dask scheduler "
                                       f"answered there within {CONNECT_TIMEOUT_S} s\n")
    assert CONNECT_TIMEOUT_S <= elapsed_s < CONNECT_TIMEOUT_S + 2


def test_a_port_speaking_something_else_is_not_taken_for_a_scheduler(capsys):
    # A server that greets first with bytes no Dask frame starts with (an HTTP server's reply, say): distributed took
    # them for a frame length and tried to allocate exabytes (numpy MemoryError traceback).
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        address = f"tcp://127.0.0.1:{server.getsockname()[1]}"
        greeter = threading.Thread(target=lambda: server.accept()[0].sendall(b"HTTP/1.0 400 Bad request\r\n\r\n"))
        greeter.start()
        assert main(SWEEP + ["--scheduler-address", address]) == 2
        greeter.join(timeout=5)
    assert capsys.readouterr().err == (f"chunkviz sweep: error: --scheduler-address {address}: something answered "
                                       "there, but not a Dask scheduler (is the port right? a scheduler listens on "
                                       "8786 by default)\n")


def test_the_prefix_study_counts_block_ids_from_prompt_lengths():
    requests = load_trace(FILES["long_prompts.csv"].encode(), "csv").requests
    assert num_prompt_blocks(requests[:1], 3) == 333_334  # 1,000,000 tokens: 333,333 full blocks and a partial one
    check_num_prompt_blocks(requests[:1], 1)  # exactly at the limit: allowed
    with pytest.raises(InputError, match="block size 1: the prompts .2,000,000 tokens. cut into 2,000,000"):
        check_num_prompt_blocks(requests[:2], 1)


@pytest.mark.parametrize("loader", [model_from_hf_config, gpu_from_json, profile_from_json])
def test_spec_loaders_refuse_deep_nesting_without_recursion(loader):
    data = ("{" + "\"a\": " + _deep(200_000) + "}").encode()  # 400 KB: under every size limit
    with pytest.raises(InputError, match="more than 32 levels deep"):
        loader(data)


def test_the_gate_counts_depth_outside_strings_only():
    assert parse_json('{"a": "' + "[" * 500 + '"}', "x") == {"a": "[" * 500}
    assert parse_json(_deep(MAX_JSON_DEPTH), "x") is not None
    with pytest.raises(InputError, match="32 levels"):
        parse_json(_deep(MAX_JSON_DEPTH + 1), "x")


def test_the_gate_reads_a_device_only_up_to_the_limit():
    with pytest.raises(InputError, match="holds more than 1,000 bytes, the limit"):
        read_bounded("/dev/zero", 1000, "spec")
    assert read_bounded(b"abc", 3, "x") == b"abc"


def test_uploaded_trace_bytes_go_through_the_same_gate():
    with pytest.raises(InputError, match="line 1: the integer 999999999999… has 5,000 digits; the limit is 19"):
        load_trace(FILES["digits_mooncake.jsonl"].encode(), "mooncake")


def test_strict_json_refuses_nan_and_names_the_field():
    with pytest.raises(InputError, match=r"^the result cannot be represented: ttft_s.mean is not a finite number"):
        strict_dumps({"ttft_s": {"mean": float("nan")}, "ok": 1.0})
    assert strict_dumps({"a": 1.5}) == '{"a": 1.5}'


def test_legitimate_tensor_parallel_still_runs(capsys):
    assert main(SIM + ["--model", "qwen2.5-7b", "--tensor-parallel", "4"]) == 0
    out = capsys.readouterr().out
    assert json.loads(out)["num_finished"] == 3 and "NaN" not in out


def test_written_trace_is_strict_json(tmp_path, capsys):
    out_file = tmp_path / "t.json"
    assert main(SIM + ["--trace-out", str(out_file)]) == 0
    json.loads(out_file.read_text(), parse_constant=lambda name: pytest.fail(f"{name} in the trace JSON"))
    assert Path(out_file).stat().st_size > 0
