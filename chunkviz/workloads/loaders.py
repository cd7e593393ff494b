"""Trace files (Azure 2023 CSV, Mooncake JSONL, plain CSV) to Requests: the whole file loads or nothing does.

Invariant: request_id i is the i-th arrival (stable sort, so equal times keep file order) and the first request's
arrival_s is 0.0; every change made to the data (zero clamping, sorting, shifting) is named in TraceLoad.notes.
"""

from __future__ import annotations

import csv
import io
import os
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from chunkviz.errors import InputError
from chunkviz.inputs import MAX_TIME_S, read_bounded
from chunkviz.request import MAX_TOKENS_AS_OUTPUT, Request, Segment
from chunkviz.workloads.checks import (
    DEFAULT_LOAD_OPTIONS,
    LoadOptions,
    apply_zero_rule,
    check_size,
    decode_utf8,
    format_azure_time_ns,
    parse_azure_time_ns,
    parse_count_cell,
    parse_seconds_cell,
    zero_notes,
)
from chunkviz.workloads.formats import (check_max_tokens, parse_max_tokens_cell, parse_mooncake_line,
                                        parse_prefix_ids_cell, parse_priority_cell)

AZURE_COLUMNS = ("TIMESTAMP", "ContextTokens", "GeneratedTokens")
CSV_COLUMNS = ("arrival_s", "prompt_tokens", "output_tokens")
# Optional columns of the plain CSV: prefix_ids (formats.parse_prefix_ids_cell) the client's max_tokens
# (formats.parse_max_tokens_cell) and priority (formats.parse_priority_cell); a file without them loads as before (max_tokens "output").
CSV_OPTIONAL_COLUMNS = ("prefix_ids", "max_tokens", "priority")
TRACE_FORMATS = ("azure", "mooncake", "csv")
BUNDLED_SAMPLE_PATH = Path(__file__).resolve().parents[1] / "data" / "azure_conv_sample.csv"


@dataclass(frozen=True, slots=True)
class TraceLoad:
    """A loaded trace: requests in arrival order plus one sentence per thing the loader changed or assumed."""

    requests: tuple[Request, ...]
    trace_format: str
    num_rows: int  # data rows read, including any skipped; blank lines are not rows
    notes: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _Row:
    arrival: float  # in the file's own unit (ns, ms or s), so that sorting and rebasing integers stay exact
    prompt_tokens: int
    output_tokens: int
    segments: tuple[Segment, ...] | None
    priority: int = 0  # optional column / field `priority` (Request.priority; lower is served first)
    max_tokens: int | str | None = MAX_TOKENS_AS_OUTPUT  # the client's (Request.max_tokens); no column: "output"


@dataclass(slots=True)
class _Parse:
    """Live state of one parse; never leaves this module."""

    options: LoadOptions
    rows: list[_Row]
    zero_counts: Counter[str]
    num_rows: int = 0
    num_skipped: int = 0
    num_prefix_blocks: int = 0

    def count_row(self) -> None:
        self.num_rows += 1
        if self.num_rows > self.options.max_requests:
            raise InputError(
                f"the trace has more than {self.options.max_requests:,} requests; cut it to a time window first"
            )

    def add(self, where: str, columns: tuple[str, str], arrival: float, prompt: int, output: int,
            segments: tuple[Segment, ...] | None, priority: int = 0,
            max_tokens: int | str | None = MAX_TOKENS_AS_OUTPUT) -> None:
        rule = self.options.zero_tokens
        kept_prompt = apply_zero_rule(prompt, where, columns[0], rule, self.zero_counts)
        kept_output = apply_zero_rule(output, where, columns[1], rule, self.zero_counts)
        if kept_prompt is None or kept_output is None:
            self.num_skipped += 1
            return
        self.num_prefix_blocks += len(segments or ())
        if self.num_prefix_blocks > self.options.max_prefix_blocks:
            raise InputError(f"{where}: the trace declares more than {self.options.max_prefix_blocks:,} prefix blocks "
                             "(hash_ids or prefix_ids), the limit that keeps a replay within memory; cut it to a "
                             "time window first")
        check_max_tokens(max_tokens, kept_output, where)
        self.rows.append(_Row(arrival, kept_prompt, kept_output, segments, priority, max_tokens))


