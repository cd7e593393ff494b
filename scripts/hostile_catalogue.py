"""Hostile-input catalogue (issue 16): try every class of bad input against the CLI and count unclean outcomes.

Each case runs `python -m chunkviz ...` in a child process with a memory cap (1.5 GiB) and a time limit, then is
classed: clean = the expected exit (2 with one error line, or 0 for a legitimate input) and no traceback, no
NaN/Infinity in the output, no numpy warning, no file written when refused. Anything else is unclean:
traceback, NaN, hang (time limit), memory error, or silent acceptance (exit 0 where a refusal was due).

    .venv/bin/python scripts/hostile_catalogue.py            # prints one line per case and the totals
    .venv/bin/python scripts/hostile_catalogue.py --json     # the totals as JSON
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parents[1]
MEMORY_CAP_BYTES = 1536 * 2**20
TIME_LIMIT_S = 60

LLAMA_CONFIG = {"num_hidden_layers": 32, "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
                "intermediate_size": 14336, "vocab_size": 128256}
GPU = {"peak_tflops": 989, "hbm_tb_per_s": 3.35, "memory_gb": 80}
SIM = ["simulate", "--json", "--num-requests", "3", "--prompt-tokens", "64", "--output-tokens", "4"]


def deep_json(depth: int) -> str:
    """JSON arrays nested `depth` levels (the gate allows 32)."""
    return "[" * depth + "]" * depth


def profile_json(median_s: float) -> str:
    """A valid one-point cost profile whose prefill median is `median_s`."""
    model = {"model_id": "m", "source": "s", "num_layers": 2, "hidden_size": 512, "num_heads": 8, "num_kv_heads": 8,
             "intermediate_size": 1024, "vocab_size": 1000, "bytes_per_param": 4, "max_model_len_tokens": 8192}
    hw = {"gpu_id": "g", "source": "s", "peak_flops_per_s": 1e12, "hbm_bytes_per_s": 1e11, "memory_bytes": 1e10,
          "interconnect_bytes_per_s": 1e9}
    point = {"context_tokens": 0, "median_s": median_s, "p10_s": median_s, "p90_s": median_s}
    return json.dumps({"format": "chunkviz-cost-profile", "version": 1, "device": "cpu", "device_name": "x",
                       "dtype": "float32", "model": model, "use_rope": True, "hardware": hw, "versions": {},
                       "check": {"max_abs_diff": 0.0, "tolerance": 1e-3},
                       "timing": {"method": "perf_counter", "num_warmup": 0, "num_repeats": 1},
                       "prefill": [{"chunk_tokens": 64, **point}], "decode": [{"batch_size": 1, **point}]})


def mooncake_line(timestamp: str = "0", hash_ids: str = "[1]", length: int = 100) -> str:
    """One Mooncake JSONL line with the given raw timestamp and hash_ids text."""
    return f'{{"timestamp": {timestamp}, "input_length": {length}, "output_length": 4, "hash_ids": {hash_ids}}}\n'


def _files(tmp: Path) -> dict[str, Path]:
    """Every bad file a case may name, written once."""
    texts = {
        "deep_model.json": '{"a": ' + deep_json(100_000) + "}",
        "deep_gpu.json": '{"peak_tflops": ' + deep_json(100_000) + "}",
        "deep_profile.json": '{"format": ' + deep_json(100_000) + "}",
        "deep_mooncake.jsonl": mooncake_line(hash_ids=deep_json(100_000)),
        "digits_mooncake.jsonl": mooncake_line(timestamp="9" * 5000),
        "bigint_mooncake.jsonl": mooncake_line(timestamp="1" + "0" * 400),
        "bigfloat_mooncake.jsonl": mooncake_line(timestamp="1e400"),
        "late_mooncake.jsonl": mooncake_line("0") + mooncake_line("1e303"),
        "late.csv": "arrival_s,prompt_tokens,output_tokens\n0,64,4\n1e300,64,4\n",
        "late_hash_mooncake.jsonl": mooncake_line(hash_ids="[" + "9" * 4000 + "]"),
        "dtype_list.json": json.dumps({**LLAMA_CONFIG, "torch_dtype": ["bfloat16"]}),
        "dtype_dict.json": json.dumps({**LLAMA_CONFIG, "torch_dtype": {"a": 1}}),
        "bigint_model.json": '{"num_hidden_layers": 1' + "0" * 5000 + "}",
        "heads_qwen.json": json.dumps({"num_hidden_layers": 28, "hidden_size": 3584, "num_attention_heads": 28,
                                       "num_key_value_heads": 4, "intermediate_size": 18944, "vocab_size": 152064}),
        "subnormal_gpu.json": json.dumps({"peak_tflops": 5e-324, "hbm_tb_per_s": 5e-324, "memory_gb": 80}),
        "tiny_gpu.json": json.dumps({"peak_tflops": 1e-300, "hbm_tb_per_s": 1e-300, "memory_gb": 80}),
        "huge_gpu.json": json.dumps({"peak_tflops": 1e308, "hbm_tb_per_s": 1e308, "memory_gb": 1e308}),
        "inf_gpu.json": '{"peak_tflops": Infinity, "hbm_tb_per_s": 1, "memory_gb": 80}',
        "name_gpu.json": json.dumps({**GPU, "name": {"x": [1, 2]}}),
        "huge_profile.json": profile_json(1e300),
        "tiny_profile.json": profile_json(5e-324),
        "nan_profile.json": profile_json(1.0).replace('"median_s": 1.0', '"median_s": NaN', 1),
        "many_hash_mooncake.jsonl": "".join(
            mooncake_line(str(i), "[" + ",".join(str(i * 2000 + j) for j in range(1954)) + "]", 1_000_000)
            for i in range(1300)),
        "long_prompts.csv": "arrival_s,prompt_tokens,output_tokens\n" + "".join(f"{i},1000000,4\n" for i in range(200)),
        "zero_layers.json": json.dumps({**LLAMA_CONFIG, "num_hidden_layers": 0}),
        "empty_name_gpu.json": json.dumps({**GPU, "name": ""}),
        "bom_only.csv": "\ufeff",
        "nul.csv": "arrival_s,prompt_tokens,output_tokens\n0,64\x00,4\n",
    }
    paths = {}
    for name, text in texts.items():
        paths[name] = tmp / name
        paths[name].write_text(text)
    sparse = tmp / "huge_sparse.csv"
    with open(sparse, "wb") as fh:
        fh.truncate(3 * 2**30)  # 3 GiB of holes: instant to make, refused by size before reading
    paths["huge_sparse.csv"] = sparse
    return paths


# Contents every file-reading flag is fed (class, name, text); each must be refused with one line.
GENERIC_BAD = [
    ("nesting", "nested 100,000 deep", '{"x": ' + deep_json(100_000) + "}"),
    ("nesting", "nested 40 deep", '{"x": ' + deep_json(40) + "}"),
    ("digits", "a 5,000-digit integer", '{"x": ' + "7" * 5000 + "}"),
    ("digits", "an integer of 10^400", '{"x": 1' + "0" * 400 + "}"),
    ("nan", "NaN literal", '{"x": NaN}'),
    ("nan", "1e400 literal", '{"x": 1e400}'),
    ("types", "a top-level array", "[1, 2, 3]"),
    ("types", "a top-level string", '"config"'),
    ("size", "empty", ""),
    ("size", "whitespace only", "   \n\n  "),
    ("encoding", "Latin-1 bytes", "caf\xe9"),
    ("encoding", "NUL bytes", "\x00" * 64),
]
FILE_FLAGS = [("simulate --model-spec", SIM + ["--model-spec"]), ("simulate --gpu-spec", SIM + ["--gpu-spec"]),
              ("simulate --profile", SIM + ["--profile"]), ("simulate --trace", SIM + ["--trace"]),
              ("prefix-cache --trace", ["prefix-cache", "--capacity-blocks", "10", "--json", "--trace"])]


def generic_cases(tmp: Path) -> list[tuple[str, str, list[str], int]]:
    """Every file-reading flag x every generic bad content."""
    found = []
    for i, (cls, name, text) in enumerate(GENERIC_BAD):
        path = tmp / f"generic_{i}.json"
        path.write_bytes(text.encode("latin-1") if cls == "encoding" else text.encode())
        found += [(cls, f"{flag}: {name}", argv + [str(path)], 2) for flag, argv in FILE_FLAGS]
    return found


SWEEP = ["sweep", "--budgets", "64", "--num-requests", "3"]
CAPACITY = ["capacity", "--num-requests", "3", "--slo-tbt-p99-ms", "100", "--max-rounds", "1"]
DETAILED_1_TOKEN_BLOCKS = ["--num-requests", "400", "--qps", "1000", "--prompt-tokens", "2000", "--output-tokens",
                           "200", "--num-gpu-blocks", "4096", "--block-size", "1", "--long-prefill-token-threshold", "1"]


def address_cases(silent_address: str) -> list[tuple[str, str, list[str], int]]:
    """--scheduler-address forms Dask would take or choke on, and a port that accepts but never answers."""
    bad = ["tls://127.0.0.1:1", "ucx://127.0.0.1:1", "inproc://nothing-here", "tcp://127.0.0.1:http",
           "tcp://127.0.0.1:70000", "tcp://127.0.0.1", "127.0.0.1:8786", "tcp://127.0.0.1:1", silent_address]
    found = [("address", f"sweep --scheduler-address {a}", SWEEP + ["--scheduler-address", a], 2) for a in bad]
    return found + [("address", f"capacity --scheduler-address {a}", CAPACITY + ["--scheduler-address", a], 2)
                    for a in ("tls://127.0.0.1:1", "tcp://127.0.0.1:1")]


def cases(f: dict[str, Path], out: Path, silent_address: str) -> list[tuple[str, str, list[str], int]]:
    """(class, name, argv, expected exit status)."""
    s = lambda *a: SIM + [str(x) for x in a]  # noqa: E731
    pc = lambda name: ["prefix-cache", "--trace", str(f[name]), "--capacity-blocks", "1000", "--json"]  # noqa: E731
    return [
        ("nesting", "deep model spec", s("--model-spec", f["deep_model.json"]), 2),
        ("nesting", "deep GPU spec", s("--gpu-spec", f["deep_gpu.json"]), 2),
        ("nesting", "deep profile", s("--profile", f["deep_profile.json"]), 2),
        ("nesting", "deep Mooncake line", s("--trace", f["deep_mooncake.jsonl"]), 2),
        ("nesting", "deep Mooncake line, prefix-cache", pc("deep_mooncake.jsonl"), 2),
        ("digits", "5,000-digit Mooncake timestamp", s("--trace", f["digits_mooncake.jsonl"]), 2),
        ("digits", "int too large for a float", s("--trace", f["bigint_mooncake.jsonl"]), 2),
        ("digits", "1e400 timestamp", s("--trace", f["bigfloat_mooncake.jsonl"]), 2),
        ("digits", "4,000-digit hash id", pc("late_hash_mooncake.jsonl"), 2),
        ("digits", "5,000-digit config int", s("--model-spec", f["bigint_model.json"]), 2),
        ("types", "torch_dtype list", s("--model-spec", f["dtype_list.json"]), 2),
        ("types", "torch_dtype object", s("--model-spec", f["dtype_dict.json"]), 2),
        ("types", "GPU name object", s("--gpu-spec", f["name_gpu.json"]), 2),
        ("size", "/dev/zero trace", s("--trace", "/dev/zero"), 2),
        ("size", "/dev/zero model spec", s("--model-spec", "/dev/zero"), 2),
        ("size", "/dev/zero GPU spec", s("--gpu-spec", "/dev/zero"), 2),
        ("size", "/dev/zero profile", s("--profile", "/dev/zero"), 2),
        ("size", "/dev/zero prefix-cache", ["prefix-cache", "--trace", "/dev/zero", "--capacity-blocks", "9"], 2),
        ("size", "3 GiB sparse trace", s("--trace", f["huge_sparse.csv"]), 2),
        ("size", "3 GiB sparse model spec", s("--model-spec", f["huge_sparse.csv"]), 2),
        ("size", "BOM-only trace", s("--trace", f["bom_only.csv"]), 2),
        ("size", "NUL in a trace cell", s("--trace", f["nul.csv"]), 2),
        ("memory", "2.5M hash ids in prefix-cache", pc("many_hash_mooncake.jsonl"), 2),
        ("memory", "--trace-out on a long detailed run",
         s("--workload", "synthetic", "--num-requests", 20000, "--qps", 1000, "--output-tokens", 2000,
           "--length-dist", "fixed",
           "--trace-out", out), 2),
        ("config", "TP 8 on Qwen2.5-7B (28 heads)", s("--model", "qwen2.5-7b", "--tensor-parallel", 8), 2),
        ("config", "TP 8 on a 28-head config.json", s("--model-spec", f["heads_qwen.json"], "--tensor-parallel", 8), 2),
        ("config", "TP 64 on Llama-3-8B (32 heads)", s("--tensor-parallel", 64), 2),
        ("config", "cost at TP 3", ["cost", "--prefill-tokens", "512", "--tensor-parallel", "3", "--json"], 2),
        ("config", "cost at TP 64", ["cost", "--prefill-tokens", "512", "--tensor-parallel", "64", "--json"], 2),
        ("config", "TP 4 on Llama-3-8B is fine", s("--tensor-parallel", 4), 0),
        ("nan", "arrivals at 1e300 s (CSV)", s("--trace", f["late.csv"]), 2),
        ("nan", "arrivals at 1e303 ms (Mooncake)", s("--trace", f["late_mooncake.jsonl"]), 2),
        ("nan", "--rate-scale 1e308", s("--trace", "chunkviz/data/azure_conv_sample.csv", "--rate-scale", "1e308"), 2),
        ("nan", "--rate-scale 1e-300",
         s("--trace", "chunkviz/data/azure_conv_sample.csv", "--rate-scale", "1e-300"), 2),
        ("nan", "profile median 1e300 s", s("--profile", f["huge_profile.json"]), 2),
        ("nan", "profile median 5e-324 s", s("--profile", f["tiny_profile.json"]), 2),
        ("nan", "profile median NaN", s("--profile", f["nan_profile.json"]), 2),
        ("nan", "subnormal GPU spec", s("--gpu-spec", f["subnormal_gpu.json"]), 2),
        ("nan", "1e-300 GPU spec", s("--gpu-spec", f["tiny_gpu.json"]), 2),
        ("nan", "1e308 GPU spec", s("--gpu-spec", f["huge_gpu.json"]), 2),
        ("nan", "Infinity in GPU spec", s("--gpu-spec", f["inf_gpu.json"]), 2),
        ("nan", "--qps 1e-300", s("--qps", "1e-300"), 2),
        ("nan", "--qps 1e300", s("--qps", "1e300"), 2),
        ("nan", "--step-overhead-ms 1e-320", s("--step-overhead-ms", "1e-320"), 0),
        ("nan", "--slo-ttft-ms 1e-300", s("--slo-ttft-ms", "1e-300"), 0),
        ("nan", "cost --step-overhead-ms nan", ["cost", "--prefill-tokens", "8", "--step-overhead-ms", "nan"], 2),
        ("nan", "cost --step-overhead-ms 1e300", ["cost", "--prefill-tokens", "8", "--step-overhead-ms", "1e300"], 2),
        ("memory", "prefix-cache: 200 prompts of 1M tokens in 1-token blocks",
         ["prefix-cache", "--trace", str(f["long_prompts.csv"]), "--capacity-blocks", "10", "--block-tokens", "1"], 2),
        ("memory", "prefix-cache --block-tokens 0",
         ["prefix-cache", "--trace", str(f["long_prompts.csv"]), "--capacity-blocks", "10", "--block-tokens", "0"], 2),
        ("memory", "detailed run of 1-token blocks, 4,096 of them", ["simulate", *DETAILED_1_TOKEN_BLOCKS,
                                                                     "--trace-out", str(out)], 2),
        ("figures", "capacity --qps-max 20000", CAPACITY + ["--qps-max", "20000"], 2),
        ("figures", "capacity --slo-tbt-p99-ms 5e-324", CAPACITY[:3] + ["--slo-tbt-p99-ms", "5e-324"], 2),
        ("figures", "capacity --slo-ttft-p50-ms 5e-324", CAPACITY + ["--slo-ttft-p50-ms", "5e-324"], 2),
        ("types", "config.json with 0 layers", s("--model-spec", f["zero_layers.json"]), 2),
        ("types", "GPU name empty", s("--gpu-spec", f["empty_name_gpu.json"]), 2),
        *address_cases(silent_address),
    ]


@contextlib.contextmanager
def silent_listener() -> Iterator[str]:
    """tcp://127.0.0.1:PORT of a loopback socket that accepts connections (the kernel's backlog) and never sends a
    byte: the server a Dask client would wait on forever."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        yield f"tcp://127.0.0.1:{sock.getsockname()[1]}"


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP_BYTES, MEMORY_CAP_BYTES))


