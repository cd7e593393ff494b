"""The client's max_tokens, as a workload or a replayed trace sends it (`--max-tokens {output,unset,N}`).

Invariant: "output" leaves every request exactly as it was (max_tokens = its true output length, what benchmark
clients send); "unset" sends none (Request.max_tokens None; chat clients often do); N sends N to every request
and, since an engine stops generating at max_tokens (vLLM `check_stop`, `max_tokens` reached), cuts the output to
min(output, N). Only admission rules that reserve for the future read it (simulator/policies).
"""

from __future__ import annotations

from dataclasses import replace

from chunkviz.errors import InputError
from chunkviz.request import MAX_TOKENS_AS_OUTPUT, Request

MAX_TOKENS_CHOICES = (MAX_TOKENS_AS_OUTPUT, "unset")  # or a positive integer

MaxTokens = str | int | None  # "output", None (unset) or a positive cap


def parse_max_tokens(text: str) -> MaxTokens:
    """The --max-tokens flag: 'output', 'unset' or a positive integer; anything else is an InputError."""
    if text == MAX_TOKENS_AS_OUTPUT:
        return MAX_TOKENS_AS_OUTPUT
    if text == "unset":
        return None
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise InputError(f"--max-tokens must be 'output', 'unset' or a positive integer, got {text!r}")
    return value


def apply_max_tokens(requests: tuple[Request, ...], choice: MaxTokens) -> tuple[Request, ...]:
    """Every request with the client's max_tokens set to the choice ('output' returns the requests unchanged)."""
    if choice == MAX_TOKENS_AS_OUTPUT:
        return requests
    if choice is None:
        return tuple(replace(r, max_tokens=None) for r in requests)
    cap = int(choice)
    try:
        return tuple(replace(r, output_tokens=min(r.output_tokens, cap), max_tokens=cap) for r in requests)
    except ValueError as exc:  # e.g. a transferred prompt needs 2 output tokens
        raise InputError(f"--max-tokens {cap}: {exc}") from None
