"""Predict, then reveal: one question per chapter, answered by the learner, then checked against a simulator run.

Invariant: `correct_option` is derived from the run's own figures by the rule written beside each question, so a
change in the model, cost or policy changes the verdict with the numbers (tests re-derive it from the figures).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Callable

from chunkviz.analysis.metrics import summarize
from chunkviz.analysis.scenario import Scenario, run_scenario
from chunkviz.lessons import split
from chunkviz.lessons.budgets import BUDGETS_TOKENS, ClassSlo, budget_meeting_both, sweep_budgets
from chunkviz.lessons.chapters import (CHAPTERS, DECODE_FIRST, LECTURE_BUDGET_TOKENS, PREFILL_FIRST, PRESETS,
                                       SGLANG_DEFAULT, STATIC, chapter, find_bookmark, long_request_id,
                                       num_prefill_chunks, scenario_for)
from chunkviz.simulator.trace import Trace

Runner = Callable[[Scenario], Trace]

OPTIONS: dict[int, tuple[str, ...]] = {
    1: ("none", "one_each", "several_each"),
    2: ("yes", "no"),
    3: ("one_step", "half", "prompt_over_budget", "double"),  # step counts, from the run (_num_chunks)
    4: ("all", "all_but_shared_blocks", "none"),
    5: ("right_away", "after_r0_finishes", "after_all"),
    6: tuple(str(b) for b in BUDGETS_TOKENS),
    7: ("colocated", "disagg", "same"),
    8: ("yes", "only_with_mixed_chunk", "no"),
    9: ("lower", "same", "higher"),
}


@dataclass(frozen=True, slots=True)
class Prediction:
    chapter: int
    option_ids: tuple[str, ...]
    correct_option: str
    figures: tuple[tuple[str, float], ...]  # (figure id, value); the UI names and formats them

    def value(self, figure_id: str) -> float:
        return dict(self.figures)[figure_id]


def _trace(number: int, policy: str, run: Runner) -> Trace:
    return run(scenario_for(chapter(number), policy))


def _make(number: int, verdict: str, figures: dict[str, float]) -> Prediction:
    assert verdict in OPTIONS[number], f"chapter {number}: verdict {verdict!r} is not an option"
    return Prediction(number, OPTIONS[number], verdict, tuple(figures.items()))


def _tokens_of(trace: Trace, step_index: int, request_id: int, phase: str) -> int:
    return sum(c.num_tokens for c in trace.steps[step_index].chunks if c.request_id == request_id and c.phase == phase)


def _kitchen(run: Runner) -> Prediction:
    # Rule: decode tokens in the banquet step, per decode-ready request: 0 → none, ≤ 1 → one_each, else several.
    trace = _trace(1, PREFILL_FIRST, run)
    mark = find_bookmark(trace, "long_prefill")
    decodes = sum(c.num_tokens for c in trace.steps[mark.step_index].chunks if c.phase == "decode")
    ready = decodes + mark.num_frozen
    verdict = "none" if decodes == 0 else ("one_each" if decodes <= ready else "several_each")
    return _make(1, verdict, {"decode_tokens": decodes, "frozen": mark.num_frozen, "step_ms": mark.duration_ms,
                              "prompt_tokens": mark.prompt_tokens})


def _r0_token(run: Runner) -> Prediction:
    # Rule: yes when R0 has a decode token in the step where the document's prompt runs (prefill-first engine).
    mono, chunked = _trace(2, PREFILL_FIRST, run), _trace(2, DECODE_FIRST, run)
    mark = find_bookmark(mono, "long_prefill")
    mark_c = find_bookmark(chunked, "long_prefill")
    got = _tokens_of(mono, mark.step_index, 0, "decode")
    return _make(2, "yes" if got else "no", {
        "r0_tokens": got, "step_ms": mark.duration_ms, "frozen": mark.num_frozen,
        "r0_tokens_chunked": _tokens_of(chunked, mark_c.step_index, 0, "decode"),
        "step_ms_chunked": mark_c.duration_ms})


# Chapter 3's options are step counts, not the formula: one step (no chunking), ⌈prompt / budget⌉ (a full budget
# per step), half of it (two budgets per step) and twice it (half a budget per step). The learner divides.
CHUNK_OPTION_FACTORS = {"one_step": 0.0, "half": 0.5, "prompt_over_budget": 1.0, "double": 2.0}


def chunk_option_steps(ideal_chunks: int) -> dict[str, int]:
    """Each of chapter 3's options as a number of steps (distinct: the lecture's prompt is many budgets long)."""
    steps = {o: 1 if f == 0 else max(1, math.ceil(ideal_chunks * f)) for o, f in CHUNK_OPTION_FACTORS.items()}
    assert len(set(steps.values())) == len(steps), f"chapter 3's options must differ, got {steps}"
    return steps


def _num_chunks(run: Runner) -> Prediction:
    # Rule: the option whose step count is nearest the steps the run computed the prompt in (ties: the fewer steps).
    trace = _trace(3, DECODE_FIRST, run)
    rid = long_request_id(trace)
    prompt = next(r.prompt_tokens for r in trace.requests if r.request_id == rid)
    n, ideal = num_prefill_chunks(trace, rid), math.ceil(prompt / LECTURE_BUDGET_TOKENS)
    steps = chunk_option_steps(ideal)
    verdict = min(steps, key=lambda o: (abs(steps[o] - n), steps[o]))
    return _make(3, verdict, {"chunks": n, "ideal_chunks": ideal, "prompt_tokens": prompt,
                              "budget_tokens": LECTURE_BUDGET_TOKENS,
                              **{f"steps_{o}": v for o, v in steps.items()}})


def _shared_prefix(run: Runner) -> Prediction:
    # Rule: a hit of 0 → all; a hit covering the whole prompt but the last token → none; else all_but_shared_blocks.
    trace = _trace(4, DECODE_FIRST, run)
    mark = find_bookmark(trace, "prefix_hit")
    hit = mark.num_tokens if mark else 0
    prompt = mark.prompt_tokens if mark else 0
    verdict = "all" if hit == 0 else ("none" if hit >= prompt - 1 else "all_but_shared_blocks")
    # The shared system prompt's tokens past the last whole block it fills: they share a block with the request's
    # own text, so the cache cannot hand them over.
    first = PRESETS[chapter(4).preset].requests()[0]
    shared = first.segments[0].num_tokens if first.segments else 0
    return _make(4, verdict, {"request_id": mark.request_id if mark else 0, "hit_tokens": hit,
                              "prompt_tokens": prompt, "computed_tokens": prompt - hit,
                              "tail_tokens": max(0, shared - hit)})


def _static_wait(run: Runner) -> Prediction:
    # Rule on R1 under static batching: TTFT < 100 ms → right_away; first scheduled at or after R0's finish
    # (and before the last request's) → after_r0_finishes; otherwise after_all.
    static = _trace(5, STATIC, run)
    cont = _trace(5, PREFILL_FIRST, run)
    r0, r1 = static.requests[0], static.requests[1]
    ttft = r1.first_token_s - r1.arrival_s
    last_finish = max(r.finish_s for r in static.requests if r.request_id != 1)
    verdict = ("right_away" if ttft < 0.1 else
               "after_r0_finishes" if r0.finish_s <= r1.first_scheduled_s < last_finish else "after_all")
    r1_cont = cont.requests[1]
    return _make(5, verdict, {"r1_ttft_ms": ttft * 1e3, "r0_finish_ms": r0.finish_s * 1e3,
                              "r1_ttft_continuous_ms": (r1_cont.first_token_s - r1_cont.arrival_s) * 1e3})


def _budget_both(run: Runner) -> Prediction:
    # Rule (budgets.budget_meeting_both): the budget whose chats meet TTFT p90 and TBT p99 and whose documents meet
    # TTFT p50; if several do, the one whose documents' first token comes soonest. The SLOs are figures too: the
    # question prints them.
    points = sweep_budgets()
    best = budget_meeting_both(points)
    assert best is not None, "the lesson's SLOs must be met by one of the budgets"
    slo = ClassSlo()
    figures = {"slo_chat_ttft_ms": slo.chat_ttft_p90_s * 1e3, "slo_chat_tbt_ms": slo.chat_tbt_p99_s * 1e3,
               "slo_doc_ttft_ms": slo.doc_ttft_p50_s * 1e3}
    for p in points:
        figures.update({f"tbt_p99_ms_{p.budget_tokens}": p.chat_tbt_p99_s * 1e3,
                        f"chat_ttft_ms_{p.budget_tokens}": p.chat_ttft_p90_s * 1e3,
                        f"doc_ttft_ms_{p.budget_tokens}": p.doc_ttft_p50_s * 1e3})
    return _make(6, str(best), figures)


def _split_gap(run: Runner) -> Prediction:
    # Rule on chapter 2's requests over two GPUs (lessons/split.py): the worst token gap of the merged trace (every
    # request, as its user saw it) within ±2% → same; otherwise the deployment with the smaller one.
    # Deployment runs are not single-engine traces, so `run` is not used: split_run is deterministic and cached.
    figures = {}
    for kind in split.DEPLOYMENT_KINDS:
        trace = split.split_run(kind).trace
        doc_id = long_request_id(trace)
        chats = [r.first_token_s - r.arrival_s for r in trace.requests if r.request_id != doc_id]
        # The price of splitting: the slowest chat's first token (a chat may queue behind the document's prompt).
        figures.update({f"tbt_max_ms_{kind}": summarize(trace).tbt_s.max * 1e3,
                        f"chat_ttft_max_ms_{kind}": max(chats) * 1e3})
    disagg = split.split_run("disagg")
    doc = max(disagg.transfers, key=lambda x: (x.num_bytes, -x.request_id))
    figures.update({"doc_rid": doc.request_id, "doc_gb": doc.num_bytes / 1e9, "doc_exposed_ms": doc.exposed_s * 1e3})
    a, b = figures["tbt_max_ms_colocated"], figures["tbt_max_ms_disagg"]
    verdict = "same" if abs(b - a) <= 0.02 * a else ("disagg" if b < a else "colocated")
    return _make(7, verdict, figures)


def _doc_stall_steps(trace: Trace) -> int:
    """Steps computing a chunk of the document's prompt while a decode-ready chat got no token."""
    rid = long_request_id(trace)
    return sum(1 for s in trace.steps if s.num_stalled_decodes
               and any(c.request_id == rid and c.phase == "prefill" for c in s.chunks))


