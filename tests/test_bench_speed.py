"""bench/speed.py's process rows and BLIS plumbing: the BLIS workload file holds exactly the requests chunkviz
simulates, in BLIS's TraceV2 format; --blis runs the binary beside chunkviz on the rows BLIS has an equivalent for; a
missing binary and an unknown --rows name fail in one clear line. No BLIS binary here: a fake one stands in, checking
the workload it is given. Speed itself is never asserted."""

from __future__ import annotations

import csv
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from chunkviz.cli.main import build_parser
from chunkviz.cli.simulate import scenario_from_args
from chunkviz.cost.catalogue import get_gpu, get_model
from tests.helpers import REPO, make_requests

SPEED_PY = REPO / "bench" / "speed.py"
NUM_REQUESTS = 200  # small, so a whole speed.py run with the reference loop takes a second or two


def _load_speed():
    spec = importlib.util.spec_from_file_location("bench_speed", SPEED_PY)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


speed = _load_speed()


def _read_blis_workload(header: Path, data: Path) -> tuple[dict, list[dict]]:
    header_fields = {}
    for line in header.read_text().splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.partition(":")
            header_fields[key.strip()] = value.strip()
    with data.open(newline="") as f:
        return header_fields, list(csv.DictReader(f))


def test_blis_workload_holds_exactly_the_requests(tmp_path):
    requests = make_requests([(0.0, 1462, 142), (0.185381291, 715, 182), (3.0000004, 1, 1), (3.0000006, 8000, 7)])
    header, data = speed.write_blis_workload(requests, tmp_path)
    fields, rows = _read_blis_workload(header, data)
    # BLIS's LoadTraceV2 reads this header strictly (yaml KnownFields) and the CSV by column position.
    assert fields == {"trace_version": "3", "time_unit": "microseconds", "mode": "generated", "warm_up_requests": "0"}
    with data.open(newline="") as f:
        assert tuple(next(csv.reader(f))) == speed.BLIS_TRACE_COLUMNS
    assert speed.BLIS_TRACE_COLUMNS[9:11] == ("input_tokens", "output_tokens")  # parseTraceRecord's row[9], row[10]
    assert speed.BLIS_TRACE_COLUMNS[17:21] == ("deadline_us", "server_input_tokens", "arrival_time_us", "send_time_us")
    assert len(rows) == len(requests)
    for i, (row, req) in enumerate(zip(rows, requests)):
        assert int(row["request_id"]) == i
        assert int(row["input_tokens"]) == req.prompt_tokens and int(row["output_tokens"]) == req.output_tokens
        assert int(row["arrival_time_us"]) == int(row["send_time_us"]) == round(req.arrival_s * 1e6)
        # Nothing BLIS would add to the prompt or cut the run short with: no shared prefix, no server count, no
        # deadline.
        assert (row["prefix_group"], row["prefix_length"], row["server_input_tokens"], row["deadline_us"]) == \
            ("", "0", "0", "0")
    assert [int(r["arrival_time_us"]) for r in rows] == [0, 185381, 3000000, 3000001]


def test_blis_workload_is_the_cli_run_requests(tmp_path):
    """speed.py's requests for a row are the very ones `simulate` builds from the row's flags."""
    argv = speed.chunkviz_argv(speed.ROWS_BY_NAME["default"], NUM_REQUESTS, exact=False)
    args = build_parser().parse_args(argv[argv.index("simulate"):])
    scenario = scenario_from_args(args)
    requests = speed.row_requests(NUM_REQUESTS)
    assert requests == scenario.requests() and len(requests) == NUM_REQUESTS
    assert scenario.model == get_model(speed.MODEL) and scenario.gpu == get_gpu(speed.GPU)
    _, rows = _read_blis_workload(*speed.write_blis_workload(requests, tmp_path))
    assert [(round(r.arrival_s * 1e6), r.prompt_tokens, r.output_tokens) for r in requests] == \
        [(int(r["arrival_time_us"]), int(r["input_tokens"]), int(r["output_tokens"])) for r in rows]


def test_blis_model_config_has_chunkviz_model_shapes(tmp_path):
    model = get_model(speed.MODEL)
    config = json.loads((speed.write_blis_model_config(model, tmp_path) / "config.json").read_text())
    assert (config["num_hidden_layers"], config["hidden_size"], config["num_attention_heads"],
            config["num_key_value_heads"], config["intermediate_size"], config["vocab_size"]) == \
        (model.num_layers, model.hidden_size, model.num_heads, model.num_kv_heads, model.intermediate_size,
         model.vocab_size)


