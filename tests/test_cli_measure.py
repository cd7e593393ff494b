"""End to end: `measure --device cpu --quick --out F`, then `simulate --profile F --json`; bad files exit 2."""

from __future__ import annotations

import json
import sys

import pytest

from chunkviz.cli.main import main
from chunkviz.measure import plan_for


@pytest.fixture(scope="module")
def profile_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("measure") / "profile.json"
    # The default CPU shapes (2 layers, hidden 512); one thread keeps the timing steady on a busy 2-core box.
    assert main(["measure", "--device", "cpu", "--quick", "--threads", "1", "--out", str(path)]) == 0
    return path


def test_measure_writes_a_profile_and_prints_measured_vs_roofline(profile_path, capsys):
    saved = json.loads(profile_path.read_text())
    assert saved["device"] == "cpu" and saved["model"]["num_layers"] == 2 and saved["model"]["hidden_size"] == 512
    assert len(saved["prefill"]) + len(saved["decode"]) == len(plan_for("cpu", "quick").points())
    path = profile_path.with_name("again.json")
    assert main(["measure", "--device", "cpu", "--quick", "--layers", "1", "--hidden-size", "64", "--json",
                 "--out", str(path)]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert out["shapes"]["num_layers"] == 1 and out["out"] == str(path)
    assert {"kind", "num_tokens", "context_tokens", "measured_s", "roofline_s", "ratio"} <= set(out["points"][0])
    assert all(p["ratio"] == pytest.approx(p["measured_s"] / p["roofline_s"]) for p in out["points"])
    assert "12/12" in captured.err  # the progress bar went to stderr


def test_simulate_with_the_profile_end_to_end(profile_path, capsys):
    common = ["simulate", "--json", "--num-requests", "24", "--qps", "2", "--prompt-tokens", "200",
              "--output-tokens", "16"]
    assert main(common + ["--profile", str(profile_path)]) == 0
    measured = json.loads(capsys.readouterr().out)
    assert main(common) == 0
    roofline = json.loads(capsys.readouterr().out)
    assert measured["num_finished"] == 24 and roofline["cost_profile"] is None
    assert measured["cost_profile"]["layer_scale"] == 16.0  # 32 layers of Llama-3-8B / 2 measured
    # A scaled-down model on a CPU, times 16 layers, is far slower than the H100 roofline.
    assert measured["e2e_s"]["mean"] > roofline["e2e_s"]["mean"]


def test_bad_profile_files_exit_2_with_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "chunkviz-cost-profile", "version": 1, "device": "tpu"}')
    for path in (bad, tmp_path / "missing.json"):
        assert main(["simulate", "--num-requests", "4", "--profile", str(path)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("chunkviz simulate: error:")
    assert main(["simulate", "--num-requests", "4", "--profile", str(bad)]) == 2
    assert "'device' must be 'cpu' or 'cuda'" in capsys.readouterr().err


def test_measure_without_torch_exits_2_with_the_enable_hint(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "torch", None)
    assert main(["measure", "--device", "cpu", "--quick", "--out", str(tmp_path / "p.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install -r requirements-measure.txt" in err
    assert main(["measure", "--layers", "0", "--out", str(tmp_path / "p.json")]) == 2
