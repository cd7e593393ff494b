"""Generated-workload property test of the engine (issue 16): every policy in the registry, prefix caching,
eviction and allocation modes, block sizes, tiny caches that force preemption, n > 1, shared prefixes and tensor
parallelism; the invariants are checked after every step and at the end (tests/engine_cases.py lists them).

500 examples in CI; `CHUNKVIZ_INVARIANT_EXAMPLES=3000 pytest -m slow tests/test_engine_invariants.py` runs that many
more with a random seed. Three policy rules are separate tests, each on its own generated cases: samples count
against max_num_seqs at admission, a policy that does not chunk never chunks (under any threshold), and SGLang
without mixed chunks never mixes (a re-admitted sequence whose whole context is cached again recomputes only its last
token, which counts as its prefill: tests/engine_cases.step_phases).
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings

from chunkviz.errors import InputError
from chunkviz.simulator.engine import simulate
from tests.engine_cases import (Case, cases, max_num_seqs_violations, monolithic_violations, sglang_violations,
                                violations)

CI_EXAMPLES = 500
SLOW_EXAMPLES = int(os.environ.get("CHUNKVIZ_INVARIANT_EXAMPLES", "0"))
_SETTINGS = dict(deadline=None, derandomize=True, database=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _run(case: Case):
    """The trace, or None when the engine refuses the configuration with a message (InputError), as engines do."""
    try:
        return simulate(case.config, case.requests)
    except InputError:
        return None


def _check(case: Case) -> None:
    trace = _run(case)
    if trace is None:
        return
    assert violations(case, trace) == []
    assert simulate(case.config, case.requests) == trace  # same inputs, same trace


@settings(max_examples=CI_EXAMPLES, **_SETTINGS)
@given(case=cases())
def test_engine_invariants_hold_on_generated_workloads(case):
    _check(case)


@pytest.mark.slow
@pytest.mark.skipif(SLOW_EXAMPLES < 1, reason="a slow run: set CHUNKVIZ_INVARIANT_EXAMPLES=3000 (random seed)")
@settings(max_examples=max(SLOW_EXAMPLES, 1), **{**_SETTINGS, "derandomize": False})
@given(case=cases())
def test_engine_invariants_hold_on_many_more_workloads(case):
    _check(case)


@settings(max_examples=200, **_SETTINGS)
@given(case=cases())
def test_every_sample_counts_against_max_num_seqs(case):
    trace = _run(case)
    assert trace is None or max_num_seqs_violations(case, trace) == []


@settings(max_examples=200, **_SETTINGS)
@given(case=cases())
def test_monolithic_never_chunks_a_prompt(case):
    trace = _run(case)
    assert trace is None or monolithic_violations(case, trace) == []


@settings(max_examples=200, **_SETTINGS)
@given(case=cases())
def test_sglang_prefill_first_steps_carry_no_decodes(case):
    trace = _run(case)
    assert trace is None or sglang_violations(case, trace) == []
