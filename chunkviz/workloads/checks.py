"""Cell-level checks for trace files: bytes to text, text or JSON values to token counts and times.

Invariant: a value that leaves this module is finite, non-negative and within the LoadOptions caps; anything else
raises InputError naming the row (or line) and the column.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import date
from typing import Literal

from chunkviz.errors import InputError

# What to do with a logged 0-token prompt or output: public traces (the Azure 2024 release, for one) contain them,
# and Request requires at least one token each.
ZeroTokens = Literal["clamp", "skip", "error"]
ZERO_TOKEN_RULES: tuple[ZeroTokens, ...] = ("clamp", "skip", "error")

_INT_RE = re.compile(r"[+-]?[0-9]+")
# Azure writes 7 fractional digits (100 ns ticks); accept 0 to 9 so hand-made files also parse.
_AZURE_TIME_RE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})[ T]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,9}))?")
_NS_PER_S = 10**9


@dataclass(frozen=True, slots=True)
class LoadOptions:
    """Limits and choices for loading one trace file; the defaults suit a browser upload."""

    max_bytes: int = field(default=50_000_000, metadata={"help": "largest file accepted, in bytes"})
    max_requests: int = field(default=200_000, metadata={"help": "most data rows (requests) a file may hold"})
    max_prompt_tokens: int = field(default=1_000_000, metadata={"help": "larger prompts are taken as a wrong column"})
    max_output_tokens: int = field(default=100_000, metadata={"help": "larger outputs are taken as a wrong column"})
    zero_tokens: ZeroTokens = field(
        default="clamp", metadata={"help": "a 0-token prompt or output: clamp to 1, skip the row, or error"}
    )
    block_tokens: int = field(default=512, metadata={"help": "tokens per prefix_ids block in plain CSV files"})
    # About 250 bytes of memory per declared block once loaded and cut into block ids (measured: 5.8 M blocks took
    # 1.4 GB), so 1 M blocks stay near 250 MB; Mooncake's published traces declare under 0.5 M.
    max_prefix_blocks: int = field(default=1_000_000, metadata={
        "help": "most prefix block ids (Mooncake hash_ids, CSV prefix_ids) in one file"})

    def __post_init__(self) -> None:
        for name in ("max_bytes", "max_requests", "max_prompt_tokens", "max_output_tokens", "block_tokens",
                     "max_prefix_blocks"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.zero_tokens not in ZERO_TOKEN_RULES:
            raise ValueError(f"zero_tokens must be one of {', '.join(ZERO_TOKEN_RULES)}, got {self.zero_tokens!r}")


DEFAULT_LOAD_OPTIONS = LoadOptions()


def check_size(num_bytes: int, options: LoadOptions) -> None:
    """Refuse an empty or oversized file before any parsing."""
    if num_bytes == 0:
        raise InputError("the trace file is empty")
    if num_bytes > options.max_bytes:
        raise InputError(f"the trace file is {num_bytes / 1e6:.1f} MB; the limit is {options.max_bytes / 1e6:g} MB")


def decode_utf8(raw: bytes) -> str:
    """The file as text; a UTF-8 byte-order mark is dropped, any other non-UTF-8 byte is an error with its offset."""
    bom = 3 if raw.startswith(b"\xef\xbb\xbf") else 0
    try:
        text = raw[bom:].decode("utf-8")
    except UnicodeDecodeError as exc:
        offset = bom + exc.start
        line = raw.count(b"\n", 0, offset) + 1
        raise InputError(
            f"the trace file is not UTF-8 text: byte 0x{raw[offset]:02x} at byte offset {offset} (line {line}) "
            "cannot be decoded; save the file as UTF-8"
        ) from None
    if not text.strip():
        raise InputError("the trace file is empty (only whitespace)")
    return text


def check_count(value: int, where: str, column: str, max_value: int) -> int:
    """`value` itself once it is known to be a token count in 0..max_value."""
    if value < 0:
        raise InputError(f"{where}, column {column}: a token count must not be negative, got {value}")
    if value > max_value:
        raise InputError(
            f"{where}, column {column}: {value:,} tokens is over the limit of {max_value:,}; is this the right column?"
        )
    return value


def parse_count_cell(cell: str, where: str, column: str, max_value: int) -> int:
    """A CSV cell as a whole number of tokens."""
    text = cell.strip()
    if not text:
        raise InputError(f"{where}, column {column}: missing value")
    if not _INT_RE.fullmatch(text):
        raise InputError(f"{where}, column {column}: expected a whole number of tokens, got {text!r}")
    if len(text) > 18:  # int() of thousands of digits is slow and refused by Python; it is absurd anyway
        raise InputError(f"{where}, column {column}: {text[:20]}... tokens is over the limit of {max_value:,}")
    return check_count(int(text), where, column, max_value)


def json_count(value: object, where: str, column: str, max_value: int) -> int:
    """A JSON value as a whole number of tokens (bool and 12.0 are refused: JSON writers emit 12 for counts)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{where}, field {column}: expected a whole number of tokens, got {value!r}")
    return check_count(value, where, column, max_value)


