"""The client's max_tokens (issue 23): rules that reserve for the future read it as their engine does, and "output"
(the default) leaves every run as it was; Orca's hybrid batches never pause a decode."""

from __future__ import annotations

from dataclasses import replace

import pytest

from chunkviz.errors import InputError
from chunkviz.request import Request
from chunkviz.simulator.engine import simulate
from chunkviz.workloads.max_tokens import apply_max_tokens, parse_max_tokens
from tests.helpers import make_config, make_requests


def _short_context(config, max_model_len_tokens: int = 512):
    return replace(config, model=replace(config.model, max_model_len_tokens=max_model_len_tokens))


def _first_step_admissions(config, requests) -> int:
    return len(simulate(config, requests).steps[0].chunks)


EIGHT_AT_ONCE = make_requests([(0.0, 100, 20)] * 8)  # 8 requests of 120 tokens (8 blocks each) arriving together


@pytest.mark.parametrize("policy", ["trtllm", "sglang"])
def test_unset_max_tokens_admits_fewer_requests_than_output(policy):
    # 200 blocks = 3,200 tokens, a budget that holds all 8 prompts. With max_tokens = output each request needs 120
    # tokens, so all 8 start in the first step; unset, TensorRT-LLM reserves to max_seq_len (512 tokens = 32 blocks:
    # 6 x 32 = 192 <= 200) and SGLang charges max_req_len - input - 1 = 511 - 101 = 410 new tokens per prefilling
    # request (6 x 510 = 3,060 < 3,200, a 7th reaches 3,570 >= 3,200, PrefillAdder's NO_TOKEN).
    config = _short_context(make_config(policy, 2048, num_gpu_blocks=200))
    with_output = _first_step_admissions(config, EIGHT_AT_ONCE)
    unset = _first_step_admissions(config, apply_max_tokens(EIGHT_AT_ONCE, None))
    assert with_output == 8
    assert unset == 6


@pytest.mark.parametrize("policy", ["chunked", "vllm-nochunk"])
def test_vllm_never_reads_max_tokens(policy):
    config = _short_context(make_config(policy, 512 if policy == "chunked" else None, num_gpu_blocks=200))
    a, b = simulate(config, EIGHT_AT_ONCE), simulate(config, apply_max_tokens(EIGHT_AT_ONCE, None))
    assert [r.finish_s for r in a.requests] == [r.finish_s for r in b.requests]


@pytest.mark.parametrize("policy", ["trtllm", "sglang", "orca"])
def test_output_choice_is_the_run_before_max_tokens_existed(policy):
    config = make_config(policy, 512 if policy != "orca" else None, num_gpu_blocks=60)
    requests = make_requests([(0.01 * i, 150 + 7 * i, 10 + 3 * i) for i in range(12)])
    explicit = tuple(replace(r, max_tokens=r.output_tokens) for r in requests)
    a, b = simulate(config, requests), simulate(config, explicit)
    assert [(s.start_s, s.num_running) for s in a.steps] == [(s.start_s, s.num_running) for s in b.steps]


def test_a_cap_cuts_the_output_and_is_sent_to_every_request():
    capped = apply_max_tokens(make_requests([(0.0, 10, 5), (0.0, 10, 50)]), 20)
    assert [(r.output_tokens, r.client_max_tokens) for r in capped] == [(5, 20), (20, 20)]
    assert apply_max_tokens(capped, "output") is capped


def test_bad_max_tokens_is_refused_naming_the_flag():
    for text in ("0", "-3", "many", "1.5"):
        with pytest.raises(InputError, match="--max-tokens must be 'output', 'unset' or a positive integer"):
            parse_max_tokens(text)
    with pytest.raises(ValueError, match="max_tokens \\(4\\) is below output_tokens \\(5\\)"):
        Request(0, 0.0, 10, 5, max_tokens=4)


def test_orca_never_pauses_a_running_decode():
    # Requests keep arriving while others decode: every step that prefills also decodes every running request, and
    # max_model_len is reserved per request so nothing is ever preempted. Prefill-first (vLLM V0) stalls them.
    requests = make_requests([(0.004 * i, 200, 30) for i in range(16)])
    config = _short_context(make_config("orca", None, num_gpu_blocks=160), 640)
    trace = simulate(config, requests)
    prefill_steps = [s for s in trace.steps if any(c.phase == "prefill" for c in s.chunks)]
    assert prefill_steps and any(any(c.phase == "decode" for c in s.chunks) for s in prefill_steps)
    assert all(s.num_stalled_decodes == 0 for s in trace.steps)
    assert all(r.num_preemptions == 0 and r.finish_s is not None for r in trace.requests)
    # 160 blocks hold 4 reservations of 640 tokens (40 blocks): never more than 4 run at once.
    assert max(s.num_running for s in trace.steps) == 4
    v0 = simulate(_short_context(make_config("monolithic", None, num_gpu_blocks=160), 640), requests)
    assert sum(s.num_stalled_decodes for s in v0.steps) > 0


@pytest.mark.parametrize("policy, rule", [("trtllm", "guaranteed_no_evict"), ("sglang", "prefill_adder"),
                                          ("orca", "max_model_len")])
def test_the_why_sentence_says_the_reservation_that_keeps_a_request_waiting(policy, rule):
    """Issue 23: the step's decision records the reserving rule's refusal in its engine's own figures, and the
    timeline's why-sentence quotes them (en and zh); the trace's JSON does not carry it (results byte-identical)."""
    from chunkviz.analysis.why import why_sentences
    from chunkviz.simulator.trace import Trace

    config = _short_context(make_config(policy, 2048 if policy != "orca" else None, num_gpu_blocks=200))
    trace = simulate(config, apply_max_tokens(EIGHT_AT_ONCE, None))
    note = trace.steps[0].decision.reserve
    assert (note.rule, note.request_id, note.max_tokens) == (rule, 6, None)  # the first request left out (6 start)
    assert note.need > note.available  # the refusal's arithmetic, as the check did it
    if policy == "trtllm":  # unset max_tokens: reserved to max_seq_len (512), 32 blocks of 16; 200 - 6 x 32 = 8
        assert (note.reserve_tokens, note.read_max_tokens, note.need, note.available) == (512, 412, 32, 8)
    en, zh = why_sentences(trace, "en")[0], why_sentences(trace, "zh")[0]
    assert "R6 and R7 wait" in en and f"{note.need:,}" in en and f"only {note.available:,}" in en
    assert "R6 和 R7等待" in zh and f"{note.available:,}" in zh
    if policy != "orca":
        assert "unset, read as" in en and "未设置" in zh
    assert "reserve" not in trace.to_json()  # kept out of the JSON, as knob_notes are
    assert Trace.from_json(trace.to_json()) == trace  # and equal traces stay equal without it
    # With the client's max_tokens = output, every request fits: nobody waits, no note.
    fits = simulate(config, EIGHT_AT_ONCE) if policy != "orca" else None
    if fits is not None:
        assert fits.steps[0].decision.reserve is None and "wait" not in why_sentences(fits, "en")[0]
