"""Live measurement on CPU with tiny shapes: correctness check, plan, timing, cancel, profile files, no-torch path."""

from __future__ import annotations

import json
import sys
from dataclasses import replace

import pytest

from chunkviz.cost.catalogue import get_model
from chunkviz.cost.profile import profile_from_json, profile_to_json
from chunkviz.errors import InputError
from chunkviz.measure import (CheckFailedError, MeasurePlan, load_profile, measure, measured_model, plan_for,
                              save_profile, torch_available)

TINY = dict(device="cpu", num_layers=1, hidden_size=64, num_threads=1)
# 2 chunk sizes x 2 contexts + 2 batch sizes x 2 contexts = 8 points, two timed repeats each.
TINY_PLAN = MeasurePlan((4, 16), (0, 8), (1, 3), (4, 8), num_warmup=1, num_repeats=2)


@pytest.fixture(scope="module")
def tiny_profile():
    outcome = measure("llama-3-8b", plan=TINY_PLAN, **TINY)
    assert outcome.profile is not None and not outcome.is_cancelled
    return outcome.profile


def test_scaled_shapes_by_hand():
    # Llama-3-8B at hidden 512 is 1/8 of every width: 4 heads of 128 (32/8), GQA 4:1 kept -> 1 KV head,
    # MLP 14336/8 = 1792, vocab 128256/8 = 16032.
    spec = measured_model(get_model("llama-3-8b"), 2, 512, 4)
    assert (spec.num_layers, spec.num_heads, spec.num_kv_heads, spec.head_dim) == (2, 4, 1, 128)
    assert (spec.intermediate_size, spec.vocab_size, spec.bytes_per_param) == (1792, 16032, 4)
    full = measured_model(get_model("llama-3-8b"), 32, 4096, 2)
    assert replace(full, source="") == replace(get_model("llama-3-8b"), source="")
    with pytest.raises(InputError, match="layers must be between 1 and 32"):
        measured_model(get_model("llama-3-8b"), 33, 4096, 2)
    with pytest.raises(InputError, match="multiple of 64"):
        measured_model(get_model("llama-3-8b"), 2, 100, 4)


def test_correctness_check_passes_and_is_recorded(tiny_profile):
    assert tiny_profile.check_max_abs_diff < 1e-4 < tiny_profile.check_tolerance


def test_check_catches_a_wrong_mask(monkeypatch):
    # Without the lower-right mask a chunk after cached tokens gets upper-left causal attention: wrong outputs.
    monkeypatch.setattr("chunkviz.measure.model.causal_lower_right", lambda t, s: None)
    with pytest.raises(CheckFailedError, match="correctness check failed"):
        measure("llama-3-8b", plan=TINY_PLAN, **TINY)


def test_tiny_plan_records_every_point_and_the_setup(tiny_profile):
    p = tiny_profile
    assert [(x.num_tokens, x.context_tokens) for x in p.prefill] == [(4, 0), (16, 0), (4, 8), (16, 8)]
    assert [(x.num_tokens, x.context_tokens) for x in p.decode] == [(1, 4), (3, 4), (1, 8), (3, 8)]
    assert all(0 < x.p10_s <= x.median_s <= x.p90_s for x in p.prefill + p.decode)
    assert (p.device, p.dtype, p.timing_method, p.num_repeats) == ("cpu", "float32", "perf_counter", 2)
    assert (p.model.num_layers, p.model.hidden_size, p.model.model_id) == (1, 64, "llama-3-8b")
    assert dict(p.versions)["torch"].startswith("2.13.0")
    assert p.hardware.peak_flops_per_s > 0 and "micro-benchmark" in p.hardware.source


def test_quick_plan_runs_on_cpu_with_progress():
    calls = []
    outcome = measure("llama-3-8b", plan="quick", progress=lambda done, total: calls.append((done, total)), **TINY)
    total = len(plan_for("cpu", "quick").points())
    assert calls == [(i, total) for i in range(1, total + 1)]
    assert outcome.profile is not None and len(outcome.profile.prefill) + len(outcome.profile.decode) == total


