"""Chapter 1's kitchen payload (ui/chapters/kitchen.py) equals the run's trace: at the banquet order's step, the step
before it and a decode-only step, the stove carries that step's prompt chunks and dishes (decodes, first tokens),
the fridge its blocks in use out of the pool, each table its state (frozen = the step's DecodeStalled), blocks held
and token times; and the slide sends the kitchen (not chat windows) with the map line in both languages' glossary
terms."""

from __future__ import annotations

import pytest

from chunkviz.analysis.scenario import run_scenario
from chunkviz.lessons.chapters import chapter, find_bookmark, scenario_for
from ui.chapters.kitchen import STATES, kitchen_payload
from ui.chapters.lanes import slide_extras
from ui.i18n import tr


@pytest.fixture(scope="module")
def run():
    ch = chapter(1)
    trace = run_scenario(scenario_for(ch, ch.policies[0]))
    return ch, trace, kitchen_payload(trace, trace.requests)


def _stalled(step) -> set[int]:
    return {r for e in step.events if e.kind == "DecodeStalled" for r in e.request_ids}


def _steps_to_check(trace) -> list[int]:
    long_step = find_bookmark(trace, "long_prefill").step_index
    decode_only = next(i for i, s in enumerate(trace.steps) if i > long_step and s.chunks
                       and all(c.phase == "decode" for c in s.chunks))
    return [long_step - 1, long_step, decode_only, len(trace.steps) - 1]


def test_the_kitchen_at_a_step_is_the_traces_step(run):
    ch, trace, k = run
    assert k["total_blocks"] == trace.num_gpu_blocks > 0
    long_step = find_bookmark(trace, "long_prefill").step_index
    for i in _steps_to_check(trace):
        step = trace.steps[i]
        assert k["cook"][i] == [[c.request_id, c.num_tokens] for c in step.chunks if c.phase == "prefill"], i
        firsts = [e.request_id for e in step.events if e.kind == "FirstToken"]
        assert k["plated"][i] == [c.request_id for c in step.chunks if c.phase == "decode"] + firsts, i
        assert k["used"][i] == step.num_used_blocks, i
        # No prefix caching in chapter 1: the tables' blocks add up to the fridge's.
        assert sum(k["blocks"][i]) == step.num_used_blocks, i
        for j, r in enumerate(trace.requests):
            state = STATES[k["state"][i][j]]
            assert (state == "frozen") == (r.request_id in _stalled(step)), (i, r.request_id, state)
            assert (state == "cooking") == any(c.request_id == r.request_id and c.phase == "prefill"
                                               for c in step.chunks), (i, r.request_id)
    # The banquet order: R4's whole prompt alone on the stove, its first token the step's one dish, the four tables
    # before it frozen, its blocks written to the fridge.
    rid = find_bookmark(trace, "long_prefill").request_id
    prompt = next(r.prompt_tokens for r in trace.requests if r.request_id == rid)
    assert k["cook"][long_step] == [[rid, prompt]] and k["plated"][long_step] == [rid]
    assert [t["r"] for t, s in zip(k["tables"], k["state"][long_step]) if STATES[s] == "frozen"] == [0, 1, 2, 3]
    at = [t["r"] for t in k["tables"]].index(rid)
    assert k["blocks"][long_step][at] == -(-prompt // trace.block_size)  # a block per 16 prompt tokens, rounded up


def test_a_tables_ticket_is_its_requests(run):
    _, trace, k = run
    for t, r in zip(k["tables"], trace.requests):
        assert (t["r"], t["prompt"], t["out"]) == (r.request_id, r.prompt_tokens, r.output_tokens)
        assert t["arr"] == r.arrival_s * 1e3 and t["tok"] == [x * 1e3 for x in r.token_times_s[0]]
        assert len(t["tok"]) == r.output_tokens  # dishes plated by the end = output tokens


def test_the_slide_sends_the_kitchen_and_its_map_in_both_languages(run):
    ch, trace, _ = run
    extras = slide_extras(ch, {ch.policies[0]: trace}, done=False, kitchen=True)
    assert "chats" not in extras and len(extras["kitchen"]) == 1
    assert [t["r"] for t in extras["kitchen"][0]["tables"]] == [r.request_id for r in trace.requests]
    assert all(v and "chx.kit" not in v for v in extras["kitchen_text"].values())
    en, zh = tr("chx.kit.map", "en"), tr("chx.kit.map", "zh")
    assert all(w in en for w in ("GPU step", "request", "prompt", "output token", "KV cache"))
    assert all(w in zh for w in ("引擎步", "请求", "提示词", "输出 token", "KV 缓存"))
    assert not any(c in zh for c in ";:=,") and "； " not in zh  # full-width punctuation, no space after it
    # Other chapters keep their chat windows.
    ch2 = chapter(2)
    assert "kitchen" not in slide_extras(ch2, {p: run_scenario(scenario_for(ch2, p)) for p in ch2.policies}, True)
