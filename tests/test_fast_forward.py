"""Fast forward changes nothing but speed: `simulate --json` equals `--no-fast-forward` byte for byte (but for the
`fast_forwarded_steps` diagnostic) over every preset × policy × a few seeds, the fallbacks included, and over
Hypothesis-generated workloads; detailed traces never take the fast path."""

from __future__ import annotations

import json
import os
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from chunkviz.cli.main import main
from chunkviz.config import SchedulerConfig
from chunkviz.simulator.policies.refusals import vllm_budget_below_max_model_len
from chunkviz.simulator.policies.registry import POLICY_NAMES, REGISTRY
from chunkviz.simulator.engine import simulate
from chunkviz.simulator.float_array import FloatArray, expand_runs
from chunkviz.request import Request, Segment
from chunkviz.workloads.generators import WorkloadSpec
from chunkviz.workloads.presets import PRESET_FIELDS, PRESETS, make_workload
from tests.helpers import make_config, make_requests

SEEDS = (0, 7)
# The fast path leaves prefix caching to the exact loop (the "prefix-caching" fallback below checks that), and vLLM V1,
# SGLang and TensorRT-LLM ship it on; the corpora turn it off so that they exercise the fast path itself.
NO_CACHE = "--no-enable-prefix-caching"
# The policies whose registry entry lets the fast path replay them (PolicyEntry.fast_path).
FAST_PATH_POLICIES = tuple(name for name in POLICY_NAMES if REGISTRY[name].fast_path)
# Each adds something the fast path must leave to the exact loop (or survive): memory pressure and preemption,
# prefix caching, a prefill threshold, reserve-at-admission allocation, a budget as small as the batch (vLLM refuses max_num_batched_tokens < max_num_seqs).
FALLBACKS: dict[str, list[str]] = {
    "plain": [],
    "tiny-cache": ["--num-gpu-blocks", "120", "--max-num-batched-tokens", "256"],
    "prefix-caching": ["--enable-prefix-caching"],
    "threshold": ["--long-prefill-token-threshold", "128"],
    "reserve": ["--allocation", "reserve", "--block-size", "32"],
    "small-budget": ["--max-num-batched-tokens", "16", "--max-num-seqs", "16"],
}


def _simulate_json(capsys, argv: list[str]) -> dict:
    assert main(["simulate", "--json", *argv]) == 0
    return json.loads(capsys.readouterr().out)


def _both(capsys, argv: list[str]) -> tuple[str, str, int]:
    """(fast JSON, exact JSON) without the diagnostic key, and how many steps the fast run skipped."""
    fast = _simulate_json(capsys, argv)
    exact = _simulate_json(capsys, [*argv, "--no-fast-forward"])
    assert exact.pop("fast_forwarded_steps") == 0
    skipped = fast.pop("fast_forwarded_steps")
    return json.dumps(fast, sort_keys=True), json.dumps(exact, sort_keys=True), skipped


@pytest.mark.parametrize("prefix_caching", [False, True], ids=["no-prefix-caching", "prefix-caching"])
@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("policy", POLICY_NAMES)
def test_every_preset_and_policy_gives_identical_json(capsys, preset, policy, prefix_caching):
    skipped_total = 0
    for seed in SEEDS:
        # --output-tokens only where the preset reads it (a flag it ignores is refused: PRESET_FIELDS)
        outputs = ["--output-tokens", "64"] if "output_tokens" in PRESET_FIELDS[preset] else []
        argv = ["--workload", preset, "--policy", policy, "--num-requests", "40", "--qps", "6", "--seed", str(seed),
                *outputs, "--enable-prefix-caching" if prefix_caching else NO_CACHE]
        fast, exact, skipped = _both(capsys, argv)
        assert fast == exact
        skipped_total += skipped
    if policy in FAST_PATH_POLICIES:
        assert skipped_total > 0  # the corpus really exercises the fast path (the paged manager's too)
    if policy not in FAST_PATH_POLICIES:
        assert skipped_total == 0