def test_cancel_stops_between_points():
    seen = []
    outcome = measure("llama-3-8b", plan=TINY_PLAN, progress=lambda d, t: seen.append(d),
                      is_cancelled=lambda: len(seen) >= 3, **TINY)
    assert outcome.is_cancelled and outcome.profile is None
    assert (outcome.num_done, outcome.num_total) == (3, 8) and seen == [1, 2, 3]


def test_profile_round_trips_through_a_file(tiny_profile, tmp_path):
    path = save_profile(tiny_profile, tmp_path / "profile.json")
    assert load_profile(path) == tiny_profile
    assert json.loads(path.read_text())["decode"][0] == {
        "batch_size": 1, "context_tokens": 4, "median_s": tiny_profile.decode[0].median_s,
        "p10_s": tiny_profile.decode[0].p10_s, "p90_s": tiny_profile.decode[0].p90_s}


@pytest.mark.parametrize("edit, message", [
    (lambda o: o.pop("device"), "missing key 'device'"),
    (lambda o: o["prefill"][1].update(median_s=-1), "'prefill[1].median_s' must be a finite number > 0"),
    (lambda o: o["decode"][0].update(p10_s=1.0), "'decode[0]' needs p10_s <= median_s <= p90_s"),
    (lambda o: o["prefill"].pop(), "missing chunk_tokens=16, context_tokens=8"),
    (lambda o: o["model"].update(hidden_size="big"), "'model.hidden_size' must be an integer"),
    (lambda o: o["check"].update(max_abs_diff=1.0), "failed its correctness check"),
    (lambda o: o.update(version=99), "'version' must be 1"),
])
def test_bad_profiles_name_the_bad_key(tiny_profile, edit, message):
    obj = json.loads(profile_to_json(tiny_profile))
    edit(obj)
    with pytest.raises(InputError, match=message.replace("[", r"\[").replace("]", r"\]")):
        profile_from_json(json.dumps(obj))
    with pytest.raises(InputError, match="not valid JSON"):
        profile_from_json("{")


def test_without_torch_measurement_explains_how_to_enable_it(monkeypatch, tiny_profile, tmp_path):
    path = save_profile(tiny_profile, tmp_path / "p.json")
    monkeypatch.setitem(sys.modules, "torch", None)  # `import torch` now raises ImportError
    assert not torch_available()
    with pytest.raises(InputError, match=r"pip install -r requirements-measure\.txt"):
        measure("llama-3-8b", device="cpu", plan=TINY_PLAN)
    assert load_profile(path) == tiny_profile  # loading and simulating need no torch


def test_cuda_request_without_a_gpu_is_an_input_error():
    import torch

    if torch.cuda.is_available():
        return  # this machine has a GPU: nothing to refuse
    with pytest.raises(InputError, match="CUDA is not available"):
        measure("llama-3-8b", device="cuda", plan=TINY_PLAN)


def test_missing_fused_lower_right_kernel_falls_back_to_a_dense_mask(monkeypatch):
    import torch.nn.functional as F
    from torch.nn.attention.bias import CausalBias

    real = F.scaled_dot_product_attention

    def without_lower_right(q, k, v, attn_mask=None, **kwargs):
        if isinstance(attn_mask, CausalBias):
            raise RuntimeError("no fused lower-right kernel for these shapes")
        return real(q, k, v, attn_mask=attn_mask, **kwargs)

    monkeypatch.setattr(F, "scaled_dot_product_attention", without_lower_right)
    outcome = measure("llama-3-8b", plan=TINY_PLAN, **TINY)
    assert outcome.profile is not None and outcome.profile.check_max_abs_diff < 1e-4


def test_the_measure_package_imports_without_torch():
    import subprocess
    from pathlib import Path

    code = ("import sys; import chunkviz.measure, chunkviz.measure.plan, chunkviz.cli.measure, chunkviz.cost.profiled\n"
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[1])
    assert out.stdout.strip() == "False"
