"""Classic page replacement on a reference string: validated input, an algorithm registry, results and presets.

Invariant: every step holds at most num_frames pages (exactly num_frames slots, None = empty), and
faults + hits == len(refs); `PagingResult.__post_init__` checks the count.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, cast

from chunkviz.errors import InputError
from chunkviz.lessons.paging_steps import REASON_TEMPLATES, PagingStep, run_steps
from chunkviz.replacement import LFU_TIE_BREAKS, RULES, Convention

__all__ = [
    "ALGORITHMS", "LFU_TIE_BREAKS", "MAX_FRAMES", "MAX_PAGE", "MAX_REFS", "ORDER_VALUE_NAMES", "PRESETS",
    "REASON_TEMPLATES", "Convention", "PagingResult", "PagingStep", "faults_curve", "find_belady_anomaly",
    "parse_refs", "random_refs", "simulate_paging",
]

MAX_REFS = 500     # a teaching grid with one column per reference stops being readable long before this
MAX_FRAMES = 64
MAX_PAGE = 999_999  # also caps token length, so int() never sees a pathological digit string

# The rule names, in the order the page shows them; a new rule is one entry in chunkviz.replacement.RULES plus
# its value name below, its reason template in paging_steps and its label in ui/paging/text.py.
ALGORITHMS: tuple[str, ...] = tuple(RULES)

# What `PagingStep.order_values` means per algorithm (labels for tables and charts).
ORDER_VALUE_NAMES: dict[str, str] = {
    "fifo": "loaded_at", "lru": "last_used_at", "opt": "next_use_in", "clock": "ref_bit", "lfu": "count",
}

PRESETS: dict[str, tuple[int, ...]] = {
    # Belady's anomaly: FIFO makes 9 faults with 3 frames but 10 with 4.
    "belady": (1, 2, 3, 4, 1, 2, 5, 1, 2, 3, 4, 5),
    # Silberschatz et al., Operating System Concepts: 3 frames give FIFO 15, LRU 12, OPT 9 faults.
    "textbook": (7, 0, 1, 2, 0, 3, 0, 4, 2, 3, 0, 3, 2, 1, 2, 0, 1, 7, 0, 1),
}


@dataclass(frozen=True, slots=True)
class PagingResult:
    """One algorithm run over one reference string: every step plus the totals and the convention used."""

    algorithm: str
    num_frames: int
    refs: tuple[int, ...]
    steps: tuple[PagingStep, ...]
    faults: int
    hits: int
    hit_ratio: float  # hits / len(refs), in [0, 1]
    convention: Convention

    def __post_init__(self) -> None:
        if self.faults + self.hits != len(self.refs) or len(self.steps) != len(self.refs):
            raise AssertionError("paging result broke faults + hits == len(refs)")

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able dict (lists, not tuples); `order_value` names what each step's order_values hold."""
        return {
            "algorithm": self.algorithm,
            "frames": self.num_frames,
            "refs": list(self.refs),
            "faults": self.faults,
            "hits": self.hits,
            "hit_ratio": self.hit_ratio,
            "convention": asdict(self.convention),
            "order_value": ORDER_VALUE_NAMES.get(self.algorithm, "value"),
            "steps": [_step_to_dict(step) for step in self.steps],
        }


def _step_to_dict(step: PagingStep) -> dict[str, Any]:
    return {
        "index": step.index, "page": step.page, "is_hit": step.is_hit, "frames": list(step.frames),
        "order": list(step.order), "order_values": list(step.order_values), "hand": step.hand,
        "victim": step.victim, "victim_value": step.victim_value, "reason_code": step.reason_code,
        "reason": step.reason,
    }


def check_frames(num_frames: object, name: str = "frames") -> int:
    """Return num_frames if it is an int in 1..MAX_FRAMES, else raise InputError saying the rule."""
    if isinstance(num_frames, bool) or not isinstance(num_frames, int) or not 1 <= num_frames <= MAX_FRAMES:
        raise InputError(f"{name} must be an integer from 1 to {MAX_FRAMES}, got {num_frames!r}")
    return num_frames


