"""Why-sentences and bookmarks on hand-built scenarios whose schedule can be worked out by hand."""

from __future__ import annotations

from chunkviz.analysis import bookmarks
from chunkviz.analysis.why import WHY_TEXTS, why_sentence, why_sentences
from chunkviz.request import Request
from chunkviz.simulator.engine import simulate
from chunkviz.simulator.trace import Trace
from tests.helpers import make_config, make_requests


def _prompts(trace: Trace) -> dict[int, int]:
    return {r.request_id: r.prompt_tokens for r in trace.requests}


def _step_with_prefill_of(trace: Trace, rid: int):
    return next(s for s in trace.steps if any(c.request_id == rid and c.phase == "prefill" for c in s.chunks))


def _chats_then_long(policy: str, budget: int | None, late_chats: int = 0) -> Trace:
    """Seven chats decoding, then a 4,000-token document at 0.1 s, then `late_chats` more chats behind it."""
    specs = [(0.0, 20, 200)] * 7 + [(0.1, 4000, 4)] + [(0.1, 30, 4)] * late_chats
    return simulate(make_config(policy=policy, budget=budget), make_requests(specs))


def test_decode_first_fill_names_decodes_the_chunk_and_who_waits():
    trace = _chats_then_long("chunked", 512, late_chats=2)
    step = _step_with_prefill_of(trace, 7)
    text = why_sentence(step, _prompts(trace))
    assert text == ("decodes first: 7 tokens; R7's chunk got the remaining 505 of the 512-token budget "
                    "(prompt tokens 1–505 of 4,000); R8 and R9 wait: budget spent")
    nxt = trace.steps[step.step + 1]  # the second chunk starts where the first ended: no off-by-one
    assert "(prompt tokens 506–1,010 of 4,000)" in why_sentence(nxt, _prompts(trace))
    assert "解码优先：7 个 token" in why_sentence(step, _prompts(trace), "zh")


def test_prefill_only_step_says_who_stalls_and_for_how_long():
    chats = [(0.0, 20, 300)] * 4
    trace = simulate(make_config(policy="monolithic", budget=8192), make_requests(chats + [(0.1, 7058, 4)]))
    step = _step_with_prefill_of(trace, 4)
    ms = round(step.duration_s * 1e3)
    assert why_sentence(step, _prompts(trace)) == (
        f"prefill-first: this step runs only R4's 7,058-token prompt, so 4 chats get no token for {ms} ms")
    assert step.decision.stall_reason == "prefill_first"


def test_one_stalled_chat_is_singular():
    """Chapter 1's step 9 read "so 1 chats get no token": a count of one takes the singular template."""
    trace = simulate(make_config(policy="monolithic", budget=8192), make_requests([(0.0, 20, 300), (0.05, 3000, 4)]))
    step = _step_with_prefill_of(trace, 1)
    ms = round(step.duration_s * 1e3)
    assert step.num_stalled_decodes == 1
    assert why_sentence(step, _prompts(trace)) == (
        f"prefill-first: this step runs only R1's 3,000-token prompt, so 1 chat gets no token for {ms} ms")
    decode_only = next(s for s in trace.steps if [c.phase for c in s.chunks] == ["decode"])
    assert why_sentence(decode_only, _prompts(trace)).startswith("decode only: 1 request gets one token in ")


def test_preemption_is_explained_and_the_queue_waits_for_memory():
    config = make_config(policy="chunked", budget=256, num_gpu_blocks=40)
    trace = simulate(config, make_requests([(0.0, 200, 64)] * 16))
    step = next(s for s in trace.steps if any(e.kind == "Preempted" for e in s.events))
    victim = next(e for e in step.events if e.kind == "Preempted")
    text = why_sentence(step, _prompts(trace))
    assert f"KV cache full: R{victim.request_id} was preempted ({victim.freed_blocks} blocks freed)" in text
    assert step.decision.wait_reason == "memory" and text.endswith("wait: the KV cache is full")


def test_every_step_has_a_sentence_in_both_languages():
    trace = _chats_then_long("sglang", 512, late_chats=3)
    for lang in ("en", "zh"):
        sentences = why_sentences(trace, lang)
        assert len(sentences) == len(trace.steps) and all(sentences)
    assert all(en.count("{") == zh.count("{") for en, zh in WHY_TEXTS.values())


def test_decision_survives_the_json_round_trip():
    trace = _chats_then_long("chunked", 512, late_chats=2)
    assert Trace.from_json(trace.to_json()) == trace


def test_longest_stall_ends_where_the_blocking_prefill_ends():
    trace = simulate(make_config(policy="monolithic", budget=8192),
                     make_requests([(0.0, 20, 300)] * 4 + [(0.1, 7058, 4)]))
    mark = bookmarks.longest_stall(trace)
    step = _step_with_prefill_of(trace, 4)
    assert mark is not None and mark.kind == "longest_stall"
    assert mark.start_s == step.start_s and mark.end_s == step.start_s + step.duration_s
    assert mark.request_id == 0  # four equal stalls: the earliest request wins the tie


