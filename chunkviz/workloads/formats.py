"""Record-level parsing for traces that carry prefix block ids, the client's max_tokens or a priority: a Mooncake JSON
line, a plain-CSV prefix_ids, max_tokens or priority cell.

max_tokens (optional; Request.max_tokens): a whole number >= the row's output tokens (an engine stops at max_tokens,
so a smaller one would contradict the recorded output), "unset" or an empty CSV cell / JSON null for a client that
sent none, "output" for the recorded output itself; a file without the column or field loads as "output".

Invariant: block j of a prompt becomes Segment(key of id j, block_tokens), the last declared block holding only
what is left of the prompt, so the segments always add up to the prompt length and equal ids mean equal content; a
priority is a whole number within PRIORITY_LIMIT, absent meaning 0 (vLLM's default priority).
"""

from __future__ import annotations

import re

from chunkviz.errors import InputError
from chunkviz.inputs import parse_json
from chunkviz.request import MAX_TOKENS_AS_OUTPUT, Segment
from chunkviz.workloads.checks import LoadOptions, json_count, json_time

# Fixed by the Mooncake format (its README: "The block size is 512 tokens"), so not a LoadOptions field.
MOONCAKE_BLOCK_TOKENS = 512
MOONCAKE_FIELDS = ("timestamp", "input_length", "output_length", "hash_ids")
_BLOCK_ID_RE = re.compile(r"[0-9]{1,18}")  # 18 digits: int() stays cheap, ids stay int64
# Request.priority as vLLM takes it (an int, lower served first, default 0); bounded so a typo cannot pass as a class.
PRIORITY_LIMIT = 999_999_999
_PRIORITY_RE = re.compile(r"[+-]?[0-9]{1,9}")
_PRIORITY_FORM = f"a whole number from -{PRIORITY_LIMIT:,} to {PRIORITY_LIMIT:,} (lower is served first)"


def parse_priority_cell(cell: str, where: str) -> int:
    """A CSV priority cell; empty means 0."""
    text = cell.strip()
    if not text:
        return 0
    if not _PRIORITY_RE.fullmatch(text):
        raise InputError(f"{where}, column priority: expected {_PRIORITY_FORM}, got {text!r:.60}")
    return int(text)


