"""The lecture's lessons assert their figures: chapters and bookmarks, batching modes, utilisation per step, the
engines' knobs, the per-class budget, and every prediction re-derived from its own figures."""

from __future__ import annotations

import math
from dataclasses import fields

import pytest

from chunkviz.analysis.scenario import run_scenario
from chunkviz.simulator.policies.registry import POLICY_NAMES
from chunkviz.lessons import batching, budgets, chapters, knobs, predictions, utilisation
from chunkviz.lessons.batching import mode_scenario


def test_chapters_are_numbered_in_the_article_order_with_unique_slugs():
    assert [c.number for c in chapters.CHAPTERS] == list(range(1, 10))
    slugs = [c.slug for c in chapters.CHAPTERS]
    # Slugs are URLs: chapters 8 and 9 keep the slugs they had as 7 and 8 (shared links open the same content);
    # "Split the kitchen", inserted as 7, has its own.
    assert slugs == ["ch1-kitchen", "ch2-long-prefill", "ch3-chunking", "ch4-paged-kv", "ch5-continuous-batching",
                     "ch6-chunk-size", "split-kitchen", "ch7-knobs", "ch8-misconceptions"]
    assert chapters.neighbours(1) == (None, chapters.CHAPTERS[1])
    assert chapters.neighbours(9) == (chapters.CHAPTERS[7], None)
    with pytest.raises(ValueError, match="between 1 and 9"):
        chapters.chapter(10)


def test_every_chapter_preset_is_small_and_its_key_bookmark_exists():
    for ch in chapters.CHAPTERS:
        scenario = chapters.PRESETS[ch.preset]
        assert len(scenario.requests()) <= 24
        assert all(p in POLICY_NAMES for p in ch.policies)
        trace = run_scenario(chapters.scenario_for(ch, ch.policies[0]))
        assert chapters.find_bookmark(trace, ch.bookmarks[0]) is not None, ch.slug


def test_lecture_preset_has_one_long_document_that_freezes_four_chats_without_chunking():
    ch = chapters.chapter(2)
    assert len(chapters.LECTURE.requests()) == 6
    mono = run_scenario(chapters.scenario_for(ch, chapters.PREFILL_FIRST))
    mark = chapters.find_bookmark(mono, "long_prefill")
    assert mark.request_id == 4 and mark.prompt_tokens == 6806 and mark.num_tokens == 6806
    assert mark.num_frozen == 4 and mark.duration_ms > 100
    chunked = run_scenario(chapters.scenario_for(ch, chapters.DECODE_FIRST))
    first = chapters.find_bookmark(chunked, "long_prefill")
    assert first.num_frozen == 0 and first.num_tokens <= chapters.LECTURE_BUDGET_TOKENS
    assert chapters.num_prefill_chunks(chunked, 4) == math.ceil(6806 / 512)


def test_static_ttft_is_far_above_continuous_and_decode_first_has_no_long_gaps():
    r = batching.by_mode(batching.compare_batching())
    assert r["static"].ttft_p50_s > 20 * r["continuous"].ttft_p50_s
    assert r["static"].throughput_tokens_per_s < 0.7 * r["continuous"].throughput_tokens_per_s
    assert r["continuous"].tbt_max_s > 5 * r["decode_first"].tbt_max_s
    assert r["decode_first"].num_stall_steps == 0 < r["continuous"].num_stall_steps
    # Work per step: static batching ends with a lone request decoding one token per step.
    assert min(r["static"].step_tokens) == 1 and max(r["decode_first"].step_tokens) <= 512


def _utils(policy: str):
    s = mode_scenario(chapters.LECTURE, policy)
    trace = run_scenario(s)
    return trace, utilisation.step_utilisation(trace, s.sim_config())


@pytest.mark.parametrize("policy", [chapters.PREFILL_FIRST, chapters.DECODE_FIRST])
def test_compute_and_memory_bound_time_add_up_to_the_cost_model_terms(policy):
    trace, utils = _utils(policy)
    for u, step in zip(utils, trace.steps):
        assert u.compute_bound_s + u.memory_bound_s + u.other_s == pytest.approx(step.cost.total_s, rel=1e-9)


def test_mixed_chunked_steps_have_higher_mfu_than_decode_only_steps():
    _, utils = _utils(chapters.DECODE_FIRST)
    kinds = utilisation.summarize_kinds(utils)
    assert kinds["mixed"].mean_mfu > 10 * kinds["decode_only"].mean_mfu
    assert kinds["decode_only"].compute_share == 0.0 and kinds["mixed"].compute_share > 0.5
    _, mono = _utils(chapters.PREFILL_FIRST)
    mono_kinds = utilisation.summarize_kinds(mono)
    assert "mixed" not in mono_kinds and mono_kinds["prefill_only"].mean_mfu > 0.5  # the roller coaster's peaks