@pytest.mark.parametrize("name", sorted(FALLBACKS))
@pytest.mark.parametrize("policy", sorted(FAST_PATH_POLICIES))
def test_fallback_scenarios_give_identical_json(capsys, name, policy):
    extra = list(FALLBACKS[name])
    entry = REGISTRY[policy]
    chunks = entry.chunks(SchedulerConfig(policy=policy))
    if not chunks and name != "small-budget" and "--max-num-batched-tokens" in extra:
        i = extra.index("--max-num-batched-tokens")  # without chunking the budget must cover max_model_len
        del extra[i:i + 2]
    argv = ["--workload", "synthetic", "--policy", policy, "--num-requests", "60", "--qps", "20",
            "--prompt-tokens", "200", "--output-tokens", "80", "--seed", "3", NO_CACHE, *extra]  # extra may turn it on
    refuses_small_budget = vllm_budget_below_max_model_len in entry.refusals
    if name == "small-budget" and entry.default_block_size_tokens > 16:
        argv += ["--block-size", "16"]  # TensorRT-LLM's 32-token blocks would not fit a 16-token budget
    if not chunks and not refuses_small_budget and name == "small-budget":
        argv += ["--prompt-tokens", "8", "--length-dist", "fixed"]  # admitted; prompts must fit unchunked
    elif refuses_small_budget and name == "small-budget":
        # vLLM refuses a budget below max_model_len without chunking; both paths must refuse it alike.
        assert main(["simulate", "--json", *argv]) == 2
        assert main(["simulate", "--json", *argv, "--no-fast-forward"]) == 2
        return
    fast, exact, skipped = _both(capsys, argv)
    assert fast == exact
    if name == "threshold":
        assert skipped == 0
    if name == "prefix-caching":
        assert skipped > 0  # the paged manager's block operations are replayed (fast_kv)


def test_the_20k_style_workload_matches_on_a_slice(capsys):
    argv = ["--workload", "azure-conv-like", "--num-requests", "600", "--qps", "5.5", "--policy", "chunked",
            "--max-num-batched-tokens", "2048", NO_CACHE]
    fast, exact, skipped = _both(capsys, argv)
    assert fast == exact
    assert skipped > json.loads(fast)["num_steps"] // 2  # most steps of a chat workload are steady decodes


def test_fast_and_exact_traces_are_equal_and_detailed_runs_never_skip():
    reqs = make_requests([(0.0, 300, 40), (0.01, 20, 90), (0.5, 800, 30), (0.52, 64, 64), (2.0, 10, 5)])
    fast = simulate(make_config("chunked", 512, detail=False), reqs)
    exact = simulate(replace(make_config("chunked", 512, detail=False), fast_forward=False), reqs)
    assert fast.fast_forwarded_steps > 0 and exact.fast_forwarded_steps == 0
    assert fast == exact
    assert fast.to_json() == exact.to_json()
    detailed = simulate(make_config("chunked", 512, detail=True), reqs)
    detailed_exact = simulate(replace(make_config("chunked", 512, detail=True), fast_forward=False), reqs)
    assert detailed.fast_forwarded_steps == 0
    assert detailed.to_json() == detailed_exact.to_json()
    assert list(detailed.tbt_gaps_s) == list(fast.tbt_gaps_s)  # the run-length-encoded gaps expand to the same


def _with_shared_prefix(specs: list[tuple[float, int, int]], shared_tokens: int) -> tuple[Request, ...]:
    """Requests whose prompts start with the same `shared_tokens` (a system prompt): prefix hits to take."""
    return tuple(Request(i, a, shared_tokens + p, o, segments=(Segment("sys", shared_tokens), Segment(f"q{i}", p)))
                 if shared_tokens else Request(i, a, p, o) for i, (a, p, o) in enumerate(specs))