def json_priority(value: object, where: str) -> int:
    """A JSON line's optional priority field (None or absent means 0)."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or abs(value) > PRIORITY_LIMIT:
        raise InputError(f"{where}, field priority: expected {_PRIORITY_FORM}, got {value!r:.60}")
    return value


def block_segments(key_prefix: str, block_ids: list[int], prompt_tokens: int, block_tokens: int,
                   tail_key: str) -> tuple[Segment, ...]:
    """Segments for a prompt whose leading blocks carry ids; tokens past the last id get the unshared `tail_key`.

    Callers ensure (len(block_ids) - 1) * block_tokens < prompt_tokens, so every block holds at least one token.
    """
    segments = [Segment(f"{key_prefix}{block_id}", block_tokens) for block_id in block_ids]
    covered_tokens = block_tokens * len(block_ids)
    if covered_tokens > prompt_tokens:  # a partial last block, as when the prompt is not a multiple of the size
        segments[-1] = Segment(segments[-1].key, prompt_tokens - block_tokens * (len(block_ids) - 1))
    elif covered_tokens < prompt_tokens:
        segments.append(Segment(tail_key, prompt_tokens - covered_tokens))
    return tuple(segments)


def _json_block_ids(value: object, where: str) -> list[int]:
    if not isinstance(value, list):
        raise InputError(f"{where}, field hash_ids: expected a list of whole numbers, got {value!r:.60}")
    for position, block_id in enumerate(value):
        if isinstance(block_id, bool) or not isinstance(block_id, int):
            raise InputError(f"{where}, field hash_ids: entry {position} is {block_id!r}, not a whole number")
    return value


def parse_max_tokens_cell(cell: str, where: str, max_count: int) -> int | str | None:
    """A plain-CSV max_tokens cell: a whole number, "unset" or empty (None), or "output"."""
    text = cell.strip()
    if text in ("", "unset"):
        return None
    if text == MAX_TOKENS_AS_OUTPUT:
        return MAX_TOKENS_AS_OUTPUT
    if not _BLOCK_ID_RE.fullmatch(text) or not 1 <= int(text) <= max_count:
        raise InputError(f"{where}, column max_tokens: expected a whole number in [1, {max_count:,}], 'unset' (or "
                         f"an empty cell) or 'output', got {text[:40]!r}")
    return int(text)


def _json_max_tokens(record: dict, where: str, options: LoadOptions) -> int | str | None:
    if "max_tokens" not in record:
        return MAX_TOKENS_AS_OUTPUT
    value = record["max_tokens"]
    if value is None or value == "unset":
        return None
    if value == MAX_TOKENS_AS_OUTPUT:
        return MAX_TOKENS_AS_OUTPUT
    count = json_count(value, where, "max_tokens", options.max_output_tokens)
    if count < 1:
        raise InputError(f"{where}, field max_tokens: expected a whole number >= 1, null or 'unset', got {count}")
    return count


def check_max_tokens(max_tokens: int | str | None, output_tokens: int, where: str) -> None:
    """A number below the recorded output cannot be what the client sent: the engine would have stopped there."""
    if isinstance(max_tokens, int) and max_tokens < output_tokens:
        raise InputError(f"{where}, max_tokens: {max_tokens} is below the request's {output_tokens} output tokens; "
                         "an engine stops generating at max_tokens, so it must be at least the output length")


def parse_mooncake_line(line: str, where: str, options: LoadOptions
                        ) -> tuple[float, int, int, tuple[Segment, ...] | None, int, int | str | None]:
    """(timestamp in ms, input_length, output_length, segments, priority, max_tokens) of one JSON line; raw counts,
    zeros included; the optional fields: priority 0 and max_tokens "output" when absent."""
    record = parse_json(line, where)  # the input gate: bounded nesting, int digits, finite numbers
    if not isinstance(record, dict):
        raise InputError(f"{where}: expected a JSON object, got {type(record).__name__}")
    missing = [name for name in MOONCAKE_FIELDS if name not in record]
    if missing:
        needed = ", ".join(MOONCAKE_FIELDS)
        raise InputError(f"{where}: missing field(s) {', '.join(missing)}; each line needs {needed}")
    arrival_ms = json_time(record["timestamp"], where, "timestamp")
    prompt = json_count(record["input_length"], where, "input_length", options.max_prompt_tokens)
    output = json_count(record["output_length"], where, "output_length", options.max_output_tokens)
    block_ids = _json_block_ids(record["hash_ids"], where)
    priority = json_priority(record.get("priority"), where)
    max_tokens = _json_max_tokens(record, where, options)
    num_blocks = -(-prompt // MOONCAKE_BLOCK_TOKENS)  # ceil: the last block may be partial
    if len(block_ids) != num_blocks:
        raise InputError(
            f"{where}, field hash_ids: {len(block_ids)} ids for input_length {prompt}, expected "
            f"ceil({prompt}/{MOONCAKE_BLOCK_TOKENS}) = {num_blocks} (one id per {MOONCAKE_BLOCK_TOKENS}-token block)"
        )
    if not block_ids:
        return arrival_ms, prompt, output, None, priority, max_tokens  # a 0-token prompt: nothing to share
    # No tail key is needed: ceil(prompt / 512) ids always reach the prompt's last token.
    segments = block_segments("mc", block_ids, prompt, MOONCAKE_BLOCK_TOKENS, "")
    return arrival_ms, prompt, output, segments, priority, max_tokens


def parse_prefix_ids_cell(cell: str, where: str, prompt_tokens: int, block_tokens: int,
                          tail_key: str) -> tuple[Segment, ...] | None:
    """Segments from a cell like '3;7;9' (ids of the prompt's leading blocks); an empty cell means no sharing."""
    text = cell.strip()
    if not text:
        return None
    parts = [part.strip() for part in text.split(";")]
    for part in parts:
        if not _BLOCK_ID_RE.fullmatch(part):
            raise InputError(
                f"{where}, column prefix_ids: expected block ids separated by ';' like '3;7;9', got {text!r}"
            )
    max_blocks = -(-prompt_tokens // block_tokens)
    if len(parts) > max_blocks:
        raise InputError(
            f"{where}, column prefix_ids: {len(parts)} block ids, but prompt_tokens {prompt_tokens} fills at most "
            f"ceil({prompt_tokens}/{block_tokens}) = {max_blocks} blocks of {block_tokens} tokens"
        )
    return block_segments("p", [int(part) for part in parts], prompt_tokens, block_tokens, tail_key)
