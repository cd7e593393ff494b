"""Cost model v2 against the shipped public A100 measurements (issue 15).

The dense time per layer that `cost` uses must be within 5% median and 10% p90 over every gated-model point at
>= 16 tokens, at every tensor-parallel degree; and a fit that never saw a model must still predict it (leave one
model out). The fitted constants must be what the fit script produces from the shipped file.
"""

from __future__ import annotations

import numpy as np
import pytest

from chunkviz.cost.catalogue import get_gpu
from chunkviz.cost.fit import (dense_errors, fit_constants, point_arrays, predict_kernels_s, summarize_errors,
                               v1_dense_errors)
from chunkviz.cost.fitted import A100_DENSE
from chunkviz.cost.kernels import dense_layer_s
from chunkviz.cost.public_points import load_public_points
from chunkviz.cost.roofline import shape_of, step_cost

A100 = get_gpu("a100-80gb")


@pytest.fixture(scope="module")
def arrays():
    return point_arrays(load_public_points())


@pytest.fixture(scope="module")
def scored(arrays):
    return arrays.gated & (arrays.tokens >= 16)


def test_shipped_file_is_whole(arrays):
    assert arrays.tokens.size > 8000
    assert set(arrays.tensor_parallel.tolist()) == {1, 2, 4, 8}
    assert arrays.tokens.min() == 1 and arrays.tokens.max() == 16384
    assert (arrays.dense_s > 0).all()


def test_step_cost_dense_time_per_layer_within_5_and_10_percent(scored):
    # Through the engine's own entry point (step_cost), one point in five of every model and TP.
    points = [p for p in load_public_points() if p.model.is_gated_mlp and p.num_tokens >= 16][::5]
    errors = []
    for p in points:
        cost = step_cost(shape_of(((p.num_tokens, 0),)), p.model, A100, tensor_parallel=p.tensor_parallel)
        errors.append(cost.dense_s / p.model.num_layers / (p.dense_ms / 1e3) - 1)
    summary = summarize_errors(np.array(errors))
    assert summary.median_abs <= 0.05 and summary.p90_abs <= 0.10


def test_every_gated_point_within_5_and_10_percent(arrays, scored):
    errors = dense_errors(A100_DENSE, arrays)
    overall = summarize_errors(errors[scored])
    assert overall.num_points > 8000
    assert overall.median_abs <= 0.05 and overall.p90_abs <= 0.10
    assert abs(overall.median_signed) <= 0.02  # no longer always too fast (v1: −13%)
    for tp in (1, 2, 4, 8):
        per_tp = summarize_errors(errors[scored & (arrays.tensor_parallel == tp)])
        assert per_tp.median_abs <= 0.05 and per_tp.p90_abs <= 0.10, tp


def test_v1_figures_from_the_issue(arrays, scored):
    # Issue 15's "before": medians of 8, 10, 14 and 21% at TP 1, 2, 4, 8, always too fast.
    errors = v1_dense_errors(arrays)
    medians = [summarize_errors(errors[scored & (arrays.tensor_parallel == tp)]).median_abs for tp in (1, 2, 4, 8)]
    assert [round(100 * m) for m in medians] == [8, 10, 14, 21]
    assert summarize_errors(errors[scored]).median_signed < -0.1


def test_vectorised_fit_model_is_the_engine_model(arrays):
    # The fit evaluates kernels on numpy arrays; the engine on floats. Same numbers.
    picks = np.arange(0, arrays.tokens.size, 997)
    sub = arrays.subset(picks)
    vectorised = predict_kernels_s(A100_DENSE, sub).sum(axis=1)
    points = load_public_points()
    for i, value in zip(picks, vectorised):
        p = points[i]
        assert dense_layer_s(p.num_tokens, p.model, A100, p.tensor_parallel, A100_DENSE) == pytest.approx(value)


def test_leave_one_model_out(arrays, scored):
    """Fit on the six other gated models (and phi-2), predict the held-out one: within 5% median, 11% p90."""
    rows = []
    for held_out in ("llama-3-8b", "internlm-20b", "qwen-72b"):  # smallest, odd shape, MHA 72B: the hard cases
        train = arrays.subset((arrays.model_id != held_out) & (np.arange(arrays.tokens.size) % 3 == 0))
        constants = fit_constants(train, iterations=25)
        errors = dense_errors(constants, arrays)[scored & (arrays.model_id == held_out)]
        rows.append((held_out, summarize_errors(errors)))
    for held_out, summary in rows:
        assert summary.median_abs <= 0.05, (held_out, summary)
        assert summary.p90_abs <= 0.11, (held_out, summary)


def test_fitted_constants_come_from_the_fit(arrays):
    # A short refit from the shipped constants stays where it is: they are the fit's optimum, not hand-tuned.
    refit = fit_constants(arrays.subset(np.arange(arrays.tokens.size) % 4 == 0), start=A100_DENSE, iterations=3)
    for name in ("qkv_eff", "up_eff", "down_eff", "gemm_mbu", "m_half_tokens"):
        assert getattr(refit, name) == pytest.approx(getattr(A100_DENSE, name), rel=0.1), name


def test_other_gpus_scale_from_peaks_only():
    from chunkviz.cost.public_points import PROFILED_BY_ID

    model = PROFILED_BY_ID["llama-3-8b"]
    h100, a100 = get_gpu("h100-sxm"), A100
    # Decode (1 token) is weight-bound: faster by about the bandwidth ratio 3.35/2.039, less for launch costs.
    speedup_decode = dense_layer_s(1, model, a100, 1, A100_DENSE) / dense_layer_s(1, model, h100, 1, A100_DENSE)
    assert 1.3 < speedup_decode < 3.35 / 2.039
    # Large prefill is compute-bound: faster by about the peak ratio 989/312.
    speedup_prefill = (dense_layer_s(16384, model, a100, 1, A100_DENSE)
                       / dense_layer_s(16384, model, h100, 1, A100_DENSE))
    assert 2.5 < speedup_prefill <= 989 / 312 + 1e-9


@pytest.mark.parametrize("gpu_id", ["a100-80gb", "h100-sxm", "h200", "l40s"])
def test_dense_time_never_decreases_with_tokens(gpu_id):
    from chunkviz.cost.public_points import PROFILED_MODELS

    gpu = get_gpu(gpu_id)
    for model in PROFILED_MODELS:
        for tp in (1, 2, 4, 8, 16):
            times = [dense_layer_s(n, model, gpu, tp, A100_DENSE) for n in range(1, 20000, 97)]
            assert times == sorted(times), (model.model_id, tp)
            assert times[0] > 0
