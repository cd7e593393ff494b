"""ProfiledStepCoster: measured points reproduced, monotone in tokens, flagged fallback, roofline in = roofline out."""

from __future__ import annotations

from dataclasses import replace

import pytest

from chunkviz.cost.catalogue import get_gpu, get_model
from chunkviz.config import CostConfig, CostProfile, MeasuredPoint
from chunkviz.cost.roofline import StepCoster, shape_of
from chunkviz.simulator.engine import simulate
from chunkviz.cost.profiled import ProfiledStepCoster, compare_to_roofline, make_step_coster
from chunkviz.analysis.profile_coverage import measured_step_share
from chunkviz.analysis.scenario import Scenario, run_scenario
from tests.helpers import make_config, make_requests

MODEL, GPU = get_model("llama-3-8b"), get_gpu("h100-sxm")
OVERHEAD_S = 0.002


def make_profile(prefill: dict[tuple[int, int], float], decode: dict[tuple[int, int], float],
                 model=MODEL) -> CostProfile:
    """A profile from {(tokens, context): median_s}; p10/p90 are ±10%."""
    def points(table):
        cells = sorted(table, key=lambda cell: (cell[1], cell[0]))  # context-major, as profile files are sorted
        return tuple(MeasuredPoint(n, x, table[n, x], 0.9 * table[n, x], 1.1 * table[n, x]) for n, x in cells)
    return CostProfile(device="cpu", device_name="test CPU", dtype="float32", model=model, use_rope=True,
                       hardware=GPU, versions=(("torch", "test"),), check_max_abs_diff=0.0, check_tolerance=1e-3,
                       timing_method="perf_counter", num_warmup=0, num_repeats=1,
                       prefill=points(prefill), decode=points(decode))


# Hand-made grid, in ms: prefill rises 1 ms per 10 tokens and 2 ms per 100 cached tokens; decode likewise.
PREFILL_MS = {(10, 0): 1.0, (20, 0): 2.0, (10, 100): 3.0, (20, 100): 4.0}
DECODE_MS = {(1, 10): 1.0, (4, 10): 2.0, (1, 30): 1.5, (4, 30): 3.0}
HAND = make_profile({k: v / 1e3 for k, v in PREFILL_MS.items()}, {k: v / 1e3 for k, v in DECODE_MS.items()})


def coster(profile: CostProfile = HAND, model=MODEL) -> ProfiledStepCoster:
    return ProfiledStepCoster(profile, StepCoster(model, GPU, CostConfig(step_overhead_s=OVERHEAD_S)))


def chunk(c: int, p: int):
    return shape_of(((c, p),))


def decode(*contexts: int):
    return shape_of((), contexts)


def test_reproduces_every_measured_point_plus_overhead():
    cost_of = coster()
    for (c, p), ms in PREFILL_MS.items():
        assert cost_of(chunk(c, p)).total_s == pytest.approx(ms / 1e3 + OVERHEAD_S, rel=1e-12)
    for (b, x), ms in DECODE_MS.items():
        assert cost_of(decode(*[x] * b)).total_s == pytest.approx(ms / 1e3 + OVERHEAD_S, rel=1e-12)
    assert cost_of.num_fallbacks == 0 and cost_of.num_steps == 8


def test_bilinear_interpolation_by_hand():
    cost_of = coster()
    # Chunk of 15 after 50 cached: halfway in both axes -> mean of the four corners, (1 + 2 + 3 + 4) / 4 = 2.5 ms.
    assert cost_of(chunk(15, 50)).total_s == pytest.approx(2.5e-3 + OVERHEAD_S)
    # Decode of contexts 10 and 30: batch 2 (1/3 of the way from 1 to 4), mean context 20 (halfway):
    # at context 10: 1 + (2 - 1)/3 = 4/3; at 30: 1.5 + 1.5/3 = 2; halfway: 5/3 ms.
    assert cost_of(decode(10, 30)).total_s == pytest.approx(5 / 3 * 1e-3 + OVERHEAD_S)


