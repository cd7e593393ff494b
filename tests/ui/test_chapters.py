"""Each lecture chapter opens on its preset and key bookmark, links to its neighbours, and checks the learner's
prediction against the simulator's answer; the navigation lists the chapters first, numbered, in both languages."""

from __future__ import annotations

from unittest.mock import patch

import pytest

from chunkviz.lessons.chapters import CHAPTERS, PREFILL_FIRST, PRESETS, chapter, find_bookmark, scenario_for
from chunkviz.analysis.scenario import run_scenario
from chunkviz.lessons.predictions import prediction
from tests.ui.apptest_helpers import open_app, texts
from ui.chapters.common import page_file
from ui.chapters.lanes import slide_extras
from ui.i18n import tr

STAGED = (3, 4)  # chapters whose stage is the attention or KV stage, not the lanes (tests/ui/test_chapter_stages.py)


def _traces(ch):
    return {p: run_scenario(scenario_for(ch, p)) for p in ch.policies}


@pytest.mark.parametrize("number", range(1, 10))
def test_chapter_opens_on_its_preset_with_the_step_held_back(number):
    ch = chapter(number)
    at = open_app(page_file(ch))
    assert at.title[0].value.startswith(f"{number} · ")
    shown = texts(at)
    assert tr(f"chx.see.{number}", "en") in shown
    assert tr(f"chx.preset.{ch.preset}", "en") in shown  # says that it replaces the sidebar's scenario
    assert at.radio(key=f"c{number}_pred").value is None
    # Chapters 3 and 4 draw a stage with no hold (the attention and KV stages): they promise none.
    assert tr("chx.pred.first" if number in STAGED else "chx.pred.hold", "en") in shown
    assert len(PRESETS[ch.preset].requests()) <= 24
    if number in STAGED:
        return
    # The stage holds the cursor at the key bookmark's start (that step is not drawn) until the question is answered;
    # answering lifts the hold and sends the cursor to the end of the moment the question asked about.
    traces = _traces(ch)
    first = traces[ch.policies[0]]
    mark, reveal = find_bookmark(first, ch.bookmarks[0]), find_bookmark(first, ch.reveal_kind)
    held = slide_extras(ch, traces, done=False)
    arrival = {r.request_id: r.arrival_s for r in first.requests}.get(mark.request_id)
    # A queue wait is held at the request's arrival (its start would already show the wait); others at the step.
    assert held["hold_ms"] == pytest.approx((arrival if mark.kind == "longest_wait" else mark.start_s) * 1e3)
    assert held["reveal_ms"] == pytest.approx(reveal.end_s * 1e3)
    assert slide_extras(ch, traces, done=True)["hold_ms"] is None
    # Every note is shown only from its event's end on, and every clicker stop is such an end.
    assert all(n["t_ms"] >= n["x_ms"] for n in held["notes"]) and held["stops"]
    assert {round(s["t_ms"], 6) for s in held["stops"]} >= {round(n["t_ms"], 6) for n in held["notes"]}


def _links(at) -> dict[str, str]:
    """url path of each Previous/Next link, by side ("prev", "next")."""
    out = {}
    for link in at.get("page_link"):
        for side in ("prev", "next"):
            label = link.proto.label
            if label.startswith("◀") and side == "prev" or label.endswith("▶") and side == "next":
                out[side] = link.proto.page
    return out


@pytest.mark.parametrize("number", range(1, 10))
def test_next_and_previous_chapter_links_lead_to_the_neighbours(number):
    at = open_app(page_file(chapter(number)))
    links = _links(at)
    assert links.get("prev") == (chapter(number - 1).slug if number > 1 else None)
    assert links.get("next") == (chapter(number + 1).slug if number < 9 else None)
    for side, other in (("prev", number - 1), ("next", number + 1)):
        if side in links:
            at.switch_page(page_file(chapter(other))).run()
            assert not at.exception and at.title[0].value.startswith(f"{other} · ")


