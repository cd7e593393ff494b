"""Each chapter's question has exactly one answer consistent with its slide's runs, and every number the slide prints
(question, options, verdict, labels, metrics line) is the run's value at the printed precision.

The options' truths are computed here from the traces themselves, not by the prediction's rule
(chunkviz/lessons/predictions.py), so a rule that drifts from what the runs show fails; the sentences are rendered
by the app's own functions (ui/chapters/answers.py, lanes.py) in English and 中文.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace

import pytest

from chunkviz.analysis.metrics import summarize
from chunkviz.analysis.scenario import run_scenario
from chunkviz.lessons import budgets, chapters, misconceptions, predictions, split
from chunkviz.lessons.chapters import chapter, find_bookmark, long_request_id, scenario_for
from chunkviz.request import PRIORITY_BATCH, PRIORITY_INTERACTIVE
from chunkviz.simulator.trace import Trace

NUMBER = re.compile(r"(?<![\w.])R?\d[\d,]*(?:\.\d+)?(?:e[+-]\d+)?")


@pytest.fixture(params=["en", "zh"])
def lang(request, monkeypatch):
    import ui.i18n

    monkeypatch.setattr(ui.i18n, "current_lang", lambda: request.param)
    for module in ("ui.chapters.common", "ui.chapters.lanes", "ui.chapters.lessons"):
        monkeypatch.setattr(f"{module}.current_lang", lambda: request.param, raising=False)
    return request.param


def _trace(number: int, policy: str) -> Trace:
    return run_scenario(scenario_for(chapter(number), policy))


def _decode_tokens(trace: Trace, index: int, request_id: int | None = None) -> int:
    return sum(c.num_tokens for c in trace.steps[index].chunks
               if c.phase == "decode" and (request_id is None or c.request_id == request_id))


def _prefill_steps(trace: Trace, request_id: int) -> list[int]:
    return [i for i, s in enumerate(trace.steps)
            if any(c.request_id == request_id and c.phase == "prefill" for c in s.chunks)]


def _stalled(trace: Trace, index: int) -> set[int]:
    return {r for e in trace.steps[index].events if e.kind == "DecodeStalled" for r in e.request_ids}


# ---- one answer per question: each option's truth from the runs -------------------------------------------------

def _truths_1() -> dict[str, bool]:
    trace = _trace(1, chapters.PREFILL_FIRST)
    doc = long_request_id(trace)
    (index,) = _prefill_steps(trace, doc)  # the banquet order runs in one step, as the question says
    served = _decode_tokens(trace, index)
    ready = served + len(_stalled(trace, index))
    return {"none": served == 0, "one_each": 0 < served <= ready, "several_each": served > ready > 0}


def _truths_2() -> dict[str, bool]:
    named = chapter(2).policies[0]  # the question names the chapter's first engine
    trace = _trace(2, named)
    got = _decode_tokens(trace, _prefill_steps(trace, long_request_id(trace))[0], 0)
    return {"yes": got > 0, "no": got == 0}


def _truths_3() -> dict[str, bool]:
    trace = _trace(3, chapters.DECODE_FIRST)
    doc = long_request_id(trace)
    steps = len(_prefill_steps(trace, doc))
    prompt = next(r.prompt_tokens for r in trace.requests if r.request_id == doc)
    options = predictions.chunk_option_steps(math.ceil(prompt / chapters.LECTURE_BUDGET_TOKENS))
    best = min(abs(v - steps) for v in options.values())
    return {o: abs(v - steps) == best for o, v in options.items()}


def _truths_4() -> dict[str, bool]:
    trace = _trace(4, chapters.DECODE_FIRST)
    hit = next(e.prefix_hit_tokens for s in trace.steps for e in s.events if e.kind == "Admitted"
               and e.request_id == 1)
    prompt = next(r.prompt_tokens for r in trace.requests if r.request_id == 1)
    return {"all": hit == 0, "none": hit >= prompt - 1, "all_but_shared_blocks": 0 < hit < prompt - 1}


def _truths_5() -> dict[str, bool]:
    trace = _trace(5, chapters.STATIC)
    req = {r.request_id: r for r in trace.requests}
    start, r0_done = req[1].first_scheduled_s, req[0].finish_s
    last_done = max(r.finish_s for r in trace.requests if r.request_id != 1)
    return {"right_away": start < r0_done, "after_r0_finishes": r0_done <= start < last_done,
            "after_all": start >= last_done}


def _truths_6() -> dict[str, bool]:
    slo = budgets.ClassSlo()
    meeting = {}
    for b in budgets.BUDGETS_TOKENS:
        trace = run_scenario(chapters.CLASSES.with_policy(chapters.DECODE_FIRST, b))
        chat, doc = summarize(trace, priority=PRIORITY_INTERACTIVE), summarize(trace, priority=PRIORITY_BATCH)
        if (chat.ttft_s.p90 <= slo.chat_ttft_p90_s and chat.tbt_s.p99 <= slo.chat_tbt_p99_s
                and doc.ttft_s.p50 <= slo.doc_ttft_p50_s):
            meeting[str(b)] = doc.ttft_s.p50
    # The question: the budget that meets both; if several do, the one whose documents get their first token soonest.
    return {str(b): bool(meeting) and str(b) == min(meeting, key=meeting.get) for b in budgets.BUDGETS_TOKENS}


def _truths_7() -> dict[str, bool]:
    gap = {kind: summarize(split.split_run(kind).trace).tbt_s.max for kind in split.DEPLOYMENT_KINDS}
    a, b = gap["colocated"], gap["disagg"]
    same = abs(b - a) <= 0.02 * a
    return {"same": same, "disagg": not same and b < a, "colocated": not same and a < b}


def _doc_chunks_stalled(trace: Trace) -> int:
    return sum(1 for i in _prefill_steps(trace, long_request_id(trace)) if _stalled(trace, i))


def _truths_8() -> dict[str, bool]:
    s = scenario_for(chapter(8), chapters.SGLANG_DEFAULT)
    default = run_scenario(s)
    mixed = run_scenario(replace(s, scheduler=replace(s.scheduler, sglang_enable_mixed_chunk=True)))
    a, b = _doc_chunks_stalled(default), _doc_chunks_stalled(mixed)
    return {"yes": a == 0, "only_with_mixed_chunk": a > 0 and b == 0, "no": a > 0 and b > 0}


def _truths_9() -> dict[str, bool]:
    mono = summarize(_trace(9, chapters.PREFILL_FIRST)).ttft_s.p50
    chunked = summarize(_trace(9, chapters.DECODE_FIRST)).ttft_s.p50
    same = abs(chunked - mono) <= 0.02 * mono
    return {"same": same, "lower": not same and chunked < mono, "higher": not same and chunked > mono}


TRUTHS = {1: _truths_1, 2: _truths_2, 3: _truths_3, 4: _truths_4, 5: _truths_5, 6: _truths_6, 7: _truths_7,
          8: _truths_8, 9: _truths_9}


@pytest.mark.parametrize("number", range(1, 10))
def test_the_accepted_answer_is_the_only_option_the_runs_support(number):
    truths = TRUTHS[number]()
    p = predictions.prediction(number)
    assert set(truths) == set(p.option_ids)
    assert [o for o, holds in truths.items() if holds] == [p.correct_option]


def test_chapter_2_names_the_engine_its_answer_is_about_and_the_other_engine_answers_otherwise(lang):
    from ui.chapters import answers
    from ui.chapters.common import engine_label
    from ui.chapters.lanes import question_fields
    from ui.i18n import tr

    ch = chapter(2)
    traces = {p: _trace(2, p) for p in ch.policies}
    p = predictions.prediction(2)
    question = tr("chx.q.2", lang, **answers.question_fields(ch, p, engine_label, question_fields(ch, traces)))
    assert engine_label(ch.policies[0]) in question and engine_label(ch.policies[1]) not in question
    other = traces[ch.policies[1]]
    assert _decode_tokens(other, _prefill_steps(other, long_request_id(other))[0], 0) > 0  # "yes" on the other


def test_chapter_9_mixes_claims_that_hold_and_claims_that_do_not():
    holds = [c.holds for c in misconceptions.check_claims()]
    assert 2 <= sum(holds) <= len(holds) - 2


# ---- every printed number is the run's, at the printed precision -------------------------------------------------

def _numbers(text: str) -> list[str]:
    return [n.lstrip("R") for n in NUMBER.findall(re.sub(r"p\d\d", "", text))]


def _agrees(printed: str, value: float) -> bool:
    """`printed` ("6,806", "300.3", "8.9e-16") is `value` rounded to the decimals it shows."""
    plain = printed.replace(",", "")
    if "e" in plain:
        return f"{value:.1e}" == plain
    decimals = len(plain.split(".")[1]) if "." in plain else 0
    return f"{value:.{decimals}f}" == plain


def _check(text: str, values: list[float]) -> None:
    printed = _numbers(text)
    assert len(printed) == len(values), (text, printed, values)
    wrong = [(p, v) for p, v in zip(printed, values) if not _agrees(p, v)]
    assert not wrong, (text, wrong)


def _verdict(number: int, lang: str) -> str:
    from ui.chapters.answers import verdict_fields
    from ui.chapters.common import engine_label
    from ui.chapters.lanes import question_fields
    from ui.i18n import tr

    ch = chapter(number)
    traces = {p: _trace(number, p) for p in ch.policies}
    fields = verdict_fields(ch, predictions.prediction(number), engine_label, question_fields(ch, traces))
    return tr(f"chx.a.{number}", lang, **fields)


def test_chapter_6_prints_each_figure_beside_its_slo_at_the_precision_that_decides_it(lang):
    slo = budgets.ClassSlo()
    points = budgets.sweep_budgets()
    text = _verdict(6, lang)
    series = [[p.budget_tokens for p in points], [p.chat_tbt_p99_s * 1e3 for p in points],
              [p.chat_ttft_p90_s * 1e3 for p in points], [p.doc_ttft_p50_s * 1e3 for p in points]]
    limits = [None, slo.chat_tbt_p99_s * 1e3, slo.chat_ttft_p90_s * 1e3, slo.doc_ttft_p50_s * 1e3]
    printed = _numbers(text)
    # English and 中文 print the same series in the same order: budgets, then each class's figures and its SLO.
    expected = [*series[0], *series[1], limits[1], *series[2], limits[2], *series[3], limits[3]]
    assert len(printed) == len(expected), (text, printed)
    assert all(_agrees(p, v) for p, v in zip(printed, expected)), (text, printed)
    # The deciding precision: each printed figure sits on the same side of its SLO as the run's value.
    at = 0
    for values, limit in zip(series, limits):
        shown = [float(x.replace(",", "")) for x in printed[at:at + len(values)]]
        at += len(values) + (limit is not None)
        if limit is not None:
            assert [s > limit for s in shown] == [v > limit for v in values], (shown, limit)
            assert all(s != limit for s, v in zip(shown, values) if v != limit)


@pytest.mark.parametrize("number", [1, 2, 3, 4, 5, 8, 9])
def test_every_number_in_the_verdict_is_the_runs(number):
    """English, in the order the sentence prints them; each value recomputed from the traces here."""
    expected = VERDICT_VALUES[number]()
    _check(_verdict(number, "en"), expected)


def _v1() -> list[float]:
    trace = _trace(1, chapters.PREFILL_FIRST)
    doc = long_request_id(trace)
    (index,) = _prefill_steps(trace, doc)
    prompt = next(r.prompt_tokens for r in trace.requests if r.request_id == doc)
    return [trace.steps[index].duration_s * 1e3, doc, prompt, _decode_tokens(trace, index),
            len(_stalled(trace, index))]


def _v2() -> list[float]:
    a, b = (_trace(2, p) for p in chapter(2).policies)
    ia, ib = _prefill_steps(a, long_request_id(a))[0], _prefill_steps(b, long_request_id(b))[0]
    return [0, a.steps[ia].duration_s * 1e3, _decode_tokens(a, ia, 0), len(_stalled(a, ia)),
            b.steps[ib].duration_s * 1e3, _decode_tokens(b, ib, 0)]


def _v3() -> list[float]:
    trace = _trace(3, chapters.DECODE_FIRST)
    doc = long_request_id(trace)
    prompt = next(r.prompt_tokens for r in trace.requests if r.request_id == doc)
    budget = chapters.LECTURE_BUDGET_TOKENS
    return [len(_prefill_steps(trace, doc)), prompt, budget, math.ceil(prompt / budget)]


def _v4() -> list[float]:
    trace = _trace(4, chapters.DECODE_FIRST)
    hit = next(e.prefix_hit_tokens for s in trace.steps for e in s.events if e.kind == "Admitted"
               and e.request_id == 1)
    prompt = next(r.prompt_tokens for r in trace.requests if r.request_id == 1)
    shared = chapters.PRESETS[chapter(4).preset].requests()[0].segments[0].num_tokens
    return [1, hit, prompt, shared - hit, 1, prompt - hit]


def _v5() -> list[float]:
    static, cont = _trace(5, chapters.STATIC), _trace(5, chapters.PREFILL_FIRST)
    r1, r0, c1 = static.requests[1], static.requests[0], cont.requests[1]
    return [1, (r1.first_token_s - r1.arrival_s) * 1e3, 0, r0.finish_s * 1e3, (c1.first_token_s - c1.arrival_s) * 1e3]


def _v8() -> list[float]:
    s = scenario_for(chapter(8), chapters.SGLANG_DEFAULT)
    default = run_scenario(s)
    mixed = run_scenario(replace(s, scheduler=replace(s.scheduler, sglang_enable_mixed_chunk=True)))
    doc = long_request_id(default)
    return [_doc_chunks_stalled(default), len(_prefill_steps(default, doc)), summarize(default).tbt_s.max * 1e3,
            _doc_chunks_stalled(mixed), summarize(mixed).tbt_s.max * 1e3]


def _v9() -> list[float]:
    mono, chunked = summarize(_trace(9, chapters.PREFILL_FIRST)), summarize(_trace(9, chapters.DECODE_FIRST))
    return [mono.ttft_s.p50 * 1e3, chunked.ttft_s.p50 * 1e3, mono.tbt_s.max * 1e3, chunked.tbt_s.max * 1e3]


VERDICT_VALUES = {1: _v1, 2: _v2, 3: _v3, 4: _v4, 5: _v5, 8: _v8, 9: _v9}


def test_chapter_2_labels_and_metrics_lines_print_the_runs_numbers(lang):
    from ui.chapters.lanes import label_for, metrics_line, named_requests

    ch = chapter(2)
    for policy in ch.policies:
        trace = _trace(2, policy)
        mark = find_bookmark(trace, "long_prefill")
        doc = long_request_id(trace)
        prompt = next(r.prompt_tokens for r in trace.requests if r.request_id == doc)
        stalled = _stalled(trace, mark.step_index)
        label = label_for(mark, trace)
        if mark.num_tokens == prompt:
            _check(label, [doc, prompt, mark.duration_ms, len(stalled)])
        else:
            _check(label, [doc, mark.num_tokens, prompt, mark.duration_ms, len(stalled)] if lang == "en"
                   else [doc, prompt, mark.num_tokens, mark.duration_ms, len(stalled)])
        # Every chat the label counts as frozen has its window on the slide (ui/chapters/chat.py).
        assert stalled <= set(named_requests(ch, trace))
        m = summarize(trace)
        _check(metrics_line(trace), [m.ttft_s.p50 * 1e3, m.tbt_s.p99 * 1e3, m.tbt_s.max * 1e3,
                                     m.throughput_output_tokens_per_s])


def test_chapter_9_flops_claim_prints_chapter_3s_example(lang):
    from chunkviz.lessons.attention_math import LECTURE_EXAMPLE, run_attention_demo
    from ui.chapters.lessons import claim_fields
    from ui.fmt import si
    from ui.i18n import tr

    claim = next(c for c in misconceptions.check_claims() if c.claim_id == "adds_flops")
    demo = run_attention_demo(**LECTURE_EXAMPLE)  # what chapter 3 draws and /attention opens with
    text = tr("chx.myth.adds_flops.why", lang, **claim_fields(claim))
    assert si(demo.total_attention_flops) in text and f"{demo.max_abs_diff:.1e}" in text
    assert demo.max_abs_diff > 0  # the example's difference is printed as it is, not as 0.0e+00


@pytest.mark.parametrize("value, threshold, shown", [(300.32, 300, "300.3"), (237.5, 300, "238"),
                                                     (299.96, 300, "299.96"), (300.0004, 300, "300.0004"),
                                                     (25.0, 25, "25")])
def test_a_figure_against_a_threshold_keeps_the_decimals_that_decide(value, threshold, shown):
    from ui.fmt import deciding

    assert deciding(value, threshold) == shown
