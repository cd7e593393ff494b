"""Record-level parsing for traces that carry prefix block ids: a Mooncake JSON line, a plain-CSV prefix_ids cell;
and the optional per-request priority (a CSV column or a JSON field `priority`).

Invariant: block j of a prompt becomes Segment(key of id j, block_tokens), the last declared block holding only
what is left of the prompt, so the segments always add up to the prompt length and equal ids mean equal content; a
priority is a whole number within PRIORITY_LIMIT, absent meaning 0 (vLLM's default priority).
"""

from __future__ import annotations

import re

from chunkviz.errors import InputError
from chunkviz.inputs import parse_json
from chunkviz.request import Segment
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


def parse_mooncake_line(line: str, where: str,
                        options: LoadOptions) -> tuple[float, int, int, tuple[Segment, ...] | None, int]:
    """(timestamp in ms, input_length, output_length, segments, priority) of one JSON line; raw counts, zeros
    included; the optional field `priority` is 0 when absent."""
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
    num_blocks = -(-prompt // MOONCAKE_BLOCK_TOKENS)  # ceil: the last block may be partial
    if len(block_ids) != num_blocks:
        raise InputError(
            f"{where}, field hash_ids: {len(block_ids)} ids for input_length {prompt}, expected "
            f"ceil({prompt}/{MOONCAKE_BLOCK_TOKENS}) = {num_blocks} (one id per {MOONCAKE_BLOCK_TOKENS}-token block)"
        )
    if not block_ids:
        return arrival_ms, prompt, output, None, priority  # a 0-token prompt: nothing to share
    # No tail key is needed: ceil(prompt / 512) ids always reach the prompt's last token.
    return arrival_ms, prompt, output, block_segments("mc", block_ids, prompt, MOONCAKE_BLOCK_TOKENS, ""), priority


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