def test_every_knob_maps_to_a_setting_or_says_not_modelled_and_cites_its_default():
    for knob in knobs.KNOBS:
        assert knob.engine in knobs.ENGINES and knob.default and knob.source
        assert any(mark in knob.source for mark in (".py", ".md", ".html")), knob.source
        if knob.setting == knobs.NOT_MODELLED:
            assert knob.try_values == ()
            continue
        part, name = knob.setting.split(".")
        assert name in {f.name for f in fields(getattr(chapters.LECTURE, part))}
        assert len(knob.try_values) == 2
    asked = {"vllm": {"max_num_batched_tokens", "max_num_seqs", "long_prefill_token_threshold",
                      "max_num_partial_prefills", "enable_prefix_caching", "gpu_memory_utilization"},
             "sglang": {"chunked_prefill_size", "max_prefill_tokens", "schedule_conservativeness",
                        "enable_mixed_chunk", "disable_radix_cache"},
             "trtllm": {"max_num_tokens", "max_batch_size", "capacity_scheduler_policy"}}
    for engine, names in asked.items():
        assert names <= {k.name for k in knobs.knobs_of(engine)}
    with pytest.raises(ValueError, match="unknown simulator setting"):
        knobs.apply_setting(chapters.LECTURE, "scheduler.nope", 1)


def test_knob_runs_show_their_effect():
    by_name = {(k.engine, k.name): k for k in knobs.KNOBS}
    big, small = knobs.knob_effect(by_name[("vllm", "max_num_batched_tokens")])
    assert big.tbt_max_ms > 5 * small.tbt_max_ms  # a whole document in one step vs 512-token chunks
    off, on = knobs.knob_effect(by_name[("sglang", "enable_mixed_chunk")])
    assert on.tbt_max_ms < off.tbt_max_ms / 5
    guaranteed, packed = knobs.knob_effect(by_name[("trtllm", "capacity_scheduler_policy")])
    assert guaranteed.num_preemptions == 0 < packed.num_preemptions
    full_isl, first_chunk = knobs.knob_effect(by_name[("vllm", "scheduler_reserve_full_isl")])
    assert full_isl.num_preemptions == 0 < first_chunk.num_preemptions
    with pytest.raises(ValueError, match="not modelled"):
        knobs.knob_scenario(by_name[("sglang", "max_prefill_tokens")], 1)


def test_turning_chunking_off_costs_nothing_for_short_prompts_and_helps_offline_ttft():
    c512, _, mono = knobs.chunking_off_case("short_prompts")
    assert mono.ttft_p50_ms == pytest.approx(c512.ttft_p50_ms, rel=0.05)  # 64-token prompts are never split
    c512, c2048, mono = knobs.chunking_off_case("offline_batch")
    assert mono.ttft_p50_ms < c512.ttft_p50_ms and mono.throughput_tokens_per_s > c512.throughput_tokens_per_s
    assert c2048.throughput_tokens_per_s > c512.throughput_tokens_per_s


def test_one_budget_meets_both_classes_slos():
    points = budgets.sweep_budgets()
    tbt = [p.chat_tbt_p99_s for p in points]
    assert tbt == sorted(tbt)  # bigger budgets: longer mixed steps, longer gaps for the chats
    assert points[0].doc_ttft_p50_s > points[-1].doc_ttft_p50_s  # smaller budgets: the documents wait longer
    best = budgets.budget_meeting_both(points)
    assert [p.budget_tokens for p in points if p.meets_both] == [best] == [512]


