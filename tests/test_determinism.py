"""The same scenario in two fresh processes (different hash seeds) yields byte-identical trace JSON."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("extra", [
    ["--workload", "long-among-chats", "--policy", "chunked", "--max-num-batched-tokens", "512"],
    ["--workload", "shared-system-prompt", "--enable-prefix-caching", "--num-gpu-blocks", "300", "--eviction", "lfu"],
    ["--workload", "parallel-sampling", "--policy", "sglang", "--sglang-mixed-chunk"],
])
def test_trace_json_is_identical_across_processes(tmp_path, extra):
    outputs = []
    for hash_seed in ("1", "12345"):
        out = tmp_path / f"trace-{hash_seed}.json"
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        subprocess.run([sys.executable, "-m", "chunkviz", "simulate", "--num-requests", "24", "--qps", "8",
                        "--prompt-tokens", "200", "--output-tokens", "24", "--seed", "5", "--trace-out", str(out),
                        *extra], cwd=ROOT, env=env, check=True, capture_output=True)
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]
    assert len(outputs[0]) > 10_000
