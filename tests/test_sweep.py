"""Budget/load sweeps: the trade-off facts chunked prefill must show, frontier and best-setting rules, bounds."""

from __future__ import annotations

from dataclasses import replace

import pytest

from chunkviz.errors import InputError
from chunkviz.request import PRIORITY_BATCH, PRIORITY_INTERACTIVE, Request
from chunkviz.analysis.scenario import DEFAULT_SCENARIO, Scenario
from chunkviz.analysis.sweep import (ClassPoint, SweepPoint, best_budget_for_class, best_for_slo, has_batch_class,
                            pareto_frontier, run_sweep, with_batch_class, with_load)


def _chats_and_documents() -> Scenario:
    """12 chats (prompt 200, 48 output tokens) every 25 ms, and two 6,000-token documents (batch) landing mid-stream."""
    chats = [Request(i, 0.025 * i, 200, 48) for i in range(12)]
    docs = [Request(12, 0.06, 6000, 8, PRIORITY_BATCH), Request(13, 0.16, 6000, 8, PRIORITY_BATCH)]
    requests = tuple(sorted(chats + docs, key=lambda r: r.arrival_s))
    # ids must follow arrival order
    requests = tuple(replace(r, request_id=i) for i, r in enumerate(requests))
    return replace(DEFAULT_SCENARIO, explicit_requests=requests)


SCENARIO = _chats_and_documents()
BUDGETS = (64, 256, 1024, 8192, 16384)


@pytest.fixture(scope="module")
def result():
    return run_sweep(SCENARIO, BUDGETS, slo_ttft_s=0.5, slo_tbt_s=0.05)


def _at(result, budget):
    return next(p for p in result.points if p.budget_tokens == budget)


def test_small_budgets_smooth_the_stream_and_big_ones_win_throughput(result):
    # A 6,000-token prompt in one 8192 step takes ~100 ms on an H100; in 256-token pieces each step stays short.
    assert _at(result, 256).tbt_p99_s < _at(result, 8192).tbt_p99_s
    assert _at(result, 16384).throughput_output_tokens_per_s >= _at(result, 64).throughput_output_tokens_per_s
    # 64 tokens a step, shared with up to 12 decodes: the documents need ~100+ steps, so TTFT p99 explodes.
    assert _at(result, 64).ttft_p99_s > _at(result, 1024).ttft_p99_s
    mono = result.baseline(1.0)
    assert mono is not None and mono.policy == "monolithic" and mono.budget_tokens is None
    assert mono.tbt_p99_s > _at(result, 256).tbt_p99_s  # the stall the article starts from
    assert all(p.num_rejected == 0 and p.num_finished == 14 for p in result.points)


def test_points_are_ordered_budgets_then_baseline(result):
    assert [p.budget_tokens for p in result.points] == [*BUDGETS, None]
    assert result.chunked(1.0) == result.points[:-1]
    assert {p.policy for p in result.chunked(1.0)} == {"chunked"}


def test_frontier_points_are_not_dominated_and_cover_the_rest(result):
    front = pareto_frontier(result.points, "tbt_p99_s", "throughput_output_tokens_per_s")
    assert front and [p.tbt_p99_s for p in front] == sorted(p.tbt_p99_s for p in front)

    def dominates(a, b):
        return (a.tbt_p99_s <= b.tbt_p99_s and a.throughput_output_tokens_per_s >= b.throughput_output_tokens_per_s
                and (a.tbt_p99_s, a.throughput_output_tokens_per_s) != (b.tbt_p99_s, b.throughput_output_tokens_per_s))

    for p in front:
        assert not any(dominates(q, p) for q in result.points)
    for p in result.points:
        assert p in front or any(dominates(q, p) for q in front)


def test_frontier_by_hand():
    def pt(lat, thr):
        return SweepPoint(1, 1.0, 1.0, "chunked", None, None, None, lat, thr, None, None, None, None, 0, 0, 1, 1)
    # (latency, throughput): (3, 15) loses to (2, 20); (5, 30) loses to (4, 30); (None, 99) has no latency.
    pts = [pt(1, 10), pt(2, 20), pt(3, 15), pt(4, 30), pt(5, 30), pt(None, 99)]
    front = pareto_frontier(pts)
    assert [(p.tbt_p99_s, p.throughput_output_tokens_per_s) for p in front] == [(1, 10), (2, 20), (4, 30)]


def _slo_point(budget, goodput, thr, slo=(0.5, 0.05)):
    return SweepPoint(budget, 1.0, 16.0, "chunked", None, None, None, None, thr, goodput, None, *slo, 0, 0, 1, 1)


def test_best_for_slo_rules_by_hand():
    pts = [_slo_point(256, 10.0, 900.0), _slo_point(512, 12.0, 950.0), _slo_point(1024, 12.0, 990.0),
           _slo_point(None, 0.0, 1000.0)]
    assert best_for_slo(pts, 0.5, 0.05).budget_tokens == 1024  # goodput tie → higher throughput
    tie = [_slo_point(2048, 5.0, 900.0), _slo_point(1024, 5.0, 900.0)]
    assert best_for_slo(tie, 0.5, 0.05).budget_tokens == 1024  # full tie → smaller budget
    assert best_for_slo([_slo_point(256, 0.0, 900.0), _slo_point(512, None, 950.0)], 0.5, 0.05) is None
    with pytest.raises(ValueError, match="other SLO targets"):
        best_for_slo(pts, 0.2, 0.05)