def test_long_prompt_bookmark_is_its_first_chunk():
    trace = _chats_then_long("chunked", 512)
    mark = bookmarks.long_prompt_chunk(trace)
    step = _step_with_prefill_of(trace, 7)
    assert (mark.request_id, mark.step, mark.end_s) == (7, step.step, step.start_s + step.duration_s)
    assert bookmarks.longest_stall(trace) is None  # chunked: nobody stalls


def test_preemption_and_prefix_hit_bookmarks():
    trace = simulate(make_config(policy="chunked", budget=256, num_gpu_blocks=40),
                     make_requests([(0.0, 200, 64)] * 16))
    first = bookmarks.first_preemption(trace)
    step = next(s for s in trace.steps if any(e.kind == "Preempted" for e in s.events))
    assert first is not None and first.step == step.step and first.end_s == step.start_s + step.duration_s
    assert bookmarks.first_prefix_hit(trace) is None
    shared = tuple(Request(i, 0.05 * i, 64, 4, output_key=None) for i in range(3))
    no_sharing = simulate(make_config(prefix_caching=True), shared)
    assert bookmarks.first_prefix_hit(no_sharing) is None  # unique prompts share nothing


def test_prefix_hit_bookmark_on_a_shared_system_prompt():
    from chunkviz.analysis.scenario import DEFAULT_SCENARIO, run_scenario
    from dataclasses import replace

    s = replace(DEFAULT_SCENARIO, workload_preset="shared-system-prompt",
                workload=replace(DEFAULT_SCENARIO.workload, num_requests=8),
                cache=replace(DEFAULT_SCENARIO.cache, enable_prefix_caching=True))
    trace = run_scenario(s)
    mark = bookmarks.first_prefix_hit(trace)
    assert mark is not None
    step = next(x for x in trace.steps if x.step == mark.step)
    assert any(e.kind == "Admitted" and e.prefix_hit_tokens > 0 for e in step.events)
    assert [b.kind for b in bookmarks.find_bookmarks(trace)][-1] == "first_prefix_hit"


def test_every_recorded_reason_has_a_sentence():
    from chunkviz.simulator.decision import STALL_REASONS, WAIT_REASONS

    assert all(f"why.wait_{r}" in WHY_TEXTS for r in WAIT_REASONS if r)
    assert {r for r in STALL_REASONS if r} == {"prefill_first", "budget"}  # why_sentence handles both


def test_static_batching_waits_by_its_own_rule_and_seats_are_named():
    trace = simulate(make_config(policy="static", budget=512), make_requests([(0.0, 20, 50), (0.01, 20, 5)]))
    assert any(s.decision.wait_reason == "policy" for s in trace.steps)
    seats = simulate(make_config(policy="chunked", budget=512, max_num_seqs=2),
                     make_requests([(0.0, 20, 50)] * 3))
    step = seats.steps[0]
    assert step.decision.wait_reason == "seats" and why_sentence(step, _prompts(seats)).endswith(
        "R2 wait: max_num_seqs requests already run")


def test_many_whole_prompts_in_one_step_are_counted_and_one_is_singular():
    """Static batching admits five waiting prompts in one step: the sentence counts them (it named all five and ran
    past a slide's caption line, chapter 5); a step with one decode or one frozen chat says so in the singular."""
    specs = [(0.0, 40, 30)] + [(1e-6 * i, 100 * i, 4) for i in range(1, 6)]
    trace = simulate(make_config(policy="static", budget=2048), make_requests(specs))
    step = next(s for s in trace.steps if sum(c.phase == "prefill" for c in s.chunks) == 5)
    assert why_sentence(step, _prompts(trace)) == "5 whole prompts (R1, R2 and 3 more; 1,500 tokens)"
    assert why_sentence(step, _prompts(trace), "zh") == "5 段完整提示词（R1、R2 及另外 3 个请求；共 1,500 个 token）"
    lone = next(s for s in trace.steps if s.chunks and all(c.phase == "decode" for c in s.chunks))
    assert why_sentence(lone, _prompts(trace)).startswith("decode only: 1 request gets one token in ")
    three = [(0.0, 40, 30)] + [(1e-6 * i, 100 * i, 4) for i in range(1, 4)]
    trace = simulate(make_config(policy="static", budget=2048), make_requests(three))
    step = next(s for s in trace.steps if sum(c.phase == "prefill" for c in s.chunks) == 3)
    assert why_sentence(step, _prompts(trace)) == ("R1's whole 100-token prompt; R2's whole 200-token prompt; "
                                                   "R3's whole 300-token prompt")


def test_a_one_token_chunk_reads_in_the_singular():
    """The split kitchen's decode GPU runs each prompt's last token as a 1-token chunk ("1 tokens" before)."""
    from chunkviz.lessons import split

    trace = next(i.trace for i in split.split_run("disagg").instances if i.role == "decode")
    doc = max(trace.requests, key=lambda r: r.prompt_tokens)
    step = next(s for s in trace.steps for c in s.chunks
                if c.request_id == doc.request_id and c.phase == "prefill" and c.num_tokens == 1)
    text = why_sentence(step, _prompts(trace))
    assert f"R{doc.request_id}'s chunk: 1 token (prompt token {doc.prompt_tokens:,} of {doc.prompt_tokens:,})" in text
    assert "1 tokens" not in text