def test_locate_maps_shapes_to_tables():
    # Chunk of 8 after 40: pairs = 8*40 + 8*9/2 = 356, so p = (356 - 36) / 8 = 40 exactly.
    assert ProfiledStepCoster.locate(chunk(8, 40)) == ("prefill", 8.0, 40.0)
    assert ProfiledStepCoster.locate(decode(10, 30)) == ("decode", 2.0, 20.0)
    assert ProfiledStepCoster.locate(chunk(1, 500)) == ("decode", 1.0, 500.0)  # a 1-token chunk is a decode


def test_terms_keep_roofline_proportions_and_sum_to_total():
    cost_of, roofline = coster(), StepCoster(MODEL, GPU, CostConfig(step_overhead_s=OVERHEAD_S))
    got, ref = cost_of(chunk(15, 50)), roofline(chunk(15, 50))
    assert got.total_s == pytest.approx(got.dense_s + got.attention_s + got.lm_head_s + got.communication_s
                                        + got.overhead_s, rel=1e-12)
    assert got.dense_s / got.attention_s == pytest.approx(ref.dense_s / ref.attention_s)
    assert (got.flops, got.bytes, got.overhead_s) == (ref.flops, ref.bytes, OVERHEAD_S)


def test_monotone_in_tokens_inside_and_outside_the_grid():
    cost_of = coster()
    for p in (0, 37, 100, 400):
        times = [cost_of(chunk(c, p)).total_s for c in range(2, 80)]
        assert times == sorted(times), p
    for x in (5, 20, 60):
        times = [cost_of(decode(*[x] * b)).total_s for b in range(1, 12)]
        assert times == sorted(times), x


def test_noisy_non_monotone_medians_are_raised_not_trusted():
    noisy = make_profile({(10, 0): 5e-3, (20, 0): 2e-3}, {(1, 10): 1e-3})  # 20 tokens measured faster than 10
    cost_of = coster(noisy)
    assert cost_of.grids["prefill"].num_raised == 1
    assert cost_of(chunk(20, 0)).total_s == pytest.approx(5e-3 + OVERHEAD_S)
    assert cost_of(chunk(10, 0)).total_s == pytest.approx(5e-3 + OVERHEAD_S)  # monotone points stay exact


def test_fallback_outside_the_grid_is_flagged_continuous_and_follows_the_roofline():
    cost_of, roofline = coster(), StepCoster(MODEL, GPU, CostConfig(step_overhead_s=0.0))
    assert cost_of.is_measured(chunk(15, 50)) and not cost_of.is_measured(chunk(40, 0))
    inside = cost_of(chunk(20, 0)).total_s
    outside = cost_of(chunk(40, 0)).total_s
    assert cost_of.num_fallbacks == 1
    # Beyond the grid: anchored at the 20-token point, scaled by the roofline's own growth from 20 to 40 tokens.
    growth = roofline(chunk(40, 0)).total_s / roofline(chunk(20, 0)).total_s
    assert outside - OVERHEAD_S == pytest.approx((inside - OVERHEAD_S) * growth)
    assert not cost_of.is_measured(decode(*[500] * 2)) and not cost_of.is_measured(decode(*[10] * 9))
    cost_of(decode(*[10] * 9))
    assert cost_of.num_fallbacks == 2


def test_layer_ratio_scales_measured_times():
    half = make_profile({k: v / 1e3 for k, v in PREFILL_MS.items()},
                        {k: v / 1e3 for k, v in DECODE_MS.items()}, model=replace(MODEL, num_layers=8))
    cost_of = coster(half)  # simulated model has 32 layers: 4x the measured 8
    assert cost_of.layer_scale == 4.0
    assert cost_of(chunk(10, 0)).total_s == pytest.approx(4 * 1e-3 + OVERHEAD_S)


def roofline_profile(tokens, contexts, batches, decode_contexts) -> CostProfile:
    forward = StepCoster(MODEL, GPU, CostConfig(step_overhead_s=0.0))
    return make_profile({(c, p): forward(chunk(c, p)).total_s for c in tokens for p in contexts},
                        {(b, x): forward(decode(*[x] * b)).total_s for b in batches for x in decode_contexts})


