"""Golden traces: the trace JSON of the default scenarios (every preset × policy in scripts/golden_traces.py) is
byte-identical to the stored hashes, first taken before the package restructure; a change meant to alter traces
regenerates them (`python scripts/golden_traces.py --write`) and says so in its commit."""

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
    assert set(GOLDEN) == {f"{n}/{p}" for n in golden_traces.SCENARIOS for p in golden_traces.POLICIES}