@pytest.mark.parametrize("number", range(1, 10))
def test_the_prediction_is_checked_against_the_simulator(number):
    p = prediction(number)
    wrong = next(o for o in p.option_ids if o != p.correct_option)
    at = open_app(page_file(chapter(number)))
    metrics = tr("chx.metrics", "en", ttft=0, tbt=0, gap=0, thr=0).split(" ")[0]  # "TTFT"
    assert metrics not in "\n".join(c.value for c in at.caption)  # no result before the answer
    at.radio(key=f"c{number}_pred").set_value(wrong).run()
    assert not at.exception
    assert at.error and tr(f"chx.o.{number}.{p.correct_option}", "en", **dict(p.figures)) in at.error[0].value
    assert metrics in "\n".join(c.value for c in at.caption)  # the runs' figures, once answered
    at.radio(key=f"c{number}_pred").set_value(p.correct_option).run()
    assert at.success and tr("chx.pred.right", "en") in at.success[0].value


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_lecture_chapters_come_first_in_the_navigation_numbered_in_both_languages(lang):
    import streamlit as st

    seen = []
    real = st.navigation

    def spy(pages, *args, **kwargs):
        seen.append(pages)
        return real(pages, *args, **kwargs)

    with patch.object(st, "navigation", spy):
        open_app(lang=lang)
    sections = seen[-1]
    assert list(sections) == [tr("chx.nav_lecture", lang), tr("chx.nav_reference", lang)]
    lecture = sections[tr("chx.nav_lecture", lang)]
    assert [p.url_path for p in lecture] == [c.slug for c in CHAPTERS]
    assert [p.title.split(" · ")[0] for p in lecture] == [str(c.number) for c in CHAPTERS]
    assert lecture[0].title == f"1 · {tr('chx.title.1', lang)}"
    reference = [p.url_path for p in sections[tr("chx.nav_reference", lang)]]
    assert reference == ["", "kv", "replacement", "tradeoffs", "attention", "article", "quiz", "traces", "measure"]


def test_the_stall_is_labelled_on_the_stage_and_the_chats_can_freeze():
    ch = chapter(2)
    traces = _traces(ch)
    extras = slide_extras(ch, traces, done=True)
    trace = traces[PREFILL_FIRST]
    step = next(s for s in trace.steps if any(c.request_id == 4 and c.phase == "prefill" for c in s.chunks))
    # The label of R4's whole-prompt step (prefill-first), drawn in engine A's lanes from the step's end on.
    note = next(n for n in extras["notes"] if n["eng"] == 0 and n["lane"] == 4)
    assert f"{step.duration_s * 1e3:.0f} ms" in note["text"] and "chats frozen" in note["text"]
    assert note["t_ms"] == pytest.approx((step.start_s + step.duration_s) * 1e3)
    # The chat windows carry each box's token times; a chat waiting through that step is past the frozen limit.
    chats = extras["chats"][0]
    assert step.duration_s * 1e3 > chats["frozen_ms"]
    r0 = next(b for b in chats["boxes"] if b["r"] == 0)
    assert not any(step.start_s * 1e3 < x < (step.start_s + step.duration_s) * 1e3 for x in r0["tok"])


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_sidebar_scenario_widgets_are_hidden_on_chapters_with_the_reason(lang):
    at = open_app(page_file(chapter(1)), lang=lang)
    assert any(tr("chx.sidebar_note", lang) == i.value for i in at.sidebar.info)
    assert not [s for s in at.sidebar.selectbox if s.key == "preset"]


def test_lecture_mode_stays_on_across_pages_until_turned_off():
    """?present=1 on a chapter: `/` shows the toggle on, the next chapter still hides its lesson; the toggle on `/`
    turns it off for the chapters too (one flag for the session, ui/lecture.py)."""
    at = open_app(page_file(chapter(2)), present="1")
    assert at.query_params.get("present") in ("1", ["1"])
    at.switch_page("pages/timeline_page.py").run()
    assert not at.exception and at.toggle(key="present").value
    at.switch_page(page_file(chapter(3))).run()
    assert at.expander[0].proto.expanded is False  # the lesson is folded: the teacher tells it
    at.switch_page("pages/timeline_page.py").run()
    at.toggle(key="present").set_value(False).run()
    assert at.session_state["_lecture"] is False
    assert "present" not in at.query_params
    at.switch_page(page_file(chapter(3))).run()
    assert any(e.proto.expanded for e in at.expander)