def check_refs(refs: Sequence[object]) -> tuple[int, ...]:
    """Return refs as a tuple after checking length 1..MAX_REFS and pages are ints in 0..MAX_PAGE."""
    if len(refs) == 0:
        raise InputError("reference string is empty: give at least one page number")
    if len(refs) > MAX_REFS:
        raise InputError(f"reference string has {len(refs)} pages; at most {MAX_REFS} are allowed")
    for position, page in enumerate(refs, start=1):
        if isinstance(page, bool) or not isinstance(page, int) or not 0 <= page <= MAX_PAGE:
            raise InputError(f"page #{position} must be an integer from 0 to {MAX_PAGE}, got {page!r}")
    return tuple(cast(int, page) for page in refs)  # each one checked to be an int just above


def parse_refs(text: str) -> tuple[int, ...]:
    """Parse "1,2,3" or "1 2 3" (commas and/or spaces) into page numbers; InputError names a bad token's position."""
    stripped = text.strip()
    if not stripped:
        raise InputError("reference string is empty: give page numbers like 1,2,3 or 1 2 3")
    # Split on one comma (with optional spaces around it) or on a run of spaces, so "1,,2" shows an empty token.
    tokens = re.split(r"\s*,\s*|\s+", stripped)
    if len(tokens) > MAX_REFS:
        raise InputError(f"reference string has {len(tokens)} pages; at most {MAX_REFS} are allowed")
    pages: list[int] = []
    for position, token in enumerate(tokens, start=1):
        if token == "":
            raise InputError(f"page #{position} is empty (two commas in a row, or a comma at an end?)")
        if re.fullmatch(r"-[0-9]+", token):
            raise InputError(f"page #{position} is negative ({token}); page numbers must be 0 or more")
        if not re.fullmatch(r"[0-9]{1,6}", token):  # ASCII digits only: int() would also accept '٣', '1_0', '+1'
            raise InputError(f"page #{position} is not an integer from 0 to {MAX_PAGE}: {token!r}")
        pages.append(int(token))
    return tuple(pages)


def random_refs(seed: int, length: int, num_pages: int) -> tuple[int, ...]:
    """Return `length` pages drawn uniformly from 0..num_pages-1 with random.Random(seed); same seed, same string."""
    if isinstance(length, bool) or not isinstance(length, int) or not 1 <= length <= MAX_REFS:
        raise InputError(f"length must be an integer from 1 to {MAX_REFS}, got {length!r}")
    if isinstance(num_pages, bool) or not isinstance(num_pages, int) or not 1 <= num_pages <= MAX_PAGE + 1:
        raise InputError(f"num_pages must be an integer from 1 to {MAX_PAGE + 1}, got {num_pages!r}")
    rng = random.Random(seed)
    return tuple(rng.randrange(num_pages) for _ in range(length))


def simulate_paging(algorithm: str, refs: Sequence[int], num_frames: int, *,
                    clock_ref_bit_on_load: bool = True, lfu_tie_break: str = "fifo") -> PagingResult:
    """Run one algorithm over refs with num_frames frames; returns every step, faults, hits and hit ratio."""
    if algorithm not in ALGORITHMS:
        raise InputError(f"algorithm must be one of {', '.join(ALGORITHMS)}, got {algorithm!r}")
    checked_refs = check_refs(refs)
    check_frames(num_frames)
    try:
        convention = Convention(clock_ref_bit_on_load, lfu_tie_break)
    except ValueError as exc:
        raise InputError(str(exc)) from exc
    steps = run_steps(algorithm, checked_refs, num_frames, convention)
    hits = sum(step.is_hit for step in steps)
    faults = len(steps) - hits
    return PagingResult(algorithm, num_frames, checked_refs, steps, faults, hits, hits / len(steps), convention)


def faults_curve(algorithm: str, refs: Sequence[int], max_frames: int, *, clock_ref_bit_on_load: bool = True,
                 lfu_tie_break: str = "fifo") -> tuple[tuple[int, int], ...]:
    """Return ((frames, faults), ...) for frames = 1..max_frames, to plot faults against memory size."""
    check_frames(max_frames, "max_frames")
    return tuple(
        (n, simulate_paging(algorithm, refs, n, clock_ref_bit_on_load=clock_ref_bit_on_load,
                            lfu_tie_break=lfu_tie_break).faults)
        for n in range(1, max_frames + 1)
    )


def find_belady_anomaly(curve: Sequence[tuple[int, int]]) -> tuple[int, int] | None:
    """Return the first (frames, frames + 1) where one more frame gave more faults (Belady's anomaly), else None."""
    for (frames, faults), (next_frames, next_faults) in zip(curve, curve[1:]):
        if next_faults > faults:
            return (frames, next_frames)
    return None