request_lists = st.tuples(st.lists(
    st.tuples(st.floats(0, 3.0, allow_nan=False), st.integers(1, 1500), st.integers(1, 200)), min_size=1,
    max_size=14,
), st.sampled_from([0, 0, 20, 100])).map(lambda xs: _with_shared_prefix(sorted(xs[0], key=lambda x: x[0]), xs[1]))
configs = st.fixed_dictionaries({
    "policy": st.sampled_from(POLICY_NAMES), "budget": st.sampled_from([16, 64, 512, 4096]),
    "num_gpu_blocks": st.sampled_from([None, 40, 120, 600]), "block_size": st.sampled_from([1, 8, 16, 32]),
    "max_num_seqs": st.sampled_from([2, 8, 256]), "allocation": st.sampled_from(["incremental", "reserve"]),
    "prefix_caching": st.booleans(), "eviction": st.sampled_from(["lru", "fifo", "lfu"]),
    # The engines' own switches (ignored by the other policies): SGLang --enable-mixed-chunk, TensorRT-LLM chunked
    # context and max-utilization; and the client's max_tokens that their admission rules read.
    "engine_switches": st.booleans(), "max_tokens": st.sampled_from(["output", None, "double"]),
    # --scheduling-policy priority with three priority classes among the requests (the waiting queue's order, the
    # victim and, on the fast path, the order arrivals are absorbed in)
    "by_priority": st.booleans(),
})


def with_priority_classes(config, reqs, by_priority: bool):
    """The config and requests of a generated case, under the priority scheduling policy when `by_priority`."""
    if not by_priority:
        return config, reqs
    config = replace(config, scheduler=replace(config.scheduler, scheduling_policy="priority"))
    # classes 0, 8 and 16: 16 - 0 exceeds SGLang's default --priority-scheduling-preemption-threshold 10, so its
    # preempt_to_schedule acts once the seats are full (8 apart does not)
    return config, tuple(replace(r, priority=(r.request_id * 7) % 3 * 8) for r in reqs)


def _check_equal(reqs, cfg) -> None:
    cfg = dict(cfg)
    switches, max_tokens, by_priority = cfg.pop("engine_switches"), cfg.pop("max_tokens"), cfg.pop("by_priority")
    assume(cfg["budget"] >= cfg["block_size"])  # a budget must cover a block (SimConfig refuses it otherwise)
    assume(cfg["budget"] >= cfg["max_num_seqs"])  # vLLM refuses max_num_batched_tokens < max_num_seqs
    config, reqs = with_priority_classes(make_config(detail=False, max_num_steps=50_000, **cfg), reqs, by_priority)
    if switches:
        config = replace(config, scheduler=replace(config.scheduler, sglang_enable_mixed_chunk=True,
                                                   trtllm_chunked_context=True,
                                                   trtllm_capacity_policy="max-utilization"))
    if max_tokens != "output":
        reqs = tuple(replace(r, max_tokens=None if max_tokens is None else 2 * r.output_tokens) for r in reqs)
    try:
        fast = simulate(config, reqs)
    except Exception as exc:  # the exact path must fail the same way
        with pytest.raises(type(exc)):
            simulate(replace(config, fast_forward=False), reqs)
        return
    exact = simulate(replace(config, fast_forward=False), reqs)
    assert fast == exact
    assert fast.to_json() == exact.to_json()


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reqs=request_lists, cfg=configs)
def test_generated_workloads_give_identical_traces(reqs, cfg):
    _check_equal(reqs, cfg)


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("CHUNKVIZ_LONG_HYPOTHESIS"),
                    reason="3,000 examples take minutes: CHUNKVIZ_LONG_HYPOTHESIS=1 pytest -m slow tests/test_fast_forward.py")
@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reqs=request_lists, cfg=configs)
def test_generated_workloads_give_identical_traces_long_run(reqs, cfg):
    _check_equal(reqs, cfg)


def test_arrivals_absorbed_into_mixed_steps_keep_every_request_result():
    # Under chunked (fast_path_absorbs_arrivals), an arrival whose whole prompt fits is absorbed into a mixed step
    # without leaving the fast path.
    # r1's first decode shares a step with r2's whole prompt: that long step is r1's largest gap.
    reqs = make_requests([(0.0, 100, 200), (0.001, 80, 150), (0.05, 1500, 50), (0.07, 1500, 50), (0.4, 10, 1)])
    fast = simulate(make_config("chunked", 4096, detail=False), reqs)
    exact = simulate(replace(make_config("chunked", 4096, detail=False), fast_forward=False), reqs)
    assert fast.fast_forwarded_steps > 0.9 * fast.num_steps
    assert fast.requests == exact.requests and fast == exact
    r1, r2 = fast.requests[2], fast.requests[3]
    assert r1.max_tbt_s > 2 * fast.tbt_gaps_s[0] and r1.first_token_s < r2.first_token_s