def test_chapter_9_reveals_each_claim_only_after_the_learner_commits():
    from ui.chapters.lessons import claims

    at = open_app(page_file(chapter(9)))
    found = claims()
    radios = [r for r in at.radio if r.key.startswith("c8_claim_")]
    assert [r.key for r in radios] == [f"c8_claim_{found[0].claim_id}"]  # one claim on screen, no verdict yet
    shown = texts(at)
    assert tr("chx.myth.verdict_true", "en") not in shown and tr("chx.myth.verdict_false", "en") not in shown
    for i, c in enumerate(found):
        wrong = "false" if c.holds else "true"
        at.radio(key=f"c8_claim_{c.claim_id}").set_value(wrong).run()
        assert not at.exception
        verdict = tr("chx.myth.verdict_true" if c.holds else "chx.myth.verdict_false", "en")
        assert verdict in at.error[-1].value  # the run's verdict, after the learner said the opposite
        nxt = [r.key for r in at.radio if r.key.startswith("c8_claim_")]
        assert len(nxt) == min(i + 2, len(found))


@pytest.mark.parametrize("number", [5, 6, 7, 8])
def test_result_tables_wait_for_the_answer(number):
    at = open_app(page_file(chapter(number)))
    before = len(at.dataframe) + len(at.get("plotly_chart"))
    p = prediction(number)
    at.radio(key=f"c{number}_pred").set_value(p.correct_option).run()
    assert len(at.dataframe) + len(at.get("plotly_chart")) > before


def test_chapter_texts_quote_the_runs_they_describe():
    """Chapter 2's step times are its prefill-first run's; chapter 3's FLOPs are written as the attention page
    writes them for the same example (the link opens that example)."""
    from chunkviz.lessons.attention_math import run_attention_demo
    from ui.fmt import si

    at = open_app(page_file(chapter(2)))
    trace = run_scenario(scenario_for(chapter(2), PREFILL_FIRST))
    mark = find_bookmark(trace, "long_prefill")
    assert f"take {mark.duration_ms:,.0f} ms in one step" in texts(at)
    at = open_app(page_file(chapter(3)))
    demo = run_attention_demo(num_tokens=64, head_dim=64, chunk_tokens=16)
    assert f"the same {si(demo.total_attention_flops)} attention FLOPs" in texts(at)
    at.switch_page("pages/attention_page.py").run()
    assert si(demo.total_attention_flops) in [m.value for m in at.metric]


