"""`simulate --deployment …`: the JSON keys (deployment, kv_transfer_s, goodput_per_gpu), a run without the flag
unchanged, one-line errors with exit 2, and `sweep` / `capacity` taking the same flags."""

from __future__ import annotations

import json

import pytest

from chunkviz.cli.main import main

RUN = ["--workload", "long-among-chats", "--num-requests", "40", "--qps", "6", "--seed", "1",
       "--output-tokens", "32"]
SLO = ["--slo-ttft-ms", "500", "--slo-tbt-ms", "50"]


def _json(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_disagg_json_keys_and_per_gpu_figures(capsys):
    plain = _json(capsys, ["simulate", "--json", *RUN, *SLO])
    out = _json(capsys, ["simulate", "--json", *RUN, *SLO, "--deployment", "disagg", "--prefill-instances", "2",
                         "--kv-link", "rdma-400"])
    assert not {"deployment", "kv_transfer_s", "goodput_per_gpu"} & set(plain)
    assert set(plain) < set(out)
    assert out["deployment"]["num_gpus"] == 3 and out["deployment"]["kv_link"]["gb_per_s"] == 4.3  # effective (vllm#50913)
    assert out["kv_transfer_s"]["count"] == 40 and 0 < out["kv_transfer_s"]["p50"] <= out["kv_transfer_s"]["p99"]
    assert out["goodput_per_gpu"] == pytest.approx(out["goodput_strict_requests_per_s"] / 3)
    assert out["throughput_output_tokens_per_s_per_gpu"] == pytest.approx(out["throughput_output_tokens_per_s"] / 3)
    again = _json(capsys, ["simulate", "--json", *RUN, *SLO, "--deployment", "disagg", "--prefill-instances", "2",
                           "--kv-link", "rdma-400"])
    assert again == out


def test_colocated_json_has_no_transfers(capsys):
    out = _json(capsys, ["simulate", "--json", *RUN, "--deployment", "colocated", "--instances", "2"])
    assert out["kv_transfer_s"] is None and out["deployment"]["num_gpus"] == 2 and out["goodput_per_gpu"] is None


def test_trace_out_holds_each_instance_and_transfer(capsys, tmp_path):
    path = tmp_path / "run.json"
    assert main(["simulate", *RUN, "--deployment", "disagg", "--trace-out", str(path)]) == 0
    capsys.readouterr()
    data = json.loads(path.read_text())
    assert [(i["role"], i["index"]) for i in data["instances"]] == [("prefill", 0), ("decode", 0)]
    assert len(data["transfers"]) == 40 and data["instances"][1]["trace"]["steps"]


@pytest.mark.parametrize("argv, fragment", [
    (["--deployment", "split"], "invalid choice"),
    (["--deployment", "disagg", "--kv-link", "carrier-pigeon"], "--kv-link"),
    (["--deployment", "disagg", "--kv-link", "-5"], "--kv-link"),
    # below 1 GbE or above NVLink 5 (kv_link.py MIN/MAX_LINK_GB_PER_S): a physical link, named, not an arrival time
    (["--deployment", "disagg", "--kv-link", "1e-300"], "--kv-link must be one of"),
    (["--deployment", "disagg", "--kv-link", "5e-324"], "a bandwidth from 0.1 to 2000 GB/s"),
    (["--deployment", "disagg", "--kv-link", "1e-9"], "got '1e-9'"),
    (["--deployment", "disagg", "--kv-link", "100000"], "--kv-link must be one of"),
    (["--deployment", "disagg", "--prefill-instances", "0"], "--prefill-instances"),
    (["--deployment", "disagg", "--instances", "3"], "--instances needs --deployment colocated"),
    (["--prefill-instances", "2"], "--prefill-instances needs --deployment disagg"),
    (["--kv-link", "pcie"], "--kv-link needs --deployment disagg"),
    (["--routing", "least-loaded"], "--routing needs"),
    # --n-samples shapes the synthetic preset (the default long-among-chats builds its own requests)
    (["--deployment", "disagg", "--workload", "synthetic", "--n-samples", "2"], "parallel sampling"),
])
def test_bad_deployment_input_is_one_line_exit_2(capsys, argv, fragment):
    try:
        code = main(["simulate", "--num-requests", "5", *argv])
    except SystemExit as exc:  # argparse's own errors
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2 and fragment in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_sweep_and_capacity_accept_a_deployment(capsys):
    rows = _json(capsys, ["sweep", "--json", "--workers", "1", "--budgets", "512,2048", *RUN, *SLO,
                          "--deployment", "disagg"])["rows"]
    assert [r["budget_tokens"] for r in rows] == [512, 2048]
    assert all(r["deployment"]["num_gpus"] == 2 and r["kv_transfer_s"]["count"] == 40 for r in rows)
    probe_run = [a for a in RUN if a not in ("--qps", "6")]  # capacity sets the rate itself (and refuses --qps)
    disagg = _json(capsys, ["capacity", "--json", "--workers", "1", *probe_run, "--slo-tbt-p99-ms", "30",
                            "--qps-min", "1", "--qps-max", "16", "--max-rounds", "2", "--deployment", "disagg"])
    single = _json(capsys, ["capacity", "--json", "--workers", "1", *probe_run, "--slo-tbt-p99-ms", "30",
                            "--qps-min", "1", "--qps-max", "16", "--max-rounds", "2"])
    # The decode instance never prefills, so its TBT p99 stays low where one chunk-free engine's does not.
    assert disagg["probes"][0]["tbt_p99_s"] < single["probes"][0]["tbt_p99_s"]