@pytest.mark.parametrize("prefix_caching", [False, True])
def test_several_arrivals_at_once_are_absorbed_into_one_mixed_step(prefix_caching):
    # Three prompts arrive at the same instant while r0 decodes: all fit the budget, so the exact loop admits all
    # three whole in one step, and so does the fast path (fast_absorb), without leaving it; r4 arrives later.
    # Only r0's own prefill (nothing running yet) is an exact step.
    reqs = make_requests([(0.0, 100, 300), (0.05, 40, 30), (0.05, 50, 1), (0.05, 60, 20), (0.1, 30, 10)])
    config = make_config("chunked", 2048, detail=False, prefix_caching=prefix_caching)
    fast = simulate(config, reqs)
    exact = simulate(replace(config, fast_forward=False), reqs)
    assert fast == exact and fast.requests == exact.requests
    assert fast.fast_forwarded_steps == fast.num_steps - 1
    burst = fast.requests[1:4]
    assert len({r.first_token_s for r in burst}) == 1 and burst[1].finish_s == burst[1].first_token_s


@pytest.mark.parametrize("prefix_caching", [False, True])
def test_a_long_prompt_is_chunked_over_mixed_steps_without_leaving_the_fast_path(prefix_caching):
    # r1's 5,000-token prompt takes the budget left after r0's decode for three steps (2,047 + 2,047 + 906 tokens).
    # r2 and r3 arrive meanwhile and wait behind it; its last chunk leaves tokens over, so in that step r2 is
    # admitted whole and r3 cut to what is left, to be prefilled next. Every step but r0's own prefill is a fast
    # one, and the trace is the exact loop's.
    reqs = make_requests([(0.0, 100, 400), (0.05, 5000, 20), (0.051, 50, 10), (0.052, 3000, 5)])
    config = make_config("chunked", 2048, detail=False, prefix_caching=prefix_caching)
    fast = simulate(config, reqs)
    exact = simulate(replace(config, fast_forward=False), reqs)
    assert fast == exact and fast.requests == exact.requests
    assert fast.fast_forwarded_steps == fast.num_steps - 1
    r1, r2, r3 = fast.requests[1:]
    assert r1.first_token_s == r2.first_token_s < r3.first_token_s  # r1's last chunk and r2 share a step ...
    assert r1.first_scheduled_s < r2.first_scheduled_s == r3.first_scheduled_s  # ... where r3's prefill starts
    # With two seats r2 could not join r0 and r1: the exact loop steps, and so does the fast path.
    two_seats = replace(config, scheduler=replace(config.scheduler, max_num_seqs=2))
    fast = simulate(two_seats, reqs)
    assert fast == simulate(replace(two_seats, fast_forward=False), reqs)
    assert fast.fast_forwarded_steps < fast.num_steps - 1


def test_gap_runs_expand_before_their_position_and_the_array_acts_like_a_tuple():
    runs = (np.array([0, 0, 2, 3]), np.array([9.0, 8.0, 7.0, 6.0]), np.array([2, 1, 3, 1]))
    assert expand_runs([1.0, 2.0, 3.0], runs).tolist() == [9.0, 9.0, 8.0, 1.0, 2.0, 7.0, 7.0, 7.0, 3.0, 6.0]
    gaps = FloatArray([0.5, 0.25])
    assert gaps == (0.5, 0.25) and (0.5, 0.25) == gaps and gaps != (0.5,) and list(gaps) == [0.5, 0.25]
    assert len(gaps) == 2 and gaps[1] == 0.25 and hash(gaps) == hash(FloatArray((0.5, 0.25)))


