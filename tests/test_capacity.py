"""`chunkviz capacity`: the JSON contract, the search's bracket (the capacity meets the SLO, the next probe above
misses it), parallel probes equal sequential ones, chunked prefill carries more load than prefill-first under a
tight TBT target, and bad SLO input is one line with exit 2."""

from __future__ import annotations

import json

import pytest

from chunkviz.analysis.capacity import Slo, at_rate, find_capacity, run_probe
from chunkviz.analysis.parallel import map_ordered
from chunkviz.analysis.scenario import DEFAULT_SCENARIO
from chunkviz.cli.main import main
from chunkviz.errors import InputError

COMMON = ["--workload", "long-among-chats", "--num-requests", "80", "--output-tokens", "48", "--prompt-tokens", "600",
          "--seed", "2", "--qps-min", "1", "--qps-max", "64", "--max-rounds", "3"]


def _capacity(capsys, *extra: str) -> dict:
    assert main(["capacity", "--json", *COMMON, *extra]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_contract_and_bracket(capsys):
    out = _capacity(capsys, "--policy", "monolithic", "--slo-tbt-p99-ms", "60", "--workers", "1")
    assert set(out) == {"capacity_qps", "criterion", "bound_hit", "probes"}
    assert out["criterion"] == "tbt_p99 <= 60 ms and queue_p50 <= 2000 ms"  # Sarathi-Serve's queue bound by default
    assert out["bound_hit"] is False
    probes = out["probes"]
    assert all(set(p) == {"qps", "meets_slo", "tbt_p99_s", "ttft_p50_s", "queue_p50_s"} for p in probes)
    rates = [p["qps"] for p in probes]
    assert rates == sorted(rates) and len(set(rates)) == len(rates)
    best = next(p for p in probes if p["qps"] == out["capacity_qps"])
    assert best["meets_slo"] and best["tbt_p99_s"] <= 0.060
    assert all(p["meets_slo"] for p in probes if p["qps"] < best["qps"])  # nothing below it failed
    above = [p for p in probes if p["qps"] > best["qps"]]
    assert above and not above[0]["meets_slo"]  # the next probe up misses the target


def test_parallel_probes_equal_sequential_ones(capsys):
    args = ("--policy", "monolithic", "--slo-tbt-p99-ms", "60", "--slo-ttft-p50-ms", "2000")
    assert _capacity(capsys, *args, "--workers", "2") == _capacity(capsys, *args, "--workers", "1")


def test_chunked_prefill_carries_more_load_than_prefill_first_under_a_tight_tbt(capsys):
    mono = _capacity(capsys, "--policy", "monolithic", "--slo-tbt-p99-ms", "60", "--workers", "1")
    chunked = _capacity(capsys, "--policy", "chunked", "--max-num-batched-tokens", "256", "--slo-tbt-p99-ms", "60",
                        "--workers", "1")
    assert chunked["capacity_qps"] > mono["capacity_qps"]


def test_an_unstable_queue_ends_the_capacity_even_when_tbt_stays_low(capsys):
    # Chunked prefill keeps every step small, so TBT alone holds at rates whose queue grows without bound; the
    # default queue bound (median scheduling delay <= 2 s) stops the search where the queue no longer drains.
    # (A 128-token budget: since steps are priced with CUDA graphs and overlap scheduling, 256 drains at 64 req/s.)
    args = ("--policy", "chunked", "--max-num-batched-tokens", "128", "--slo-tbt-p99-ms", "60", "--workers", "1")
    tbt_only = _capacity(capsys, *args, "--slo-queue-p50-ms", "3600000")
    sustainable = _capacity(capsys, *args)
    assert tbt_only["bound_hit"] and tbt_only["capacity_qps"] == 64
    assert not sustainable["bound_hit"] and sustainable["capacity_qps"] < 64
    first_miss = next(p for p in sustainable["probes"] if not p["meets_slo"])
    assert first_miss["tbt_p99_s"] <= 0.060 < 2.0 < first_miss["queue_p50_s"]  # only the queue failed it


def test_a_search_that_hits_its_bound_says_so(capsys):
    out = _capacity(capsys, "--policy", "chunked", "--max-num-batched-tokens", "256", "--slo-tbt-p99-ms", "3600000",
                    "--slo-queue-p50-ms", "3600000", "--workers", "1")
    assert out["bound_hit"] is True and out["capacity_qps"] == 64  # a lower bound: every probe met the SLO
    assert all(p["meets_slo"] for p in out["probes"])
    capsys.readouterr()
    main(["capacity", *COMMON, "--policy", "chunked", "--max-num-batched-tokens", "256", "--slo-tbt-p99-ms",
          "3600000", "--slo-queue-p50-ms", "3600000", "--workers", "1"])
    assert capsys.readouterr().out.startswith("capacity >= 64.000 (the search bound) requests/s")


def test_each_probe_regenerates_the_workload_at_its_rate():
    slow, fast = at_rate(DEFAULT_SCENARIO, 2.0), at_rate(DEFAULT_SCENARIO, 8.0)
    assert slow.workload.qps == 2.0 and fast.workload.qps == 8.0 and not fast.record_detail
    assert slow.requests()[-1].arrival_s > fast.requests()[-1].arrival_s
    assert run_probe((DEFAULT_SCENARIO, 8.0, Slo(0.1))) == run_probe((DEFAULT_SCENARIO, 8.0, Slo(0.1)))


def test_a_target_nobody_meets_gives_no_capacity():
    result = find_capacity(DEFAULT_SCENARIO, Slo(1e-6), map_ordered, 1.0, 4.0, probes_per_round=2, max_rounds=2)
    assert result.capacity_qps is None and [p.qps for p in result.probes] == [1.0, 4.0]


@pytest.mark.parametrize("argv, message", [
    (["--slo-tbt-p99-ms", "0"], "--slo-tbt-p99-ms must be a number of milliseconds from 1e-06 to 3600000"),
    (["--slo-tbt-p99-ms", "nan"], "--slo-tbt-p99-ms must be a number of milliseconds from 1e-06 to 3600000"),
    (["--slo-tbt-p99-ms", "100", "--slo-ttft-p50-ms", "-5"], "--slo-ttft-p50-ms must be a number of milliseconds from 1e-06 to 3600000"),
    (["--slo-tbt-p99-ms", "100", "--slo-queue-p50-ms", "1e12"], "--slo-queue-p50-ms must be a number"),
    (["--slo-tbt-p99-ms", "abc"], "invalid float value"),
    ([], "the following arguments are required: --slo-tbt-p99-ms"),
    (["--slo-tbt-p99-ms", "100", "--qps-min", "8", "--qps-max", "2"], "need 0 < --qps-min < --qps-max"),
])
def test_bad_slo_input_is_one_line_and_exit_2(capsys, argv, message):
    with pytest.raises(SystemExit) if "required" in message or "invalid" in message else _no_raise():
        assert main(["capacity", "--num-requests", "5", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and err.count("\n") == 1


def test_slo_checks_its_own_values():
    with pytest.raises(InputError):
        Slo(0.1, ttft_p50_s=float("inf"))


class _no_raise:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
