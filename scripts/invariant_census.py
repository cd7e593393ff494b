"""Invariant census (issue 16): N generated engine cases, how many break an invariant, by invariant.

Uses the generator and checks of tests/engine_cases.py (every policy, prefix caching, eviction and allocation
modes, block sizes, tiny caches, n > 1, shared prefixes, tensor parallelism), including the two checks the
`policies` branch fixes (max_num_seqs counting samples, monolithic/static never chunking).

    .venv/bin/python scripts/invariant_census.py --cases 2000        # on this checkout
    cd OTHER_CHECKOUT && python /path/to/scripts/invariant_census.py  # the census of another checkout
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter

import importlib.util
from pathlib import Path

sys.path.insert(0, os.getcwd())  # chunkviz comes from the checkout under test, the working directory

from hypothesis import HealthCheck, given, seed as fixed_seed, settings  # noqa: E402

from chunkviz.errors import InputError, SimulationLimitError  # noqa: E402
from chunkviz.simulator.engine import simulate  # noqa: E402

# The generator and checks come from this script's own checkout, so two checkouts are judged by the same rules.
_SPEC = importlib.util.spec_from_file_location("engine_cases", Path(__file__).resolve().parents[1] / "tests" /
                                               "engine_cases.py")
_CASES = importlib.util.module_from_spec(_SPEC)
sys.modules["engine_cases"] = _CASES  # dataclasses look their module up by name
_SPEC.loader.exec_module(_CASES)
cases, violations = _CASES.cases, _CASES.violations
max_num_seqs_violations, monolithic_violations = _CASES.max_num_seqs_violations, _CASES.monolithic_violations
sglang_violations = _CASES.sglang_violations


def census(num_cases: int, seed: int) -> dict[str, object]:
    tally: Counter[str] = Counter()
    counts = {"cases": 0, "refused_by_config": 0, "violating_cases": 0}

    @fixed_seed(seed)  # the same N cases on every checkout
    @settings(max_examples=num_cases, deadline=None, database=None, phases=("generate",),
              suppress_health_check=list(HealthCheck))
    @given(case=cases())
    def run(case):
        counts["cases"] += 1
        try:
            trace = simulate(case.config, case.requests)
            found = violations(case, trace) + max_num_seqs_violations(case, trace) + monolithic_violations(case, trace)
            found += sglang_violations(case, trace)
        except SimulationLimitError:
            found = ["livelock: step limit reached"]
        except InputError:  # refused with a message, as engines refuse some settings: not a violation
            counts["refused_by_config"] += 1
            return
        names = {line.split(":", 1)[0] for line in found}
        tally.update(names)
        counts["violating_cases"] += bool(names)

    run()
    return {**counts, "by_invariant": dict(sorted(tally.items()))}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(json.dumps(census(args.cases, args.seed)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