def _csv_records(text: str, required: tuple[str, ...], optional: tuple[str, ...],
                 parse: _Parse) -> Iterator[tuple[str, dict[str, str]]]:
    """(where, {column: cell}) per non-blank data row, after checking the header and each row's width."""
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = [name.strip() for name in next(reader)]
        missing = [name for name in required if name not in header]
        if missing:
            raise InputError(f"missing required column(s) {', '.join(missing)}; the header is "
                             f"{','.join(header)!r}, expected {','.join(required)}")
        index = {name: header.index(name) for name in required + optional if name in header}
        for fields in reader:
            if not any(cell.strip() for cell in fields):
                continue  # a blank line, typically the one after the final newline
            parse.count_row()
            where = f"row {parse.num_rows} (line {reader.line_num})"
            if len(fields) != len(header):
                raise InputError(f"{where}: {len(fields)} fields, but the header has {len(header)} columns")
            yield where, {name: fields[i] for name, i in index.items()}
    except csv.Error as exc:
        raise InputError(f"line {reader.line_num}: not valid CSV ({exc})") from None


def _parse_azure(text: str, parse: _Parse) -> int:
    """Azure rows into parse.rows; returns the arrival unit in ticks per second."""
    for where, cells in _csv_records(text, AZURE_COLUMNS, (), parse):
        arrival_ns = parse_azure_time_ns(cells["TIMESTAMP"], where, "TIMESTAMP")
        prompt = parse_count_cell(cells["ContextTokens"], where, "ContextTokens", parse.options.max_prompt_tokens)
        output = parse_count_cell(cells["GeneratedTokens"], where, "GeneratedTokens", parse.options.max_output_tokens)
        parse.add(where, ("ContextTokens", "GeneratedTokens"), arrival_ns, prompt, output, None)
    return 10**9


def _parse_mooncake(text: str, parse: _Parse) -> int:
    for line_number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        parse.count_row()
        where = f"line {line_number}"
        arrival_ms, prompt, output, segments, priority, max_tokens = parse_mooncake_line(line, where, parse.options)
        parse.add(where, ("input_length", "output_length"), arrival_ms, prompt, output, segments, priority,
                  max_tokens)
    return 1000


def _parse_plain_csv(text: str, parse: _Parse) -> int:
    options = parse.options
    for where, cells in _csv_records(text, CSV_COLUMNS, CSV_OPTIONAL_COLUMNS, parse):
        arrival_s = parse_seconds_cell(cells["arrival_s"], where, "arrival_s")
        prompt = parse_count_cell(cells["prompt_tokens"], where, "prompt_tokens", options.max_prompt_tokens)
        output = parse_count_cell(cells["output_tokens"], where, "output_tokens", options.max_output_tokens)
        # The row number, not the request id, names the unshared tail: ids are only known after sorting.
        tail_key = f"csv-row{parse.num_rows}"
        segments = parse_prefix_ids_cell(cells.get("prefix_ids", ""), where, prompt, options.block_tokens, tail_key)
        priority = parse_priority_cell(cells.get("priority", ""), where)
        max_tokens = (parse_max_tokens_cell(cells["max_tokens"], where, options.max_output_tokens)
                      if "max_tokens" in cells else MAX_TOKENS_AS_OUTPUT)
        parse.add(where, ("prompt_tokens", "output_tokens"), arrival_s, prompt, output, segments, priority,
                  max_tokens)
    return 1


_PARSERS: dict[str, Callable[[str, _Parse], int]] = {
    "azure": _parse_azure,
    "mooncake": _parse_mooncake,
    "csv": _parse_plain_csv,
}


