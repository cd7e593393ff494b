"""The page-replacement stage's data: every rule's steps over one reference string as JSON-ready columns, the why
of each eviction as numbers, and the bookmarks (first eviction, first disagreement, Belady's anomaly). Built once per
setting; the browser steps through it.

Invariant: pure and deterministic; cursor c means refs[0..c-1] are done (0 = nothing yet, as in paging_bridge);
every track has one entry per reference; reference numbers in `facts` are 1-based, as the page shows them.
"""

from __future__ import annotations

from typing import Any

from chunkviz.lessons.paging import ALGORITHMS, PagingResult, PagingStep, faults_curve, find_belady_anomaly, simulate_paging
from chunkviz.lessons.paging_bridge import curve_max_frames

# Rules that can show Belady's anomaly (LRU and OPT are stack algorithms and never do), in the order tried.
ANOMALY_RULES = ("fifo", "clock")


def step_facts(step: PagingStep) -> dict[str, int]:
    """The numbers a step's reason sentence needs (keys by reason code; reference numbers 1-based).

    hit/load_free: page, frame; evict_fifo: victim, at (its load); evict_lru: victim, at (its last use), ago (refs
    since); evict_opt: victim, at (its next use); evict_opt_never: victim; evict_clock: victim, n (pages given a
    second chance first); evict_lfu: victim, n (its uses). Source: PagingStep.victim_value (lessons/paging_steps.py).
    """
    facts = {"page": step.page, "frame": step.frames.index(step.page) + 1}
    if step.victim is None:
        return facts
    facts["victim"] = step.victim
    value = step.victim_value
    code = step.reason_code
    if code in ("evict_fifo", "evict_lru", "evict_opt") and value is not None:
        facts["at"] = value + 1
    if code == "evict_lru" and value is not None:
        facts["ago"] = step.index - value
    if code in ("evict_clock", "evict_lfu") and value is not None:
        facts["n"] = value
    return facts


def track(result: PagingResult, label: str) -> dict[str, Any]:
    """One rule's run as columns: frames after each reference, hit, victim, reason code and facts, faults so far,
    and the rule's own order (next victim first) with its per-page values (PagingStep.order_values)."""
    faults, running = [], 0
    for step in result.steps:
        running += not step.is_hit
        faults.append(running)
    s = result.steps
    return {"alg": result.algorithm, "label": label, "num_frames": result.num_frames, "total_faults": result.faults,
            "frames": [list(x.frames) for x in s], "hit": [x.is_hit for x in s], "victim": [x.victim for x in s],
            "code": [x.reason_code for x in s], "facts": [step_facts(x) for x in s], "faults": faults,
            "order": [list(x.order) for x in s], "values": [list(x.order_values) for x in s],
            "hand": [x.hand for x in s]}


def first_divergence(small: PagingResult, big: PagingResult) -> int | None:
    """The first reference (0-based) where the run with more frames faults and the one with fewer hits."""
    for a, b in zip(small.steps, big.steps):
        if a.is_hit and not b.is_hit:
            return a.index
    return None


def anomaly(refs: tuple[int, ...], num_frames: int, bit: bool, tie: str) -> dict[str, Any] | None:
    """Belady's anomaly on this string, if FIFO (then Clock) shows one: both runs as tracks and where to look."""
    max_frames = curve_max_frames(refs, num_frames)
    for rule in ANOMALY_RULES:
        pair = find_belady_anomaly(faults_curve(rule, refs, max_frames, clock_ref_bit_on_load=bit, lfu_tie_break=tie))
        if pair is None:
            continue
        small, big = (simulate_paging(rule, refs, n, clock_ref_bit_on_load=bit, lfu_tie_break=tie) for n in pair)
        at = first_divergence(small, big)
        return {"alg": rule, "small_frames": pair[0], "big_frames": pair[1], "small_faults": small.faults,
                "big_faults": big.faults, "tracks": [track(small, rule), track(big, rule)],
                "cursor": len(refs) if at is None else at + 1, "page": None if at is None else refs[at]}
    return None


def _first(steps: tuple[PagingStep, ...], want) -> int | None:
    return next((s.index + 1 for s in steps if want(s)), None)


def bookmarks(results: dict[str, PagingResult], selected: str) -> list[dict[str, Any]]:
    """Cursor targets: the selected rule's first eviction, the first reference where the rules disagree, the end."""
    steps = results[selected].steps
    marks = [{"kind": "first_evict", "cursor": _first(steps, lambda s: s.victim is not None)},
             {"kind": "first_hit", "cursor": _first(steps, lambda s: s.is_hit)}]
    columns = list(zip(*(r.steps for r in results.values())))
    differ = next((col[0].index + 1 for col in columns if len({s.victim for s in col}) > 1), None)
    marks.append({"kind": "differ", "cursor": differ})
    return [m for m in marks if m["cursor"] is not None]


def stage_data(refs: tuple[int, ...], num_frames: int, selected: str, *, clock_ref_bit_on_load: bool = True,
               lfu_tie_break: str = "fifo") -> dict[str, Any]:
    """Everything the stage draws, without texts or colours: refs, one track per rule, bookmarks, the anomaly."""
    bit, tie = clock_ref_bit_on_load, lfu_tie_break
    results = {alg: simulate_paging(alg, refs, num_frames, clock_ref_bit_on_load=bit, lfu_tie_break=tie)
               for alg in ALGORITHMS}
    return {"refs": list(refs), "num_frames": num_frames, "selected": selected,
            "tracks": [track(r, alg) for alg, r in results.items()],
            "bookmarks": bookmarks(results, selected), "anomaly": anomaly(refs, num_frames, bit, tie)}
