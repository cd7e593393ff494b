"""Golden traces: the trace JSON of the default scenarios (every preset × policy in scripts/golden_traces.py) is
byte-identical to the stored hashes, first taken before the package restructure; a change meant to alter traces
regenerates them (`python scripts/golden_traces.py --write`) and says so in its commit. The eager, no-overlap
entries run every step eagerly without overlap under each engine's host model (issue 36: scheduling, input
preparation and launches; the fixed step_overhead_s of before step pricing, issue 23, is gone)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import golden_traces  # noqa: E402

GOLDEN = json.loads(golden_traces.GOLDEN.read_text())


@pytest.mark.parametrize("key", sorted(GOLDEN))
def test_trace_json_is_byte_identical_to_the_golden_hash(key):
    name, policy = key.split("/")
    assert golden_traces.trace_sha256(name, policy) == GOLDEN[key]


def test_golden_file_covers_every_scenario_and_policy():
    assert set(GOLDEN) == set(golden_traces.all_keys())


def test_graphs_and_overlap_off_change_only_the_engines_that_have_them():
    """Switching graphs and overlap off changes the trace of exactly the engines that ship them on (vLLM V0's
    decode graphs, V1's, SGLang's and TensorRT-LLM's graphs and overlap); the research systems run eagerly anyway."""
    changed = {"chunked", "vllm-nochunk", "monolithic", "sglang", "trtllm"}
    for name in golden_traces.EAGER_SCENARIOS:
        for policy in golden_traces.POLICIES:
            eager, default = GOLDEN[f"{golden_traces.EAGER_PREFIX}{name}/{policy}"], GOLDEN[f"{name}/{policy}"]
            assert (eager != default) == (policy in changed), (name, policy)