def test_best_for_slo_meets_the_slo_or_says_none(result):
    best = best_for_slo(result.points, 0.5, 0.05)
    assert best is not None and best.goodput_requests_per_s > 0 and best.slo_attainment > 0
    assert best.goodput_requests_per_s == max(p.goodput_requests_per_s for p in result.points)
    impossible = run_sweep(SCENARIO, BUDGETS, slo_ttft_s=0.001, slo_tbt_s=0.001)
    assert best_for_slo(impossible.points, 0.001, 0.001) is None


def test_per_class_best_budgets_follow_the_article(result):
    # Chats want a smooth stream within the SLO; the documents (batch) want the budget that finishes them fastest.
    chat = best_budget_for_class(result.class_points, PRIORITY_INTERACTIVE)
    batch = best_budget_for_class(result.class_points, PRIORITY_BATCH)
    assert chat is not None and batch is not None
    assert chat.budget_tokens < batch.budget_tokens
    assert batch.budget_tokens >= 8192
    assert {c.num_requests for c in result.class_points if c.priority == PRIORITY_BATCH} == {2}
    batch_at_64 = next(c for c in result.class_points if c.priority == PRIORITY_BATCH and c.budget_tokens == 64)
    assert batch.throughput_tokens_per_s > batch_at_64.throughput_tokens_per_s


def test_class_best_by_hand():
    def cp(priority, budget, attain, worst, thr):
        return ClassPoint(priority, budget, 1.0, 4, None, None, worst, attain, thr)
    pts = [cp(0, 256, 1.0, 0.02, 10.0), cp(0, 1024, 1.0, 0.04, 20.0), cp(0, 64, 0.5, 0.01, 5.0),
           cp(0, None, 1.0, 0.001, 1.0), cp(1, 512, None, None, 30.0), cp(1, 8192, None, None, 50.0),
           cp(1, 16384, None, None, 50.0)]
    assert best_budget_for_class(pts, 0).budget_tokens == 256  # all met: the smoother stream wins; baseline skipped
    assert best_budget_for_class(pts, 1).budget_tokens == 8192  # throughput tie → smaller budget
    assert best_budget_for_class([cp(0, 256, 0.0, 0.02, 10.0)], 0) is None


def test_progress_is_reported_once_per_simulation_and_runs_are_deterministic():
    calls = []
    first = run_sweep(SCENARIO, (256, 1024), (1.0, 2.0), 0.5, 0.05, on_progress=lambda d, n: calls.append((d, n)))
    assert calls == [(i, 6) for i in range(1, 7)]  # 2 loads × (2 budgets + monolithic)
    assert run_sweep(SCENARIO, (1024, 256), (2.0, 1.0), 0.5, 0.05) == first


def test_runner_is_injectable_and_sees_metrics_only_scenarios():
    seen = []

    def runner(s):
        seen.append(s)
        from chunkviz.analysis.scenario import run_scenario
        return run_scenario(s)
    run_sweep(SCENARIO, (512,), run=runner)
    assert [s.scheduler.max_num_batched_tokens for s in seen] == [512, None]
    assert [s.scheduler.policy for s in seen] == ["chunked", "monolithic"]
    assert not any(s.record_detail for s in seen)


def test_load_multiplier_squeezes_arrivals():
    fast = with_load(SCENARIO, 2.0)
    assert [r.arrival_s for r in fast.requests()] == [r.arrival_s / 2 for r in SCENARIO.requests()]
    assert with_load(DEFAULT_SCENARIO, 4.0).workload.qps == DEFAULT_SCENARIO.workload.qps * 4
    r = run_sweep(DEFAULT_SCENARIO, (8192,), (1.0, 4.0))
    low, high = (p for p in r.points if p.budget_tokens == 8192)
    assert (low.qps, high.qps) == (16.0, 64.0)
    assert high.throughput_output_tokens_per_s > low.throughput_output_tokens_per_s


def test_batch_class_is_added_only_where_missing():
    assert with_batch_class(DEFAULT_SCENARIO) is DEFAULT_SCENARIO  # long-among-chats marks documents as batch
    synthetic = replace(DEFAULT_SCENARIO, workload_preset="synthetic")
    assert not has_batch_class(synthetic)
    marked = with_batch_class(synthetic, 0.3)
    assert has_batch_class(marked)
    strip = [(r.arrival_s, r.prompt_tokens, r.output_tokens) for r in marked.requests()]
    assert strip == [(r.arrival_s, r.prompt_tokens, r.output_tokens) for r in synthetic.requests()]
    article = replace(DEFAULT_SCENARIO, workload_preset="seed-article")
    assert not has_batch_class(with_batch_class(article))  # this preset has no classes at all


def test_the_work_is_bounded():
    with pytest.raises(InputError, match="sweep limit"):
        run_sweep(SCENARIO, tuple(range(64, 64 + 16)), (1.0, 2.0))  # (16 + 1) × 2 = 34 > 32
    big = replace(DEFAULT_SCENARIO, workload=replace(DEFAULT_SCENARIO.workload, num_requests=401))
    with pytest.raises(InputError, match="400"):
        run_sweep(big, (512,))
    with pytest.raises(InputError, match="budget"):
        run_sweep(SCENARIO, (0, 512))
    with pytest.raises(InputError, match="load"):
        run_sweep(SCENARIO, (512,), (0.0,))
    with pytest.raises(InputError, match="at least one"):
        run_sweep(SCENARIO, ())
