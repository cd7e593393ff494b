"""Golden traces: the trace JSON of the default scenarios (every preset × policy in scripts/golden_traces.py) is
byte-identical to the stored hashes, first taken before the package restructure; a change meant to alter traces
regenerates them (`python scripts/golden_traces.py --write`) and says so in its commit. The eager, no-overlap
entries are the traces from before step pricing (issue 23)."""

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


def test_graphs_and_overlap_off_keep_the_traces_from_before_step_pricing():
    """The eager, no-overlap hashes were not regenerated with step pricing (issue 23): they are the traces every
    policy gave when each step paid the fixed step_overhead_s, so switching both off restores that price exactly;
    for the engines that have graphs or overlap on by default, the default trace differs."""
    changed = {"chunked", "vllm-nochunk", "monolithic", "sglang", "trtllm"}
    for name in golden_traces.EAGER_SCENARIOS:
        for policy in golden_traces.POLICIES:
            eager, default = GOLDEN[f"{golden_traces.EAGER_PREFIX}{name}/{policy}"], GOLDEN[f"{name}/{policy}"]
            assert (eager != default) == (policy in changed), (name, policy)
