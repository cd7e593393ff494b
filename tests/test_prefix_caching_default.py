"""Prefix caching as each engine ships it (issue 23 item 2), and the CLI's defaults as docs/cli.md's default scenario
(item 7): the registry's trait resolved once, the tri-state flags, and the lessons that stay as they were."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from chunkviz.analysis.metrics import summarize
from chunkviz.analysis.scenario import DEFAULT_SCENARIO, run_scenario
from chunkviz.cli.main import main
from chunkviz.config import CacheConfig, SchedulerConfig
from chunkviz.lessons.chapters import LECTURE, LESSON_POLICIES
from chunkviz.request import Request, Segment
from chunkviz.simulator.engine import simulate
from chunkviz.simulator.policies.registry import POLICY_NAMES, policy_entry
from tests.helpers import make_config

# docs/cli.md's default scenario, spelled out: what `simulate` with no flags must run.
README_FLAGS = ["--workload", "long-among-chats", "--num-requests", "64", "--qps", "16", "--prompt-tokens", "300",
                "--output-tokens", "128", "--model", "llama-3-8b", "--gpu", "h100-sxm"]


def _shared_pair() -> tuple[Request, Request]:
    """Two requests with the same 256-token system prompt, the second arriving after the first has finished."""
    system = Segment("system", 256)
    return (Request(0, 0.0, 300, 4, segments=(system, Segment("a", 44))),
            Request(1, 1.0, 300, 4, segments=(system, Segment("b", 44))))


def _budget(policy: str) -> int | None:
    """512 for a policy that chunks; None (the engine's default) for one that does not (vLLM refuses less)."""
    return 512 if policy_entry(policy).chunks(SchedulerConfig(policy=policy)) else None


def _run(policy: str, setting: bool | None) -> tuple[int, bool]:
    """(prefix hit tokens, the resolved prefix caching) of the shared pair under `policy`."""
    config = make_config(policy, _budget(policy))
    trace = simulate(replace(config, cache=replace(config.cache, enable_prefix_caching=setting)), _shared_pair())
    return summarize(trace).prefix_hit_tokens, trace.prefix_caching


@pytest.mark.parametrize("policy, ships_on", [("chunked", True), ("vllm-nochunk", True), ("sglang", True),
                                              ("trtllm", True), ("monolithic", False), ("sarathi", False),
                                              ("static", False), ("orca", False)])
def test_left_unset_prefix_caching_is_what_the_engine_ships(policy, ships_on):
    assert policy in POLICY_NAMES
    hits, resolved = _run(policy, None)
    assert resolved is ships_on and (hits > 0) is ships_on  # the second request reuses the system prompt, or not
    assert _run(policy, True) == (256, True) and _run(policy, False) == (0, False)  # an explicit setting wins


def test_cache_config_refuses_a_setting_that_is_not_a_switch():
    with pytest.raises(ValueError, match="enable_prefix_caching must be true, false or None"):
        CacheConfig(enable_prefix_caching=1)  # type: ignore[arg-type]


def _json(capsys, argv: list[str]) -> dict:
    assert main(["simulate", "--json", *argv]) == 0
    return json.loads(capsys.readouterr().out)


def test_simulate_with_no_flags_is_the_readme_default_scenario(capsys):
    bare, spelled = _json(capsys, []), _json(capsys, README_FLAGS)
    assert bare == spelled
    assert (bare["num_requests"], bare["policy"], bare["budget_tokens"], bare["prefix_caching"]) == (
        64, "chunked", 8192, True)  # vLLM V1's defaults on an H100: 8,192-token budget, prefix caching on


@pytest.mark.parametrize("flags, expected", [([], True), (["--no-enable-prefix-caching"], False),
                                             (["--enable-prefix-caching"], True), (["--disable-radix-cache"], False),
                                             (["--policy", "monolithic"], False),
                                             (["--policy", "monolithic", "--enable-prefix-caching"], True)])
def test_prefix_caching_flags(capsys, flags, expected):
    out = _json(capsys, ["--workload", "shared-system-prompt", "--num-requests", "6", "--output-tokens", "8", *flags])
    assert out["prefix_caching"] is expected
    assert (out["prefix_hit_rate"] > 0) is expected  # six requests share a 1,000-token system prompt


def test_disable_radix_cache_with_enable_prefix_caching_is_refused(capsys):
    assert main(["simulate", "--json", "--disable-radix-cache", "--enable-prefix-caching"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--disable-radix-cache" in err[0] and "--enable-prefix-caching" in err[0]


@pytest.mark.parametrize("policy", LESSON_POLICIES)
def test_the_lecture_runs_are_the_same_with_prefix_caching_on_or_off(policy):
    """The chapters keep each engine's default: the lecture's prompts share nothing, so the cache changes no figure
    (chapter 4, the one about sharing, turns it on explicitly)."""
    scenario = LECTURE.with_policy(policy, _budget(policy))
    on, off = (run_scenario(replace(scenario, cache=replace(scenario.cache, enable_prefix_caching=v)))
               for v in (True, False))
    assert on.prefix_caching and not off.prefix_caching
    # Only the cache's own statistics differ: lookups are recorded with caching on alone (vLLM PrefixCacheStats)
    assert summarize(on) == replace(summarize(off), prefix_query_tokens=summarize(on).prefix_query_tokens)
    assert [replace(r, prefix_query_tokens=0, prefix_query_tokens_readmitted=0) for r in on.requests] == list(off.requests)
    assert sum(r.prefix_hit_tokens for r in on.requests) == 0


def test_the_app_default_scenario_leaves_prefix_caching_to_the_engine():
    assert DEFAULT_SCENARIO.cache.enable_prefix_caching is None


def test_prefix_statistics_are_recorded_only_with_caching_on(capsys):
    """vLLM KVCacheManager.get_computed_blocks returns before recording PrefixCacheStats when caching is off: a run
    with caching off reports no lookups (0 query tokens), not lookups that all missed."""
    import json

    from chunkviz.cli.main import main

    base = ["simulate", "--json", "--workload", "shared-system-prompt", "--num-requests", "6", "--policy", "chunked"]
    for flag, fast in (("--no-enable-prefix-caching", ()), ("--no-enable-prefix-caching", ("--no-fast-forward",)),
                       ("--enable-prefix-caching", ())):
        assert main([*base, flag, *fast]) == 0
        out = json.loads(capsys.readouterr().out)
        if flag == "--enable-prefix-caching":
            assert out["prefix_query_tokens"] > 0 and out["prefix_hit_rate"] > 0
        else:
            assert out["prefix_query_tokens"] == 0 and out["prefix_hit_tokens"] == 0
