"""`chunkviz sweep`: rows equal `simulate --json` point by point, in grid order, the same on one process, on a pool
of worker processes and on a real dask.distributed cluster; bad grids end with one line and exit 2."""

from __future__ import annotations

import json

import pytest

from chunkviz.analysis.parallel import map_ordered
from chunkviz.cli.main import main

COMMON = ["--workload", "long-among-chats", "--num-requests", "30", "--qps", "8", "--output-tokens", "40",
          "--seed", "5"]
GRID = ["--budgets", "64,512,2048", "--qps-scale", "1,2"]


def _json(capsys, argv: list[str]) -> dict:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def _rows(capsys, *extra: str) -> list[dict]:
    return _json(capsys, ["sweep", "--json", *COMMON, *GRID, *extra])["rows"]


def test_rows_follow_the_grid_and_equal_simulate_json(capsys):
    rows = _rows(capsys, "--workers", "1")
    assert [(r["qps_scale"], r["budget_tokens"]) for r in rows] == [(s, b) for s in (1.0, 2.0) for b in (64, 512, 2048)]
    single = _json(capsys, ["simulate", "--json", *COMMON[:-4], "--qps", "16", "--output-tokens", "40", "--seed", "5",
                            "--max-num-batched-tokens", "512"])
    row = dict(rows[4])
    assert row.pop("qps_scale") == 2.0
    assert row == single  # a row is exactly what simulate prints for that point


def test_worker_processes_give_the_same_rows(capsys):
    assert _rows(capsys, "--workers", "2") == _rows(capsys, "--workers", "1")


def test_a_real_dask_cluster_gives_the_same_rows(capsys):
    distributed = pytest.importorskip("distributed")
    # Worker processes (not threads): the points are pickled to other interpreters, as on a real cluster.
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        on_cluster = _rows(capsys, "--scheduler-address", cluster.scheduler_address)
    assert on_cluster == _rows(capsys, "--workers", "1")


def test_progress_is_reported_per_point_and_order_is_kept():
    calls = []
    assert map_ordered(abs, [-3, 1, -2], workers=2, on_progress=lambda d, n: calls.append((d, n))) == [3, 1, 2]
    assert calls == [(1, 3), (2, 3), (3, 3)]


@pytest.mark.parametrize("argv, message", [
    (["--budgets", "64,abc"], "--budgets must be a comma-separated list"),
    (["--budgets", "0,64"], "every budget must be"),
    (["--budgets", "64", "--qps-scale", "-1"], "every --qps-scale"),
    (["--budgets", "64", "--workers", "0"], "--workers must be"),
    (["--budgets", "64", "--scheduler-address", "not an address"], "--scheduler-address must be tcp://HOST:PORT"),
    (["--budgets", "64", "--scheduler-address", "tcp://127.0.0.1:9"], "could not reach a Dask scheduler there"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, monkeypatch, argv, message):
    monkeypatch.setattr("chunkviz.analysis.parallel.CONNECT_TIMEOUT_S", 1)
    assert main(["sweep", "--num-requests", "5", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and err.count("\n") == 1


def test_a_point_does_not_depend_on_the_workers_blas_threads():
    # Dask workers run numpy with one BLAS thread; a BLAS dot product over thousands of steps gives other last bits
    # with more threads, so the metrics must not use one (seen as a differing mfu_mean between executors).
    import os
    import subprocess
    import sys
    from pathlib import Path

    argv = [sys.executable, "-m", "chunkviz", "simulate", "--json", "--workload", "long-among-chats",
            "--num-requests", "1000", "--qps", "8", "--prompt-tokens", "300", "--output-tokens", "128",
            "--max-num-batched-tokens", "64"]
    outs = []
    for threads in ("1", "2"):
        env = {**os.environ, "OPENBLAS_NUM_THREADS": threads, "OMP_NUM_THREADS": threads}
        outs.append(subprocess.run(argv, cwd=Path(__file__).resolve().parents[1], env=env, check=True,
                                   capture_output=True, text=True).stdout)
    assert json.loads(outs[0])["num_steps"] > 15_000 and outs[0] == outs[1]