def classify(argv: list[str], expected: int, out: Path, root: Path = ROOT) -> str:
    """'clean' or the kind of unclean outcome."""
    out.unlink(missing_ok=True)
    try:
        proc = subprocess.run([sys.executable, "-m", "chunkviz", *argv], cwd=root, capture_output=True, text=True,
                              timeout=TIME_LIMIT_S, preexec_fn=_limit_memory, env={**os.environ, "PYTHONHASHSEED": "0"})
    except subprocess.TimeoutExpired:
        return "hang"
    err, stdout = proc.stderr, proc.stdout
    if "MemoryError" in err or proc.returncode < 0:
        return "memory"
    if "Traceback" in err:
        return "traceback"
    if any(word in stdout for word in ("NaN", "Infinity", "nan ", " inf")) or "Warning" in err:
        return "nan"
    if proc.returncode != expected:
        return "accepted" if proc.returncode == 0 else f"exit {proc.returncode}"
    if expected == 2 and (len(err.strip().splitlines()) != 1 or out.exists()):
        return "untidy refusal"
    return "clean"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--only", default=None, help="run only cases whose class is this")
    parser.add_argument("--root", type=Path, default=ROOT, help="checkout to test (e.g. an older commit's worktree)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp_name, silent_listener() as silent_address:
        tmp = Path(tmp_name)
        out = tmp / "trace_out.json"
        outcomes = []
        for cls, name, argv, expected in cases(_files(tmp), out, silent_address) + generic_cases(tmp):
            if args.only and cls != args.only:
                continue
            outcome = classify(argv, expected, out, args.root)
            outcomes.append({"class": cls, "case": name, "outcome": outcome})
            if not args.json:
                print(f"{outcome:15} {cls:8} {name}", flush=True)
    unclean = [o for o in outcomes if o["outcome"] != "clean"]
    totals = {"tried": len(outcomes), "unclean": len(unclean)}
    print(json.dumps({**totals, "cases": outcomes}) if args.json else f"tried {totals['tried']}, "
          f"unclean {totals['unclean']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
