"""Prints (or with --write, stores) the sha256 of the trace JSON of the default scenarios, one per preset × policy.

The trace JSON comes from the CLI (`simulate --trace-out`), so the same script runs on any revision of the tree;
tests/test_golden_traces.py compares today's bytes with tests/golden/trace_sha256.json. Regenerate the file only
for a change that is meant to alter traces, and say so in the commit.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden" / "trace_sha256.json"
POLICIES = ("monolithic", "vllm-nochunk", "chunked", "sarathi", "sglang", "trtllm", "static")
# vLLM refuses a budget below max_model_len without chunked prefill: these run with the engine's default budget.
NO_BUDGET_FLAG = ("monolithic", "vllm-nochunk")
SCENARIOS: dict[str, list[str]] = {
    "long-among-chats": ["--workload", "long-among-chats", "--num-requests", "24", "--qps", "16",
                         "--prompt-tokens", "300", "--output-tokens", "32", "--max-num-batched-tokens", "512"],
    "shared-system-prompt": ["--workload", "shared-system-prompt", "--num-requests", "16", "--qps", "8",
                             "--prompt-tokens", "512", "--output-tokens", "16", "--enable-prefix-caching",
                             "--max-num-batched-tokens", "512"],
    # Prefix caching left to each engine's default (on for vLLM V1, SGLang, TensorRT-LLM): V1's child requests share
    # their prompt only through it.
    "parallel-sampling": ["--workload", "parallel-sampling", "--num-requests", "8", "--qps", "8",
                          "--prompt-tokens", "512", "--output-tokens", "16", "--n-samples", "3",
                          "--max-num-batched-tokens", "512"],
    "tiny-cache-preemption": ["--workload", "synthetic", "--num-requests", "16", "--qps", "50",
                              "--prompt-tokens", "200", "--output-tokens", "64", "--num-gpu-blocks", "40",
                              "--max-num-batched-tokens", "256"],
}


# The same scenarios with every engine's CUDA graphs and overlap scheduling switched off: their hashes are the
# traces of every policy from before steps were priced as the engines run them (issue 23, cost/step_pricing.py),
# kept to show that these switches restore the old price exactly.
EAGER_PREFIX = "eager-no-overlap:"
EAGER_FLAGS = ("--enforce-eager", "--no-async-scheduling")
EAGER_SCENARIOS = ("long-among-chats", "tiny-cache-preemption")


def trace_sha256(name: str, policy: str) -> str:
    """`name` is a scenario, or EAGER_PREFIX + scenario for the run with graphs and overlap off."""
    extra = EAGER_FLAGS if name.startswith(EAGER_PREFIX) else ()
    name = name.removeprefix(EAGER_PREFIX)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "trace.json"
        cmd = [sys.executable, "-m", "chunkviz", "simulate", *_flags(name, policy), "--policy", policy, *extra,
               "--trace-out", str(out)]
        subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, text=True)
        return hashlib.sha256(out.read_bytes()).hexdigest()


def _flags(name: str, policy: str) -> list[str]:
    flags = list(SCENARIOS[name])
    if policy in NO_BUDGET_FLAG:
        index = flags.index("--max-num-batched-tokens")
        del flags[index:index + 2]
    return flags


def all_keys() -> list[str]:
    names = [*SCENARIOS, *(EAGER_PREFIX + name for name in EAGER_SCENARIOS)]
    return [f"{name}/{policy}" for name in names for policy in POLICIES]


def all_hashes() -> dict[str, str]:
    return {key: trace_sha256(*key.split("/")) for key in all_keys()}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true", help="store the hashes as the new golden file")
    args = parser.parse_args()
    hashes = all_hashes()
    print(json.dumps(hashes, indent=1, sort_keys=True))
    if args.write:
        GOLDEN.write_text(json.dumps(hashes, indent=1, sort_keys=True) + "\n")