PREFIX_SHARING = ("multi-turn", "shared-system-prompt", "parallel-sampling")  # presets whose prompts share blocks


@pytest.mark.parametrize("eviction", ["lru", "fifo", "lfu"])
@pytest.mark.parametrize("preset", PREFIX_SHARING)
@pytest.mark.parametrize("policy", sorted(FAST_PATH_POLICIES))
def test_prefix_caching_under_eviction_pressure_gives_identical_traces(policy, preset, eviction):
    # A cache small enough that cached blocks are evicted while others are hit: the fast path's pops, keys and
    # frees (fast_kv) must leave the exact loop's cache behind them, or a later hit or eviction count differs.
    # Whole Traces are compared (every request's result, every gap), not only the JSON summary.
    budget = 2048 if REGISTRY[policy].chunks(SchedulerConfig(policy=policy)) else 8192
    reqs = make_workload(preset, WorkloadSpec(num_requests=50, qps=8, seed=5, output_tokens=48))
    config = make_config(policy, budget, num_gpu_blocks=400, detail=False, prefix_caching=True, eviction=eviction)
    fast = simulate(config, reqs)
    exact = simulate(replace(config, fast_forward=False), reqs)
    assert fast.fast_forwarded_steps > 0 and exact.fast_forwarded_steps == 0
    assert replace(fast, fast_forwarded_steps=0) == exact
    assert fast.num_evicted_blocks > 0 and sum(r.prefix_hit_tokens for r in fast.requests) > 0


# Each stresses one of an engine's own rules around the fast path's stretches: the client's max_tokens read by
# TensorRT-LLM's guaranteed-no-evict admission (reserved to completion: unset = to max_seq_len, so it admits
# few and many wait), max-utilization's preemption of the newest request under a tiny cache, chunked context
# (block-sized chunks), and both pricing switches (CUDA graphs off, overlap off).
ENGINE_RULES: dict[str, list[list[str]]] = {
    "trtllm": [
        ["--max-tokens", "unset"],
        ["--max-tokens", "120"],
        ["--max-tokens", "unset", "--num-gpu-blocks", "60"],
        ["--trtllm-capacity-policy", "max-utilization", "--num-gpu-blocks", "30"],
        ["--trtllm-capacity-policy", "max-utilization", "--num-gpu-blocks", "30", "--enable-prefix-caching"],
        ["--trtllm-chunked-context", "true", "--max-num-batched-tokens", "256"],
        ["--trtllm-chunked-context", "true", "--max-num-batched-tokens", "256", "--enable-prefix-caching",
         "--num-gpu-blocks", "40"],
        ["--enforce-eager", "--disable-overlap-schedule"],
        ["--cuda-graph-max-bs", "5"],
    ],
    "sglang": [  # new_token_ratio decays once per fast step, is re-estimated after a retraction, reset when idle
        ["--num-gpu-blocks", "40"],  # memory pressure: retract_decode
        ["--num-gpu-blocks", "40", "--enable-prefix-caching"],
        ["--num-gpu-blocks", "90", "--max-tokens", "unset"],  # admissions refused (NO_TOKEN): batch_is_full latch
        ["--max-tokens", "120", "--num-gpu-blocks", "120"],
        ["--sglang-mixed-chunk", "--num-gpu-blocks", "60"],
        ["--sglang-mixed-chunk", "--max-num-batched-tokens", "256"],
        ["--qps", "2", "--output-tokens", "700"],  # stretches long enough for the ratio to reach its floor
        ["--qps", "0.5"],  # the engine goes idle between requests: the ratio's reset
        ["--disable-cuda-graph", "--disable-overlap-schedule"],
    ],
}


@pytest.mark.parametrize("case", [(policy, i) for policy, cases in ENGINE_RULES.items() for i in range(len(cases))],
                         ids=lambda case: f"{case[0]}-{case[1]}")