# The fake BLIS: checks it was called as `blis replay` on a readable TraceV2 workload with the fair-comparison
# settings, logs what it got (one JSON line per call) and prints BLIS's metrics section.
FAKE_BLIS = """#!{python}
import csv, json, os, sys, time
args = sys.argv[1:]
opt = dict(zip(args[1::2], args[2::2]))
assert args[0] == "replay", args
assert opt["--cache-signal-delay"] == "0" and opt["--snapshot-refresh-interval"] == "0", opt
assert os.path.isfile(os.path.join(opt["--model-config-folder"], "config.json"))
header = open(opt["--trace-header"]).read()
assert "trace_version: 3" in header and "time_unit: microseconds" in header, header
with open(opt["--trace-data"], newline="") as f:
    rows = list(csv.DictReader(f))
with open(os.environ["FAKE_BLIS_LOG"], "a") as log:
    log.write(json.dumps({{"rows": len(rows), "opt": opt}}) + "\\n")
time.sleep(0.05)
print("=== Simulation Metrics ===")
print(json.dumps({{"completed_requests": len(rows)}}, indent=2))
"""


@pytest.fixture
def fake_blis(tmp_path):
    binary = tmp_path / "blis"
    binary.write_text(FAKE_BLIS.format(python=sys.executable))
    binary.chmod(0o755)
    return binary


def _run_speed(*args: str, log: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, **({"FAKE_BLIS_LOG": str(log)} if log else {})}
    return subprocess.run([sys.executable, str(SPEED_PY), "--only-processes", "--repeats", "1", *args],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=120)


def _table_rows(stdout: str) -> dict[str, list[str]]:
    """Table lines by their run label: the cells after it."""
    cells = [[c.strip() for c in line.strip().strip("|").split("|")] for line in stdout.splitlines()
             if line.startswith("| ") and "requests," in line]
    return {c[0]: c[1:] for c in cells}


def test_blis_fake_binary_gets_a_figure_and_ratio_where_it_has_an_equivalent(fake_blis, tmp_path):
    log = tmp_path / "calls.jsonl"
    done = _run_speed("--rows", "default,sglang", "--num-requests", str(NUM_REQUESTS), "--blis", str(fake_blis),
                      log=log)
    assert done.returncode == 0, done.stderr
    table = _table_rows(done.stdout)
    chunkviz, loop, loop_ratio, blis, blis_ratio, notes = table[f"{NUM_REQUESTS} requests, default run (prefix "
                                                                "caching on)"]
    assert blis.endswith("MiB") and blis.count(" s /") == 2
    assert blis_ratio.count("x") == 3 and loop_ratio.count("x") == 3
    assert f"BLIS completed {NUM_REQUESTS} of {NUM_REQUESTS}" in notes
    assert "same JSON as chunkviz, asserted" in notes
    sglang = table[f"{NUM_REQUESTS} requests, sglang (radix cache on)"]
    assert sglang[3].startswith("no equivalent") and sglang[4] == "-"
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(calls) == 1 and calls[0]["rows"] == NUM_REQUESTS  # once: default, not sglang
    # chunkviz's own settings of that run, not BLIS's defaults.
    opt = calls[0]["opt"]
    assert (opt["--max-num-batched-tokens"], opt["--block-size-in-tokens"], opt["--hardware"]) == ("2048", "16", "H100")
    assert int(opt["--total-kv-blocks"]) > 0 and int(opt["--max-num-seqs"]) > 0
    assert "BLIS command, first row: " in done.stdout


def test_blis_missing_binary_one_clear_line(tmp_path):
    done = _run_speed("--rows", "default", "--num-requests", str(NUM_REQUESTS), "--blis", str(tmp_path / "no-blis"))
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [f"bench/speed.py: --blis {tmp_path / 'no-blis'}: no executable file "
                                                "there (build BLIS in its clone: go build -o blis main.go)"]


def test_blis_failing_binary_one_clear_line(tmp_path):
    binary = tmp_path / "blis"
    binary.write_text("#!/bin/sh\necho 'level=fatal msg=\"LLM name not provided\"' >&2\nexit 3\n")
    binary.chmod(0o755)
    done = _run_speed("--rows", "default", "--num-requests", str(NUM_REQUESTS), "--blis", str(binary))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [f"bench/speed.py: BLIS ({binary}) failed (exit status 3): "
                                                "level=fatal msg=\"LLM name not provided\""]


def test_rows_rejects_an_unknown_name():
    done = _run_speed("--rows", "default,nonesuch")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1] == ("speed.py: error: argument --rows: unknown row 'nonesuch'; known "
                                                    "rows: default, caching-off, sglang, trtllm, 100k")
    assert "| run |" not in done.stdout  # nothing ran


def test_rows_pick_and_order():
    assert [r.name for r in speed.parse_rows("100k, default,default")] == ["100k", "default"]
    assert speed.row_num_requests(speed.ROWS_BY_NAME["100k"], 20_000) == 100_000


def test_100k_loop_once_or_skipped():
    """The 100k row's reference loop runs in the first round only, or never with --no-exact-100k."""
    long, default = speed.ROWS_BY_NAME["100k"], speed.ROWS_BY_NAME["default"]
    assert [speed.exact_runs_this_round(long, first, True) for first in (True, False)] == [True, False]
    assert not speed.exact_runs_this_round(long, True, False)
    assert speed.exact_runs_this_round(default, False, False)