@pytest.mark.parametrize("number", range(1, 10))
def test_each_prediction_follows_from_its_own_figures(number):
    p = predictions.prediction(number)
    assert p.correct_option in p.option_ids
    f = dict(p.figures)
    expected = {
        1: lambda: "none" if f["decode_tokens"] == 0 else "one_each",
        2: lambda: "yes" if f["r0_tokens"] else "no",
        3: lambda: min(p.option_ids, key=lambda o: abs(f[f"steps_{o}"] - f["chunks"])),
        4: lambda: "all_but_shared_blocks" if 0 < f["hit_tokens"] < f["prompt_tokens"] - 1 else p.correct_option,
        5: lambda: "right_away" if f["r1_ttft_ms"] < 100 else "after_r0_finishes",
        6: lambda: min((b for b in p.option_ids if f[f"tbt_p99_ms_{b}"] <= 25 and f[f"doc_ttft_ms_{b}"] <= 300),
                       key=lambda b: f[f"doc_ttft_ms_{b}"]),
        7: lambda: min(("colocated", "disagg"), key=lambda k: f[f"tbt_max_ms_{k}"]),
        8: lambda: "only_with_mixed_chunk" if f["doc_stall_steps"] > 0 == f["doc_stall_steps_mixed"] else "no",
        9: lambda: "higher" if f["ttft_p50_ms_chunked"] > 1.02 * f["ttft_p50_ms_mono"] else p.correct_option,
    }[number]()
    assert p.correct_option == expected


def test_the_lecture_answers_are_the_ones_the_chapters_teach():
    answers = {n: predictions.prediction(n).correct_option for n in range(1, 10)}
    assert answers == {1: "none", 2: "no", 3: "prompt_over_budget", 4: "all_but_shared_blocks",
                       5: "after_r0_finishes", 6: "512", 7: "disagg", 8: "only_with_mixed_chunk",
                       9: "higher"}


def test_the_misconceptions_mix_claims_that_hold_and_not_each_by_its_own_figures():
    from chunkviz.lessons import misconceptions

    found = misconceptions.check_claims()
    claims = {c.claim_id: dict(c.figures) for c in found}
    assert {c.holds for c in found} == {True, False}  # "false" is not a pattern the learner can follow
    assert claims["lowers_ttft"]["chunked_ms"] > claims["lowers_ttft"]["mono_ms"]
    assert claims["adds_flops"]["chunked_flops"] == claims["adds_flops"]["one_pass_flops"]
    assert claims["adds_flops"]["kv_ratio"] > 1 and claims["adds_flops"]["max_diff"] < 1e-9
    assert claims["budget_per_step"]["chunk"] + claims["budget_per_step"]["decodes"] == 512
    assert claims["always_removes_stalls"]["stall_steps"] > 0
    assert claims["budget_trades"]["big_ms"] > claims["budget_trades"]["small_ms"]
    assert claims["budget_trades"]["big_doc_ms"] < claims["budget_trades"]["small_doc_ms"]
    assert claims["continuous_beats_static"]["static_tps"] < claims["continuous_beats_static"]["continuous_tps"]
    assert [c.holds for c in found] == [False, False, True, False, True, True]


def test_chapter_4_shares_the_system_prompt_blocks_and_copies_on_write():
    from chunkviz.lessons import sharing

    facts = sharing.sharing_figures()
    ch = chapters.chapter(4)
    scenario = chapters.PRESETS[ch.preset]
    assert scenario.scheduler.parallel_sampling == "v0-fork-cow"
    sampled = [r for r in scenario.requests() if r.n_samples > 1]
    assert [(r.request_id, r.n_samples) for r in sampled] == [(chapters.SAMPLED_REQUEST_ID, facts.num_samples)]
    prompt_tokens = sampled[0].prompt_tokens
    assert prompt_tokens % 16 and facts.num_samples == 2  # its last block is partly filled, so the fork shares it
    # At the peak the system prompt's 62 full blocks are held by every live request, and the two samples also share
    # the rest of their request's blocks: its full ones, and its partly filled last one until that is copied.
    assert facts.num_shared_blocks in (prompt_tokens // 16, prompt_tokens // 16 + 1)
    assert facts.num_shared_blocks > 1000 // 16
    # One copy: the first sample to write into the shared, partly filled last block gets its own copy of it; the
    # other then holds the original alone.
    assert facts.max_ref_count >= 4 and facts.num_copy_on_write == 1
    trace = run_scenario(chapters.scenario_for(ch, chapters.DECODE_FIRST))
    cows = [(i, e.request_id) for i, s in enumerate(trace.steps) for e in s.events if e.kind == "CopyOnWrite"]
    forks = [(i, e.request_id) for i, s in enumerate(trace.steps) for e in s.events if e.kind == "Forked"]
    assert [r for _, r in cows] == [r for _, r in forks] == [chapters.SAMPLED_REQUEST_ID]
    assert forks[0][0] < cows[0][0]  # forked after its prompt, copied on its first decode
    peak = chapters.find_bookmark(trace, "peak_sharing")
    assert (peak.num_tokens, peak.num_frozen) == (facts.num_shared_blocks, facts.max_ref_count)