def test_engine_rules_give_identical_json(capsys, case):
    policy, index = case
    extra = ENGINE_RULES[policy][index]
    skipped_total = 0
    for seed in SEEDS:
        argv = ["--workload", "synthetic", "--policy", policy, "--num-requests", "60", "--qps", "20",
                "--prompt-tokens", "200", "--output-tokens", "80", "--seed", str(seed), NO_CACHE, *extra]
        fast, exact, skipped = _both(capsys, argv)
        assert fast == exact
        skipped_total += skipped
    assert skipped_total > 0  # the rule's runs do reach steady stretches


def test_tensorrt_llm_absorbs_arrivals_and_replays_its_reservation_to_completion():
    # TensorRT-LLM admits whole prompts after its decodes, as vLLM V1 does, so its arrivals are absorbed into mixed
    # steps too; under GUARANTEED_NO_EVICT only a request whose blocks to completion (prompt + max_tokens) fit once
    # every running request's are set aside (policies/trtllm.fits_to_completion), which fast_absorb replays from
    # the stretch's rows. 40 blocks of 16 tokens: r0 (max_tokens 500) sets aside 38 of them, so of r1 and r2,
    # arriving together, r1 (2 blocks to completion) is admitted and r2 (6) waits until r0 is done, though its
    # true 4 blocks would fit the free ones: that step is the exact loop's (so are the steps while r2 waits).
    reqs = (Request(0, 0.0, 100, 300, max_tokens=500), Request(1, 0.05, 20, 10), Request(2, 0.05, 60, 30))
    config = make_config("trtllm", 2048, detail=False, num_gpu_blocks=40)
    fast = simulate(config, reqs)
    assert fast == simulate(replace(config, fast_forward=False), reqs) and fast.fast_forwarded_steps > 0
    r0, r1, r2 = fast.requests
    assert r1.first_scheduled_s < r0.finish_s <= r2.first_scheduled_s
    # Sent without the reservation's headroom (max_tokens = the true output), r2 fits too: both are absorbed in one
    # mixed step and only r0's own prefill is an exact step.
    plain = (Request(0, 0.0, 100, 300), *reqs[1:])
    fast = simulate(config, plain)
    assert fast == simulate(replace(config, fast_forward=False), plain)
    assert fast.requests[1].first_token_s == fast.requests[2].first_token_s
    assert fast.fast_forwarded_steps == fast.num_steps - 1


def test_sglang_absorbs_arrivals_as_prefill_only_steps():
    # SGLang runs a prefill batch before the decodes (get_next_batch_to_run): r1 and r2, arriving together while r0
    # decodes, are admitted whole in a prefill-only step in which r0 stalls, then all three decode. The fast path
    # does that step itself: r0's gap across it is the shared one, r1's and r2's first gaps run from its end.
    # r3 arrives later, alone. Only r0's own prefill is an exact step.
    reqs = make_requests([(0.0, 100, 300), (0.05, 40, 30), (0.05, 50, 1), (0.1, 60, 20)])
    config = make_config("sglang", 2048, detail=False, prefix_caching=True)
    fast = simulate(config, reqs)
    exact = simulate(replace(config, fast_forward=False), reqs)
    assert fast == exact and fast.requests == exact.requests
    assert fast.fast_forwarded_steps == fast.num_steps - 1 and fast.num_stall_steps == 2
    r0, r1, r2, r3 = fast.requests
    assert r1.first_token_s == r2.first_token_s == r2.finish_s  # one prefill batch; r2's only token is its first
    assert r0.max_tbt_s > r1.max_tbt_s  # r0's gap spans a prefill step and a decode step, r1's only the decode step
    # The PrefillAdder's check (input + max_new_tokens below rem_total_tokens) refuses r1 in a small cache: it waits,
    # batch_is_full latches, and those steps are the exact loop's.
    small = replace(config, cache=replace(config.cache, num_gpu_blocks=40))
    tight = (*reqs[:1], Request(1, 0.05, 40, 400), *reqs[2:])
    fast = simulate(small, tight)
    assert fast == simulate(replace(small, fast_forward=False), tight)
    assert 0 < fast.fast_forwarded_steps < fast.num_steps - 1
    r0, r1, r2, _ = fast.requests
    assert r1.first_scheduled_s == r2.first_scheduled_s == r0.finish_s  # everyone waited for r0 to finish