def _mixed_chunk(run: Runner) -> Prediction:
    # Rule, on the steps that carry the document's chunks: no stalled chat under SGLang's defaults → yes; none only
    # once --enable-mixed-chunk is set → only_with_mixed_chunk; stalls either way → no.
    default = _trace(8, SGLANG_DEFAULT, run)
    s = scenario_for(chapter(8), SGLANG_DEFAULT)
    mixed = run_scenario(replace(s, scheduler=replace(s.scheduler, sglang_enable_mixed_chunk=True)))
    doc, doc_mixed = _doc_stall_steps(default), _doc_stall_steps(mixed)
    verdict = "yes" if doc == 0 else "only_with_mixed_chunk" if doc_mixed == 0 else "no"
    return _make(8, verdict, {"doc_stall_steps": doc, "doc_stall_steps_mixed": doc_mixed,
                              "doc_chunks": num_prefill_chunks(default, long_request_id(default)),
                              "stall_steps": default.num_stall_steps, "stall_steps_mixed": mixed.num_stall_steps,
                              "tbt_max_ms": summarize(default).tbt_s.max * 1e3,
                              "tbt_max_mixed_ms": summarize(mixed).tbt_s.max * 1e3})


def _chunking_ttft(run: Runner) -> Prediction:
    # Rule: chunked TTFT p50 within ±2% of prefill-first → same; below → lower; above → higher.
    mono, chunked = summarize(_trace(9, PREFILL_FIRST, run)), summarize(_trace(9, DECODE_FIRST, run))
    a, b = mono.ttft_s.p50, chunked.ttft_s.p50
    verdict = "same" if abs(b - a) <= 0.02 * a else ("lower" if b < a else "higher")
    return _make(9, verdict, {"ttft_p50_ms_mono": a * 1e3, "ttft_p50_ms_chunked": b * 1e3,
                              "tbt_max_ms_mono": mono.tbt_s.max * 1e3, "tbt_max_ms_chunked": chunked.tbt_s.max * 1e3})


_BUILDERS = {1: _kitchen, 2: _r0_token, 3: _num_chunks, 4: _shared_prefix, 5: _static_wait, 6: _budget_both,
             7: _split_gap, 8: _mixed_chunk, 9: _chunking_ttft}
assert set(_BUILDERS) == {c.number for c in CHAPTERS}


@lru_cache(maxsize=None)
def prediction(number: int, run: Runner = run_scenario) -> Prediction:
    """The chapter's question with the simulator's answer (cached: the runs are deterministic). `run` simulates a
    scenario: the app passes its shared trace cache, so the chapter's runs and its question's are one run."""
    chapter(number)
    return _BUILDERS[number](run)
