"""The seed article's toy demo: its six printed figures, the corrected reading, a brute-force twin, and the CLI."""

from __future__ import annotations

import itertools
import json
import math
import random
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkviz.cli.main import main
from chunkviz.errors import SimulationLimitError
from chunkviz.lessons.seed_demo import (
    FLAWS,
    PERCENTILE_METHOD,
    SeedRequest,
    generate_requests,
    nearest_rank_percentile,
    run_seed_demo,
    toy_p95,
    toy_simulate,
)


def test_reproduces_the_articles_six_figures() -> None:
    report = run_seed_demo(30, 7, 8)
    mono, chunked = report.monolithic, report.chunked
    # The article prints "%d" steps and "%.1f" for mean and P95.
    assert (mono.total_steps, f"{mono.mean_ttft_toy:.1f}", f"{mono.p95_ttft_toy:.1f}") == (1381, "582.3", "1115.0")
    assert (chunked.total_steps, f"{chunked.mean_ttft_toy:.1f}", f"{chunked.p95_ttft_toy:.1f}") == (
        2447, "1160.7", "2226.0")
    assert report == run_seed_demo()  # the defaults are the article's


def test_private_random_matches_module_level_seed() -> None:
    saved = random.getstate()
    try:
        random.seed(7)  # what the article does
        draws = [(random.randint(1, 4), random.choice([64, 128, 256, 512, 1024, 2048]), random.randint(16, 64))
                 for _ in range(30)]
    finally:
        random.setstate(saved)
    requests = generate_requests(30, 7)
    gaps = [requests[0].arrive_step] + [b.arrive_step - a.arrive_step for a, b in itertools.pairwise(requests)]
    assert [(g, r.prompt_tokens, r.output_tokens) for g, r in zip(gaps, requests, strict=True)] == draws


def test_ttft_from_arrival_is_smaller_than_absolute() -> None:
    for run in (run_seed_demo().monolithic, run_seed_demo().chunked):
        assert run.mean_ttft_from_arrival < run.mean_ttft_toy
        assert all(0 < t - a < t for t, a in zip(run.ttft_abs_steps, run.arrive_steps, strict=True))
        # Every request finishes after its first token and no later than the last step.
        assert all(t <= f < run.total_steps for t, f in zip(run.ttft_abs_steps, run.finish_steps, strict=True))


def test_percentiles_by_hand() -> None:
    values = tuple(range(1, 31))  # 1..30
    # Toy: index int(30·0.95) - 1 = 27 → 28. Nearest rank: ceil(0.95·30) = 29 → 29.
    assert (toy_p95(values), nearest_rank_percentile(values, 95)) == (28, 29)
    # 0.95·20 = 19 is whole, so both read rank 19.
    assert toy_p95(tuple(range(1, 21))) == nearest_rank_percentile(tuple(range(1, 21)), 95) == 19
    assert nearest_rank_percentile((5,), 95) == toy_p95((5,)) == 5
    assert PERCENTILE_METHOD == "nearest-rank"


def _reference(requests: tuple[SeedRequest, ...], chunk: int | None) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
    """Brute force: rescan every request each step, budget 8 work units, 0.5 units per prompt token."""
    by_arrival = sorted(requests, key=lambda r: r.arrive_step)
    prompt_left = {r.req_id: r.prompt_tokens for r in requests}
    out_left = {r.req_id: r.output_tokens for r in requests}
    first: dict[int, int] = {}
    done: dict[int, int] = {}
    step = 0
    while len(done) < len(requests):
        assert step < 1_000_000
        here = [r for r in by_arrival if r.arrive_step <= step]
        queued = [r for r in here if r.req_id not in first]
        if chunk is None and queued:
            step += max(1, math.ceil(prompt_left[queued[0].req_id] * 0.5 / 8))
            first[queued[0].req_id] = step
            continue
        units = 8.0
        for r in here:
            if r.req_id in first and out_left[r.req_id] > 0 and units >= 1:
                out_left[r.req_id] -= 1
                units -= 1
                if out_left[r.req_id] == 0:
                    done[r.req_id] = step
        if chunk is not None and queued and units >= chunk * 0.5:
            prompt_left[queued[0].req_id] -= chunk
            if prompt_left[queued[0].req_id] <= 0:
                first[queued[0].req_id] = step
        step += 1
    ids = [r.req_id for r in requests]
    return step, tuple(first[i] for i in ids), tuple(done[i] for i in ids)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 25), st.integers(1, 16))
def test_matches_brute_force(seed: int, num_requests: int, chunk: int) -> None:
    requests = generate_requests(num_requests, seed)
    assert toy_simulate(requests, None) == _reference(requests, None)
    assert toy_simulate(requests, chunk) == _reference(requests, chunk)


def test_chunk_over_budget_is_refused_and_the_loop_is_bounded() -> None:
    with pytest.raises(ValueError, match="at most 16 tokens"):
        run_seed_demo(chunk_tokens=17)
    # Called directly, the toy's loop would spin forever; the step bound stops it.
    with pytest.raises(SimulationLimitError):
        toy_simulate(generate_requests(5, 7), 32)
    assert issubclass(SimulationLimitError, RuntimeError)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"num_requests": 0}, "num_requests must be an integer from 1 to 2000"),
    ({"num_requests": 2001}, "num_requests must be an integer from 1 to 2000"),
    ({"chunk_tokens": 0}, "chunk must be an integer from 1 to 4096"),
    ({"chunk_tokens": 4097}, "chunk must be an integer from 1 to 4096"),
    ({"seed": 1.5}, "seed must be an integer"),
])
def test_validation_messages(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        run_seed_demo(**kwargs)  # type: ignore[arg-type]


def test_report_dict_is_json_and_flaws_are_listed() -> None:
    data = json.loads(json.dumps(run_seed_demo().to_dict()))
    for mode in ("monolithic", "chunked"):
        assert {"total_steps", "mean_ttft", "p95_ttft", "mean_ttft_from_arrival",
                "p95_ttft_from_arrival"} <= data[mode].keys()
        assert len(data[mode]["ttft_abs_steps"]) == 30
    assert data["flaws"] == list(FLAWS)
    assert {"ttft_absolute", "p95_index_off_by_one", "chunk_one_per_step", "monolithic_prefill_jump"} <= FLAWS.keys()
    assert all(sentence.endswith(".") for sentence in FLAWS.values())


def test_cli_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["seed-demo", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["monolithic"]["total_steps"] == 1381 and data["chunked"]["p95_ttft"] == 2226


def test_cli_table_and_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["seed-demo", "--num-requests", "10", "--seed", "3", "--chunk", "4"]) == 0
    out = capsys.readouterr().out
    assert "chunked (4)" in out and "10 requests, seed 3" in out
    assert main(["seed-demo"]) == 0
    assert "1381" in capsys.readouterr().out


def test_cli_bad_input_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["seed-demo", "--bogus"])
    assert exc.value.code == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
    assert main(["seed-demo", "--chunk", "0"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "chunk must be an integer from 1 to 4096" in err[0]


def test_imports_no_ui_or_torch() -> None:
    code = ("import sys, chunkviz.lessons.seed_demo, chunkviz.cli.seed_demo; "
            "print('streamlit' in sys.modules, 'torch' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["False", "False"]