def test_chapter_7_draws_each_gpu_its_row_the_kv_transfer_and_holds_before_the_document():
    """Split the kitchen: four engine rows (two colocated GPUs, the prefill and the decode GPU), the document's KV
    noted on the decode GPU with the run's figures, the cursor held before the document's first prompt step on any
    GPU; after the answer, the sweep's goodput per GPU as the core computed it."""
    from chunkviz.lessons import split
    from chunkviz.lessons.chapters import long_request_id
    from ui.chapters import split as page

    ch = chapter(7)
    runs = {k: split.split_run(k) for k in split.DEPLOYMENT_KINDS}
    labels = [label for label, _ in page.engines(runs)]
    assert labels == [tr("chx.split.eng.colocated", "en", n=1), tr("chx.split.eng.colocated", "en", n=2),
                      tr("chx.split.eng.prefill", "en"), tr("chx.split.eng.decode", "en")]
    doc = long_request_id(runs["colocated"].trace)
    starts = [s.start_s for run in runs.values() for i in run.instances for s in i.trace.steps
              if any(c.request_id == doc and c.phase == "prefill" for c in s.chunks)]
    held = page.extras(ch, runs, done=False)
    assert held["hold_ms"] == pytest.approx(min(starts) * 1e3) and page.extras(ch, runs, True)["hold_ms"] is None
    kv = next(x for x in runs["disagg"].transfers if x.request_id == doc)
    note = next(n for n in held["notes"] if n.get("kv"))
    assert note["eng"] == 3 and note["lane"] == doc and note["t_ms"] == pytest.approx(kv.ready_s * 1e3)
    assert f"{kv.exposed_s * 1e3:.1f} ms" in note["text"] and f"{kv.num_bytes / 1e9:.2f} GB" in note["text"]
    assert all(n["t_ms"] >= n["x_ms"] for n in held["notes"])
    assert {round(s["t_ms"], 6) for s in held["stops"]} >= {round(n["t_ms"], 6) for n in held["notes"]}
    assert held["reveal_ms"] >= held["hold_ms"]
    # Every transfer is a band from the prefill GPU's row (C) to the decode GPU's (D) over its own time on the link,
    # in the palette's transfer colour, which the legend explains.
    from ui import palette
    drawn = {b["r"]: b for b in held["transfers"]}
    assert set(drawn) == {x.request_id for x in runs["disagg"].transfers}
    for x in runs["disagg"].transfers:
        band = drawn[x.request_id]
        assert (band["from"], band["to"]) == (2, 3)
        assert (band["s_ms"], band["e_ms"]) == pytest.approx((x.start_s * 1e3, x.ready_s * 1e3))
        assert f"{x.num_bytes / 1e9:.2f} GB" in band["tip"]
    assert held["legend_extra"] == [[tr("chx.split.legend.kv", "en"), palette.TRANSFER, "transfer"]]
    at = open_app(page_file(ch))
    assert not at.dataframe
    at.radio(key="c7_pred").set_value(prediction(7).correct_option).run()
    table = at.dataframe[0].value
    assert list(table[tr("chx.split.sweep.colocated", "en")]) == [c.goodput_per_gpu for c in split.sweep()
                                                                   if c.deployment == "colocated"]
    # Which link assumptions make the split win (issue 36), named from the runs, never typed in.
    reach = split.reaching_colocated(split.sweep())
    verdict = next(m.value for m in at.markdown if "1P+1D reaches colocated" in m.value)
    for dep, docs in reach.items():
        assert (page.short_link(dep) + " (" in verdict) == bool(docs)
    # The load axis (issue 24): a winner per (length, load), read from the runs, and the curves' chart.
    loads = at.dataframe[1].value
    cells = split.load_sweep()
    for qps in split.LOADS_QPS:
        assert list(loads[tr("chx.split.load.col", "en", qps=qps)]) == [
            tr(f"chx.split.load.{split.load_winner(cells, doc, qps)}", "en") for doc in split.SWEEP_DOC_TOKENS]
    assert any(tr("chx.split.load.title", "en") in m.value for m in at.subheader)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_chapter_6_shows_what_priority_buys_the_chats_only_after_the_answer(lang):
    """The priority table and its sentence quote chapter 6's runs (fcfs beside priority), after the question."""
    from chunkviz.lessons.priority import largest_gain, priority_rows

    best = largest_gain(priority_rows())
    sentence = tr("chx.prio.result", lang, qps=f"{best.qps:g}", chat_fcfs_ms=best.chat_ttft_p99_fcfs_s * 1e3,
                  chat_prio_ms=best.chat_ttft_p99_priority_s * 1e3, doc_fcfs_ms=best.doc_ttft_p50_fcfs_s * 1e3,
                  doc_prio_ms=best.doc_ttft_p50_priority_s * 1e3)
    at = open_app(page_file(chapter(6)), lang=lang)
    assert tr("chx.prio.title", lang) not in texts(at) and sentence not in texts(at)
    at.radio(key="c6_pred").set_value(prediction(6).correct_option).run()
    assert not at.exception
    assert tr("chx.prio.title", lang) in texts(at) and sentence in texts(at)
    assert best.chat_ttft_p99_priority_s < best.chat_ttft_p99_fcfs_s


def test_chapter_5_credits_orca_with_hybrid_batches_and_puts_the_stalls_on_vllm_v0():
    """Issue 23 item 4: Orca runs decodes and whole prompts in one hybrid batch; only vLLM V0 pauses decodes."""
    from ui.chapters.text_lessons import TEXTS
    for text in TEXTS["chx.body.5"]:
        assert "Orca" in text and "V0" in text
    en, zh = TEXTS["chx.body.5"]
    assert "hybrid batch" in en and "pauses every decode" in en
    assert "混合批次" in zh and "暂停" in zh
    assert all("V0" in label for label in TEXTS["chx.batch.mode.continuous"])
