"""Trace loading (Azure CSV, Mooncake JSONL, plain CSV), its error messages, the bundled sample, and selection."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from chunkviz.errors import InputError
from chunkviz.request import Segment
from chunkviz.workloads.checks import DEFAULT_LOAD_OPTIONS, LoadOptions
from chunkviz.workloads.loaders import BUNDLED_SAMPLE_PATH, detect_format, load_bundled_sample, load_bytes, load_trace
from chunkviz.workloads.select import select
from tests.helpers import shared_missing, shared_path

SHARED_TRACES = shared_path("traces")
AZURE_HEADER = "TIMESTAMP,ContextTokens,GeneratedTokens\r\n"


def _write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return path


def _azure(*rows: str) -> bytes:
    return (AZURE_HEADER + "".join(row + "\r\n" for row in rows)).encode()


def _error(raw: bytes, fmt: str, options: LoadOptions = DEFAULT_LOAD_OPTIONS) -> str:
    with pytest.raises(InputError) as info:
        load_bytes(raw, fmt, options)
    return str(info.value)


# ---- Azure 2023 CSV ----------------------------------------------------------------------------------------------

def test_azure_sorts_stably_rebases_and_keeps_100ns_digits(tmp_path: Path) -> None:
    path = _write(tmp_path, "t.csv", _azure(
        "2023-11-16 18:17:04.0319600,3180,8",
        "2023-11-16 18:17:03.9799600,4808,10",  # earliest: becomes request 0 at 0.0
        "2023-11-16 18:17:04.0319600,100,2",  # ties the first row: file order keeps it after (3180, 8)
        "2023-11-16 18:17:03.9799601,7,1",  # one 100 ns tick after the earliest
    ))
    load = load_trace(path)
    assert load.trace_format == "azure" and load.num_rows == 4
    assert [(r.request_id, r.prompt_tokens) for r in load.requests] == [(0, 4808), (1, 7), (2, 3180), (3, 100)]
    # 04.0319600 - 03.9799600 = 0.0520000 s; one 100 ns tick apart must survive as 1e-7 s
    assert [r.arrival_s for r in load.requests] == [0.0, 1e-7, 0.052, 0.052]
    assert any("sorted" in note for note in load.notes)
    assert any("2023-11-16 18:17:03.9799600" in note for note in load.notes)


def test_azure_across_midnight_is_exact() -> None:
    load = load_bytes(_azure("2023-11-16 23:59:59.9999999,5,5", "2023-11-17 00:00:00.0000001,5,5"), "azure")
    assert load.requests[1].arrival_s == 2e-7


@pytest.mark.parametrize(("rule", "expected_outputs", "note_part"), [
    ("clamp", [1, 4], "1 row with 0 in GeneratedTokens was given 1 token"),
    ("skip", [4], "1 row with 0 in GeneratedTokens was skipped"),
])
def test_azure_zero_output_is_counted_never_silent(rule: str, expected_outputs: list[int], note_part: str) -> None:
    raw = _azure("2023-11-16 18:00:00.0000000,10,0", "2023-11-16 18:00:01.0000000,10,4")
    load = load_bytes(raw, "azure", LoadOptions(zero_tokens=rule))  # type: ignore[arg-type]
    assert [r.output_tokens for r in load.requests] == expected_outputs
    assert any(note_part in note for note in load.notes)
    assert load.num_rows == 2


def test_azure_zero_rule_error_names_row_and_column() -> None:
    message = _error(_azure("2023-11-16 18:00:00.0,0,3"), "azure", LoadOptions(zero_tokens="error"))
    assert "row 1 (line 2)" in message and "ContextTokens" in message


@pytest.mark.parametrize(("rows", "parts"), [
    (["2023-11-16 18:00:00.0,12.5,3"], ["row 1 (line 2)", "ContextTokens", "whole number", "'12.5'"]),
    (["2023-11-16 18:00:00.0,5,3", "2023-11-16 18:00:01.0,5,-3"], ["row 2 (line 3)", "GeneratedTokens", "negative"]),
    (["2023-11-16 18:00:00.0,,3"], ["row 1", "ContextTokens", "missing value"]),
    (["2023-11-16 18:00:00.0,2000000,3"], ["row 1", "ContextTokens", "over the limit of 1,000,000"]),
    (["2023-11-16 18:00:00.0,20,200000"], ["row 1", "GeneratedTokens", "over the limit of 100,000"]),
    (["2023-11-16 18:00:00.0,20,abc"], ["row 1", "GeneratedTokens", "'abc'"]),
    (["yesterday,20,3"], ["row 1", "TIMESTAMP", "expected a time like"]),
    (["2023-02-30 18:00:00.0,20,3"], ["row 1", "TIMESTAMP", "not a real date"]),
    (["2023-11-16 25:00:00.0,20,3"], ["row 1", "TIMESTAMP", "not a real time"]),
    (["2023-11-16 18:00:00.0,20"], ["row 1 (line 2)", "2 fields", "3 columns"]),
    (["2023-11-16 18:00:00.0,20,3,9"], ["row 1 (line 2)", "4 fields"]),
])
def test_azure_bad_cells_name_row_and_column(rows: list[str], parts: list[str]) -> None:
    message = _error(_azure(*rows), "azure")
    for part in parts:
        assert part in message


def test_blank_lines_are_not_rows_in_error_numbers() -> None:
    raw = (AZURE_HEADER + "2023-11-16 18:00:00.0,5,3\r\n\r\n2023-11-16 18:00:01.0,x,3\r\n").encode()
    assert "row 2 (line 4)" in _error(raw, "azure")


def test_missing_column_is_named() -> None:
    message = _error(b"TIMESTAMP,ContextTokens\n2023-11-16 18:00:00.0,5\n", "azure")
    assert "GeneratedTokens" in message and "missing required column" in message


@pytest.mark.parametrize(("raw", "part"), [
    (b"", "empty"),
    (b"  \n\n", "empty"),
    (AZURE_HEADER.encode(), "no data rows"),
])
def test_empty_files(raw: bytes, part: str) -> None:
    assert part in _error(raw, "azure")


def test_non_utf8_names_byte_offset() -> None:
    raw = _azure("2023-11-16 18:00:00.0,5,3") + b"2023-11-16 18:00:01.0,\xff5,3\r\n"
    offset = raw.index(b"\xff")
    message = _error(raw, "azure")
    assert f"byte offset {offset}" in message and "0xff" in message and "line 3" in message


def test_size_and_request_caps() -> None:
    raw = _azure("2023-11-16 18:00:00.0,5,3", "2023-11-16 18:00:01.0,5,3", "2023-11-16 18:00:02.0,5,3")
    assert "limit is" in _error(raw, "azure", LoadOptions(max_bytes=50))
    assert "more than 2 requests" in _error(raw, "azure", LoadOptions(max_requests=2))
    assert len(load_bytes(raw, "azure", LoadOptions(max_requests=3)).requests) == 3


def test_path_size_is_checked_before_reading(tmp_path: Path) -> None:
    path = _write(tmp_path, "big.csv", _azure(*["2023-11-16 18:00:00.0,5,3"] * 20))
    with pytest.raises(InputError, match="limit is"):
        load_trace(path, "azure", options=LoadOptions(max_bytes=100))


def test_missing_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read trace file"):
        load_trace(tmp_path / "nope.csv")


# ---- Mooncake JSONL ----------------------------------------------------------------------------------------------

def _mc(timestamp: object, input_length: object, output_length: object, hash_ids: object) -> str:
    return json.dumps({"timestamp": timestamp, "input_length": input_length, "output_length": output_length,
                       "hash_ids": hash_ids})


def test_mooncake_blocks_become_segments() -> None:
    raw = "\n".join([
        _mc(3000, 1100, 7, [0, 1, 2]),  # 512 + 512 + 76 (1100 - 2*512)
        _mc(1500, 1024, 3, [0, 5]),  # exact multiple: the last block is full
        "",
    ]).encode()
    load = load_bytes(raw, "mooncake")
    first, second = load.requests
    assert (first.arrival_s, second.arrival_s) == (0.0, 1.5)  # (3000 - 1500) ms = 1.5 s, sorted
    assert first.segments == (Segment("mc0", 512), Segment("mc5", 512))
    assert second.segments == (Segment("mc0", 512), Segment("mc1", 512), Segment("mc2", 76))
    assert any("1.5 s was subtracted" in note for note in load.notes)


@pytest.mark.parametrize(("lines", "parts"), [
    ([_mc(0, 10, 1, [0]), '{"timestamp": 1,'], ["line 2", "not valid JSON"]),
    ([_mc(0, 10, 1, [0]), "[1, 2]"], ["line 2", "JSON object"]),
    (['{"timestamp": 0, "input_length": 10, "output_length": 1}'], ["line 1", "hash_ids"]),
    ([_mc(0, 1100, 1, [0, 1])], ["line 1", "hash_ids", "expected ceil(1100/512) = 3"]),
    ([_mc(0, 10, 1, [0, "a"])], ["line 1", "hash_ids", "entry 1"]),
    ([_mc(0, 10.0, 1, [0])], ["line 1", "input_length", "whole number"]),
    ([_mc(0, 10, -1, [0])], ["line 1", "output_length", "negative"]),
    ([_mc(-5, 10, 1, [0])], ["line 1", "timestamp", "negative"]),
    (['{"timestamp": NaN, "input_length": 10, "output_length": 1, "hash_ids": [0]}'],
     ["line 1", "timestamp", "finite"]),
    ([_mc("soon", 10, 1, [0])], ["line 1", "timestamp", "number"]),
    ([_mc(0, 10, 1, [0]), "", _mc(0, 2_000_000, 1, [])], ["line 3", "input_length", "over the limit"]),
])
def test_mooncake_bad_lines_name_line_and_field(lines: list[str], parts: list[str]) -> None:
    message = _error("\n".join(lines).encode(), "mooncake")
    for part in parts:
        assert part in message


def test_mooncake_zero_output_clamped_and_counted() -> None:
    load = load_bytes((_mc(0, 10, 0, [4]) + "\n").encode(), "mooncake")
    assert load.requests[0].output_tokens == 1
    assert load.notes == ("1 row with 0 in output_length was given 1 token",)


# ---- plain CSV ---------------------------------------------------------------------------------------------------

def test_plain_csv_prefix_ids_and_tail() -> None:
    raw = b"arrival_s,prompt_tokens,output_tokens,prefix_ids\n2.5,1100,5,3;7\n2.0,600,4,3;8\n4,10,1,\n"
    load = load_bytes(raw, "csv")
    r0, r1, r2 = load.requests
    assert [r.arrival_s for r in load.requests] == [0.0, 0.5, 2.0]
    # row 2: ceil(600/512) = 2 ids, the last holds 600 - 512 = 88 tokens
    assert r0.segments == (Segment("p3", 512), Segment("p8", 88))
    # row 1: 2 full blocks cover 1024 of 1100 tokens; the other 76 are unshared
    assert r1.segments == (Segment("p3", 512), Segment("p7", 512), Segment("csv-row1", 76))
    assert r2.segments is None
    assert any("2 s was subtracted" in note for note in load.notes)


def test_plain_csv_block_size_option() -> None:
    load = load_bytes(b"arrival_s,prompt_tokens,output_tokens,prefix_ids\n0,10,1,1;2;3\n", "csv",
                      LoadOptions(block_tokens=4))
    assert load.requests[0].segments == (Segment("p1", 4), Segment("p2", 4), Segment("p3", 2))


@pytest.mark.parametrize(("row", "parts"), [
    ("nan,5,1", ["row 1 (line 2)", "arrival_s", "finite"]),
    ("inf,5,1", ["row 1", "arrival_s", "finite"]),
    ("-1,5,1", ["row 1", "arrival_s", "negative"]),
    (",5,1", ["row 1", "arrival_s", "missing value"]),
    ("soon,5,1", ["row 1", "arrival_s", "number of seconds"]),
    ("0,5,1.5", ["row 1", "output_tokens", "whole number"]),
    ("0,600,1,1;x", ["row 1", "prefix_ids", "'1;x'"]),
    ("0,600,1,1;2;3", ["row 1", "prefix_ids", "3 block ids", "ceil(600/512) = 2"]),
])
def test_plain_csv_bad_cells(row: str, parts: list[str]) -> None:
    header = "arrival_s,prompt_tokens,output_tokens" + (",prefix_ids" if row.count(",") == 3 else "")
    message = _error(f"{header}\n{row}\n".encode(), "csv")
    for part in parts:
        assert part in message


# ---- detection ---------------------------------------------------------------------------------------------------

def test_detect_format() -> None:
    assert detect_format(None, b'\xef\xbb\xbf{"timestamp": 0}') == "mooncake"
    assert detect_format("x.csv", AZURE_HEADER.encode()) == "azure"
    assert detect_format("x.csv", b"arrival_s,prompt_tokens,output_tokens,prefix_ids\n") == "csv"
    assert detect_format("x.csv", b"arrival_s,prompt_tokens\n") == "csv"  # so the loader names the missing column
    assert detect_format("x.jsonl", b"[1]\n") == "mooncake"
    with pytest.raises(InputError, match="cannot tell the format"):
        detect_format("x.txt", b"a,b,c\n")
    with pytest.raises(InputError, match="empty"):
        detect_format("x.txt", b"")


def test_load_trace_from_uploaded_bytes_and_unknown_format() -> None:
    load = load_trace(b"arrival_s,prompt_tokens,output_tokens\n0,5,1\n", name="upload.csv")
    assert load.trace_format == "csv" and load.requests[0].prompt_tokens == 5
    with pytest.raises(InputError, match="unknown trace format 'parquet'"):
        load_trace(b"x", "parquet")


# ---- bundled sample ----------------------------------------------------------------------------------------------

def test_bundled_sample_loads_in_order() -> None:
    load = load_bundled_sample()
    requests = load.requests
    assert len(requests) == 332 and load.num_rows == 332
    assert [r.request_id for r in requests] == list(range(332))
    assert requests[0].arrival_s == 0.0 and requests[-1].arrival_s < 90.0
    assert all(a.arrival_s <= b.arrival_s for a, b in itertools.pairwise(requests))
    assert (requests[0].prompt_tokens, requests[0].output_tokens) == (374, 44)
    assert (BUNDLED_SAMPLE_PATH.parent / "ATTRIBUTION.md").is_file()


@pytest.mark.skipif(not SHARED_TRACES.is_dir(), reason=shared_missing(SHARED_TRACES))
def test_bundled_sample_is_a_byte_identical_prefix_of_the_original() -> None:
    sample = BUNDLED_SAMPLE_PATH.read_bytes()
    original = (SHARED_TRACES / "azure2023" / "AzureLLMInferenceTrace_conv.csv").read_bytes()
    assert original.startswith(sample)


# ---- selection ---------------------------------------------------------------------------------------------------

def _five() -> tuple:
    raw = b"arrival_s,prompt_tokens,output_tokens\n" + b"".join(f"{t},{10 + t},1\n".encode() for t in range(5))
    return load_bytes(raw, "csv").requests  # arrivals 0,1,2,3,4 s; prompt = 10 + arrival


def test_select_window_rebases_and_renumbers() -> None:
    chosen = select(_five(), time_window_s=(1.0, 3.0))  # keeps 1 <= t < 3: arrivals 1 and 2
    assert [(r.request_id, r.arrival_s, r.prompt_tokens) for r in chosen] == [(0, 0.0, 11), (1, 1.0, 12)]


def test_select_rate_scale_compresses_time() -> None:
    assert [r.arrival_s for r in select(_five(), rate_scale=2.0)] == [0.0, 0.5, 1.0, 1.5, 2.0]


def test_select_sample_is_seeded_ordered_and_sized() -> None:
    first = select(_five(), sample=3, seed=7)
    assert first == select(_five(), sample=3, seed=7)
    assert len(first) == 3 and [r.request_id for r in first] == [0, 1, 2]
    assert first[0].arrival_s == 0.0
    assert [r.prompt_tokens for r in first] == sorted(r.prompt_tokens for r in first)
    assert len(select(_five(), sample=99)) == 5


@pytest.mark.parametrize(("kwargs", "part"), [
    ({"time_window_s": (3.0, 1.0)}, "start < end"),
    ({"time_window_s": (float("nan"), 1.0)}, "start < end"),
    ({"time_window_s": (10.0, 20.0)}, "no request arrives"),
    ({"rate_scale": 0.0}, "rate scale"),
    ({"rate_scale": float("inf")}, "rate scale"),
    ({"sample": 0}, "sample size"),
])
def test_select_validation(kwargs: dict, part: str) -> None:
    with pytest.raises(InputError, match=part):
        select(_five(), **kwargs)


# ---- the real shared traces --------------------------------------------------------------------------------------

@pytest.mark.skipif(not SHARED_TRACES.is_dir(), reason=shared_missing(SHARED_TRACES))
@pytest.mark.parametrize(("relative", "num_requests", "span_min"), [
    ("azure2023/AzureLLMInferenceTrace_code.csv", 8819, 57.3),
    ("azure2023/AzureLLMInferenceTrace_conv.csv", 19366, 58.4),
    ("mooncake/conversation_trace.jsonl", 12031, 59.0),
    ("mooncake/synthetic_trace.jsonl", 3993, 17.0),
])
def test_real_traces_load(relative: str, num_requests: int, span_min: float) -> None:
    load = load_trace(SHARED_TRACES / relative)
    assert len(load.requests) == num_requests
    assert load.requests[-1].request_id == num_requests - 1
    assert load.requests[-1].arrival_s / 60 == pytest.approx(span_min, abs=0.1)
    # These copies hold no 0-token rows and no out-of-order rows: the only note is where time starts, if any.
    assert all("0 in" not in note and "sorted" not in note for note in load.notes)


def test_plain_csv_and_mooncake_carry_the_clients_max_tokens_and_files_without_it_load_as_output() -> None:
    """Issue 23: a per-request max_tokens column (CSV) or field (Mooncake JSONL): a number, unset (empty cell, JSON
    null or 'unset') or 'output'; a file without it loads exactly as before."""
    csv_raw = (b"arrival_s,prompt_tokens,output_tokens,max_tokens\n0,100,20,64\n0.1,200,30,\n0.2,50,10,output\n"
               b"0.3,50,10,unset\n")
    load = load_bytes(csv_raw, "csv")
    assert [(r.max_tokens, r.client_max_tokens) for r in load.requests] == [(64, 64), (None, None), ("output", 10),
                                                                           (None, None)]
    old = load_bytes(b"arrival_s,prompt_tokens,output_tokens\n0,100,20\n0.1,200,30\n", "csv")
    assert [r.max_tokens for r in old.requests] == ["output", "output"]
    lines = [b'{"timestamp": 0, "input_length": 10, "output_length": 5, "hash_ids": [1], "max_tokens": 4096}',
             b'{"timestamp": 5, "input_length": 10, "output_length": 5, "hash_ids": [1], "max_tokens": null}',
             b'{"timestamp": 9, "input_length": 10, "output_length": 5, "hash_ids": [1]}']
    mooncake = load_bytes(b"\n".join(lines), "mooncake")
    assert [r.max_tokens for r in mooncake.requests] == [4096, None, "output"]


@pytest.mark.parametrize("raw, fmt, parts", [
    (b"arrival_s,prompt_tokens,output_tokens,max_tokens\n0,100,20,10\n", "csv",
     ["row 1", "max_tokens", "10 is below", "20 output tokens"]),
    (b"arrival_s,prompt_tokens,output_tokens,max_tokens\n0,100,20,lots\n", "csv",
     ["row 1", "column max_tokens", "'unset'", "'lots'"]),
    (b'{"timestamp": 0, "input_length": 10, "output_length": 5, "hash_ids": [1], "max_tokens": 2.5}', "mooncake",
     ["line 1", "max_tokens", "whole number"]),
    (b'{"timestamp": 0, "input_length": 10, "output_length": 5, "hash_ids": [1], "max_tokens": 0}', "mooncake",
     ["line 1", "max_tokens", ">= 1"]),
])
def test_a_bad_max_tokens_is_named_with_its_row_and_the_expected_form(raw, fmt, parts) -> None:
    with pytest.raises(InputError) as exc:
        load_bytes(raw, fmt)
    assert all(p in str(exc.value) for p in parts), str(exc.value)


def test_trace_out_writes_each_requests_max_tokens_only_when_it_is_not_the_default() -> None:
    """--trace-out's JSON carries max_tokens per request when the client's differs from 'output' (default runs keep
    their bytes, tests/test_golden_traces.py), and reads back equal."""
    from chunkviz.simulator.engine import simulate
    from chunkviz.simulator.trace import Trace
    from tests.helpers import make_config

    load = load_bytes(b"arrival_s,prompt_tokens,output_tokens,max_tokens\n0,100,20,64\n0.1,200,30,\n0.2,50,10,output\n",
                      "csv")
    trace = simulate(make_config("trtllm", 512), load.requests)
    written = json.loads(trace.to_json())["requests"]
    assert [r.get("max_tokens", "absent") for r in written] == [64, None, "absent"]
    assert Trace.from_json(trace.to_json()) == trace
    assert [r.max_tokens for r in Trace.from_json(trace.to_json()).requests] == [64, None, "output"]
