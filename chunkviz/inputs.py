"""The input gate: every file the project reads (traces, config.json, GPU JSON, cost profiles, uploads) passes here.

Invariant: what leaves this module was at most `max_bytes` long (checked before reading, so /dev/zero or a 3 GB
file is refused at once), nests at most MAX_JSON_DEPTH deep, and holds only JSON integers of at most
MAX_INT_DIGITS digits; anything else is an InputError whose message states the limit.
Per-field types and ranges (finite, plausible) are checked by each loader, with `field_int` / `field_float` /
`field_str` below or its own checks, so that the message names the field.
"""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path
from typing import Any

from chunkviz.errors import InputError

# Deeper than any real config.json (Hugging Face nests 3-4 levels) and far below Python's recursion limit, which
# json.loads would otherwise hit as a RecursionError.
MAX_JSON_DEPTH = 32
# 19 digits hold any int64 (a nanosecond timestamp of 2023 has 19); longer integers are refused before int()
# converts them (CPython refuses 4,300+ digits itself, and float() of a 400-digit int overflows).
MAX_INT_DIGITS = 19
# Arrival times: at 1e8 s (about 3.2 years) a float64 still resolves 15 ns (ulp(1e8) = 1.49e-8 s), far below
# the shortest step (about 1 ms); beyond it the simulator's clock would lose the step times.
MAX_TIME_S = 1e8
_TOKEN_RE = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def read_bounded(source: bytes | str | os.PathLike[str], max_bytes: int, what: str) -> bytes:
    """The bytes of `source` (a path or bytes already in memory), refused when longer than `max_bytes`.

    A regular file is measured with stat before it is opened; a device or pipe (no size) is read only up to
    max_bytes + 1 bytes, so /dev/zero is refused after reading a bounded amount.
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        if len(source) > max_bytes:
            raise InputError(f"{what} is {_size(len(source))}; the limit is {_size(max_bytes)}")
        return bytes(source)
    data = _read_path(Path(source), max_bytes, what)
    if len(data) > max_bytes:  # a device or pipe that kept giving bytes
        raise InputError(f"{what} {source} holds more than {_size(max_bytes)}, the limit")
    return data


def _read_path(path: Path, max_bytes: int, what: str) -> bytes:
    try:
        if path.is_file() and path.stat().st_size > max_bytes:
            raise InputError(f"{what} {path} is {_size(path.stat().st_size)}; the limit is {_size(max_bytes)}")
        with open(path, "rb") as fh:
            return fh.read(max_bytes + 1)
    except OSError as exc:
        raise InputError(f"cannot read {what} {path}: {exc.strerror or exc}") from None


def _size(num_bytes: int) -> str:
    # Whole bytes below 10 MB, so a file one byte over a 1 MB limit does not read "1.0 MB; the limit is 1.0 MB".
    return f"{num_bytes / 1e6:.1f} MB" if num_bytes >= 10_000_000 else f"{num_bytes:,} bytes"


def json_depth_ok(text: str, max_depth: int = MAX_JSON_DEPTH) -> bool:
    """Whether no array or object in `text` nests deeper than `max_depth` (brackets inside strings don't count)."""
    if text.count("[") + text.count("{") <= max_depth:
        return True  # the common case, decided without scanning
    depth = 0
    for match in _TOKEN_RE.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > max_depth:
                return False
        elif token in "]}":
            depth -= 1
    return True


def _parse_int(what: str):
    def parse(digits: str) -> int:
        if len(digits.lstrip("-")) > MAX_INT_DIGITS:
            raise InputError(f"{what}: the integer {digits[:12]}… has {len(digits.lstrip('-')):,} digits; the limit "
                             f"is {MAX_INT_DIGITS}")
        return int(digits)
    return parse


def parse_json(data: bytes | str, what: str) -> Any:
    """JSON text (bytes must be UTF-8) through the gate: bounded depth and integer digits."""
    if isinstance(data, (bytes, bytearray)):
        try:
            data = bytes(data).decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise InputError(f"{what} is not UTF-8 text (bad byte at offset {exc.start})") from None
    if not json_depth_ok(data):
        raise InputError(f"{what} nests arrays or objects more than {MAX_JSON_DEPTH} levels deep (the limit)")
    try:
        # NaN, Infinity and 1e400 (inf) parse, so that the field's own check can name the field that holds them.
        return json.loads(data, parse_int=_parse_int(what))
    except json.JSONDecodeError as exc:
        raise InputError(f"{what} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    except RecursionError:  # unreachable after the depth check; kept so no input can produce a traceback
        raise InputError(f"{what} nests too deeply") from None


def parse_json_object(data: bytes | str, what: str) -> dict[str, Any]:
    """parse_json, and the top level must be an object."""
    obj = parse_json(data, what)
    if not isinstance(obj, dict):
        raise InputError(f"{what} must hold a JSON object, got {type(obj).__name__}")
    return obj


def field_int(obj: dict[str, Any], key: str, what: str, lo: int, hi: int, default: int | None = None) -> int:
    """obj[key] as a whole number in [lo, hi]; the message names the key and the range."""
    value = obj.get(key, default)
    if value is None:
        raise InputError(f"{what}: missing key {key!r}")
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise InputError(f"{what}: {key!r} must be a whole number from {lo:,} to {hi:,}, got {_show(value)}")
    return value


def field_float(obj: dict[str, Any], key: str, what: str, lo: float, hi: float,
                default: float | None = None) -> float:
    """obj[key] as a finite number in [lo, hi] (a range that excludes subnormal and absurd figures)."""
    value = obj.get(key, default)
    if value is None:
        raise InputError(f"{what}: missing key {key!r}")
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if not ok or not lo <= value <= hi:
        raise InputError(f"{what}: {key!r} must be a number from {lo:g} to {hi:g}, got {_show(value)}")
    return float(value)


def field_str(obj: dict[str, Any], key: str, what: str, default: str | None = None, max_chars: int = 200) -> str:
    """obj[key] as a string of 1 to max_chars characters."""
    value = obj.get(key, default)
    if value is None:
        raise InputError(f"{what}: missing key {key!r}")
    if not isinstance(value, str) or not value or len(value) > max_chars:
        raise InputError(f"{what}: {key!r} must be a string of 1 to {max_chars} characters, got {_show(value)}")
    return value


def _show(value: object) -> str:
    """A JSON value for a message: its type for containers, a short repr otherwise."""
    if isinstance(value, (list, dict)):
        return f"a JSON {'array' if isinstance(value, list) else 'object'}"
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "…"


def check_time_s(value: float, what: str) -> float:
    """A time in seconds that the simulator's float clock still resolves (0 <= value <= MAX_TIME_S)."""
    if not (math.isfinite(value) and 0 <= value <= MAX_TIME_S):
        raise InputError(f"{what} is {value:g} s; times must be finite, from 0 to {MAX_TIME_S:g} s (about 3.2 years), "
                         "where the clock still resolves 15 ns")
    return value


def _non_finite_paths(value: object, path: str = "") -> list[str]:
    if isinstance(value, float) and not math.isfinite(value):
        return [path or "the value"]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _non_finite_paths(v, f"{path}.{k}" if path else str(k))]
    if isinstance(value, (list, tuple)):
        return [p for i, v in enumerate(value) for p in _non_finite_paths(v, f"{path}[{i}]")]
    return []


def strict_dumps(obj: object, **kwargs: Any) -> str:
    """json.dumps with allow_nan=False (NaN is not JSON); a figure that is not finite refuses the whole output,
    naming the fields, rather than printing text that JSON readers reject."""
    bad = _non_finite_paths(obj)
    if bad:
        raise InputError(f"the result cannot be represented: {', '.join(bad[:5])} "
                         f"{'is' if len(bad) == 1 else 'are'} not a finite number; the inputs are out of range")
    return json.dumps(obj, allow_nan=False, **kwargs)