def test_profile_built_from_the_roofline_gives_the_roofline_back():
    profile = roofline_profile((64, 256, 1024), (0, 1024), (1, 16, 64), (256, 2048))
    cost_of, roofline = coster(profile), StepCoster(MODEL, GPU, CostConfig(step_overhead_s=OVERHEAD_S))
    exact = [chunk(256, 1024), chunk(64, 0), decode(*[2048] * 16),  # measured points
             chunk(4096, 0), chunk(64, 6000), decode(*[4000] * 128), decode(*[100] * 1)]  # outside: anchored
    for shape in exact:
        assert cost_of(shape).total_s == pytest.approx(roofline(shape).total_s, rel=1e-9), shape
    # Between points the piecewise-linear interpolation stays close to the (smooth) roofline.
    for shape in (chunk(128, 0), chunk(700, 500), decode(*[1000] * 32)):
        assert cost_of(shape).total_s == pytest.approx(roofline(shape).total_s, rel=0.15), shape


def test_engine_uses_the_profile_and_matches_the_roofline_run():
    profile = roofline_profile((16, 64, 128, 256, 512), (0, 512, 2048), (1, 4, 16, 64), (64, 512, 2048))
    base = Scenario(workload=replace(Scenario().workload, num_requests=40))
    roof, measured = run_scenario(base), run_scenario(replace(base, cost_profile=profile))
    assert measured.makespan_s == pytest.approx(roof.makespan_s, rel=0.1)
    slow = replace(profile, prefill=tuple(replace(p, median_s=10 * p.median_s, p90_s=10 * p.p90_s)
                                          for p in profile.prefill))
    assert run_scenario(replace(base, cost_profile=slow)).makespan_s > 1.5 * roof.makespan_s
    share = measured_step_share(replace(base, cost_profile=profile).sim_config(), measured)
    assert share is not None and 0.5 < share <= 1.0


def test_factory_and_config_plumbing():
    config = make_config()
    assert type(make_step_coster(config)) is StepCoster
    with_profile = replace(config, cost_profile=HAND)
    assert isinstance(make_step_coster(with_profile), ProfiledStepCoster)
    assert hash(Scenario(cost_profile=HAND)) == hash(Scenario(cost_profile=HAND))  # cacheable by value
    assert Scenario(cost_profile=HAND).sim_config().cost_profile is HAND
    trace = simulate(with_profile, make_requests([(0.0, 100, 4)]))
    assert trace.requests[0].finish_s is not None


def test_metrics_only_steps_take_the_measured_price():
    """The exact loop's metrics-only steps read a step's price off ProfiledStepCoster.terms: the same figures as the
    StepCost a detailed run records."""
    assert coster().terms(20, 1, 20 * 21 // 2, 0) == _fields(coster()(chunk(20, 0)))
    config = replace(make_config("chunked", 64), cost_profile=HAND, fast_forward=False)
    reqs = make_requests([(0.0, 100, 6), (0.001, 30, 9), (0.002, 70, 3)])
    detailed, plain = simulate(config, reqs), simulate(replace(config, record_detail=False), reqs)
    assert plain.steps == () and len(detailed.steps) == plain.num_steps
    assert plain.step_durations_s == tuple(step.cost.total_s for step in detailed.steps)
    assert (plain.step_mfu, plain.step_mbu) == (detailed.step_mfu, detailed.step_mbu)


def _fields(cost) -> tuple[float, ...]:
    return (cost.dense_s, cost.attention_s, cost.lm_head_s, cost.communication_s, cost.overhead_s, cost.total_s,
            cost.flops, cost.bytes, cost.mfu, cost.mbu)


def test_compare_to_roofline_ratio():
    rows = compare_to_roofline(HAND)
    assert len(rows) == 8
    roofline = StepCoster(MODEL, GPU, CostConfig(step_overhead_s=0.0))
    first = rows[0]  # prefill, 10 tokens, no context
    assert (first.kind, first.num_tokens, first.context_tokens) == ("prefill", 10, 0)
    assert first.roofline_s == pytest.approx(roofline(chunk(10, 0)).total_s)
    assert first.ratio == pytest.approx(1e-3 / first.roofline_s)