def check_time(value: float, where: str, column: str) -> float:
    """`value` itself once it is known to be a finite time >= 0."""
    if not math.isfinite(value):
        raise InputError(f"{where}, column {column}: arrival time must be a finite number, got {value}")
    if value < 0:
        raise InputError(f"{where}, column {column}: arrival time must not be negative, got {value}")
    return value


def parse_seconds_cell(cell: str, where: str, column: str) -> float:
    """A CSV cell as a time in seconds."""
    text = cell.strip()
    if not text:
        raise InputError(f"{where}, column {column}: missing value")
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"{where}, column {column}: expected a number of seconds, got {text!r}") from None
    return check_time(value, where, column)


def json_time(value: object, where: str, column: str) -> float:
    """A JSON timestamp (any unit) as a number; ints stay ints so rebasing them is exact."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{where}, field {column}: expected a number, got {value!r}")
    check_time(float(value), where, column)
    return value


def parse_azure_time_ns(cell: str, where: str, column: str) -> int:
    """'2023-11-16 18:17:03.9799600' as integer nanoseconds since 0001-01-01.

    Integers on purpose: a float of seconds since any epoch near 2023 has a resolution of about 0.2 us, which
    would blur the file's 100 ns digits.
    """
    match = _AZURE_TIME_RE.fullmatch(cell.strip())
    if match is None:
        raise InputError(f"{where}, column {column}: expected a time like '2023-11-16 18:17:03.9799600', got {cell!r}")
    year, month, day, hour, minute, second = (int(g) for g in match.groups()[:6])
    try:
        day_number = date(year, month, day).toordinal()
    except ValueError:
        raise InputError(f"{where}, column {column}: {cell.strip()!r} is not a real date") from None
    if hour > 23 or minute > 59 or second > 59:
        raise InputError(f"{where}, column {column}: {cell.strip()!r} is not a real time of day")
    whole_s = ((day_number * 24 + hour) * 60 + minute) * 60 + second
    return whole_s * _NS_PER_S + int((match.group(7) or "").ljust(9, "0"))


def apply_zero_rule(value: int, where: str, column: str, rule: ZeroTokens, zero_counts: Counter[str]) -> int | None:
    """The token count to use: `value`, 1 for a clamped 0, or None when the row is to be skipped."""
    if value > 0:
        return value
    if rule == "error":
        raise InputError(f"{where}, column {column}: 0 tokens (load with zero_tokens='clamp' or 'skip' to accept it)")
    zero_counts[column] += 1
    # Clamp to 1, not drop: a logged 0 is most likely a cancelled or truncated request, which still arrived and
    # still cost a step, so keeping it keeps the arrival pattern intact.
    return 1 if rule == "clamp" else None


def _rows(n: int) -> str:
    return f"{n} row" if n == 1 else f"{n} rows"


def zero_notes(zero_counts: Counter[str], rule: ZeroTokens, num_skipped: int) -> list[str]:
    """One sentence per column that held zeros, plus the skipped-row total."""
    action = "given 1 token" if rule == "clamp" else "skipped"
    notes = [f"{_rows(n)} with 0 in {column} {'was' if n == 1 else 'were'} {action}"
             for column, n in sorted(zero_counts.items())]
    if num_skipped:
        notes.append(f"{_rows(num_skipped)} skipped in all (zero_tokens='skip')")
    return notes


def format_azure_time_ns(time_ns: int) -> str:
    """The inverse of parse_azure_time_ns, with Azure's 7 fractional digits (finer digits are cut)."""
    whole_s, frac_ns = divmod(time_ns, _NS_PER_S)
    day_number, second_of_day = divmod(whole_s, 86_400)
    hour, rest = divmod(second_of_day, 3600)
    day = date.fromordinal(day_number).isoformat()
    return f"{day} {hour:02d}:{rest // 60:02d}:{rest % 60:02d}.{frac_ns // 100:07d}"