def _finish(parse: _Parse, trace_format: str, ticks_per_s: int) -> TraceLoad:
    rows = parse.rows
    if not rows:
        reason = "every row was skipped for 0 tokens" if parse.num_rows else "it has no data rows"
        raise InputError(f"the trace holds no requests: {reason}")
    order = sorted(range(len(rows)), key=lambda i: rows[i].arrival)  # sorted() is stable: ties keep file order
    first = rows[order[0]].arrival
    span_s = (rows[order[-1]].arrival - first) / ticks_per_s
    if not span_s <= MAX_TIME_S:  # also catches inf - inf = nan
        raise InputError(f"the trace spans {span_s:g} s from its first to its last arrival; the limit is "
                         f"{MAX_TIME_S:g} s (about 3.2 years), where the simulator's clock still resolves 15 ns")
    requests = tuple(
        # int - int, then one true division: exact to the last float bit for ns and ms timestamps
        Request(request_id=i, arrival_s=(rows[j].arrival - first) / ticks_per_s, prompt_tokens=rows[j].prompt_tokens,
                output_tokens=rows[j].output_tokens, priority=rows[j].priority, segments=rows[j].segments,
                max_tokens=rows[j].max_tokens)
        for i, j in enumerate(order)
    )
    notes = zero_notes(parse.zero_counts, parse.options.zero_tokens, parse.num_skipped)
    if order != sorted(order):
        notes.append("rows were not in arrival order; they were sorted by arrival time (ties keep file order)")
    if trace_format == "azure":
        notes.append(f"arrival_s counts from the first TIMESTAMP, {format_azure_time_ns(int(first))}")
    elif first != 0:
        notes.append(f"arrival_s counts from the first request: {first / ticks_per_s:g} s was subtracted from each")
    return TraceLoad(requests, trace_format, parse.num_rows, tuple(notes))


def load_bytes(raw: bytes, trace_format: str, options: LoadOptions = DEFAULT_LOAD_OPTIONS) -> TraceLoad:
    """The whole trace in `raw`, parsed as `trace_format` ('azure', 'mooncake' or 'csv')."""
    parser = _PARSERS.get(trace_format)
    if parser is None:
        raise InputError(f"unknown trace format {trace_format!r}; choose one of {', '.join(TRACE_FORMATS)}")
    check_size(len(raw), options)
    parse = _Parse(options, [], Counter())
    ticks_per_s = parser(decode_utf8(raw), parse)
    return _finish(parse, trace_format, ticks_per_s)


def detect_format(name: str | None, first_bytes: bytes) -> str:
    """'azure', 'mooncake' or 'csv', from the first line (a JSON object or a CSV header), else the file name."""
    head = first_bytes.removeprefix(b"\xef\xbb\xbf").lstrip()
    if not head:
        raise InputError("the trace file is empty")
    if head.startswith(b"{"):
        return "mooncake"
    header = {cell.strip() for cell in head.split(b"\n", 1)[0].decode("utf-8", "replace").split(",")}
    # Most header names in common wins, so a file missing one column still reaches its loader's precise message.
    overlaps = {"azure": len(header & set(AZURE_COLUMNS)), "csv": len(header & set(CSV_COLUMNS))}
    best = max(overlaps, key=lambda fmt: overlaps[fmt])
    if overlaps[best] > 0:
        return best
    if name is not None and name.lower().endswith((".jsonl", ".json")):
        return "mooncake"
    raise InputError(
        f"cannot tell the format of {name or 'the trace'}: expected JSON lines (Mooncake), or a CSV header "
        f"{','.join(AZURE_COLUMNS)} (Azure) or {','.join(CSV_COLUMNS)}[,prefix_ids][,max_tokens][,priority]; name the format "
        "explicitly"
    )


def _read(data: bytes | str | os.PathLike[str], max_bytes: int) -> bytes:
    # The input gate: a regular file is measured before it is read, a device like /dev/zero is read only to the limit.
    return read_bounded(data, max_bytes, "trace file")


def load_trace(data: bytes | str | os.PathLike[str], fmt: str | None = None, *, name: str | None = None,
               options: LoadOptions = DEFAULT_LOAD_OPTIONS) -> TraceLoad:
    """A trace from a path or from uploaded bytes; `fmt` None means detect it (`name` helps for uploads)."""
    raw = _read(data, options.max_bytes)
    if fmt is None:
        if name is None and isinstance(data, (str, os.PathLike)):
            name = os.fspath(data)
        fmt = detect_format(name, raw[:4096])
    return load_bytes(raw, fmt, options)


def load_bundled_sample() -> TraceLoad:
    """The bundled 90 s, 332-request window of the Azure 2023 conversation trace (CC BY 4.0, see data/)."""
    return load_trace(BUNDLED_SAMPLE_PATH, "azure")

