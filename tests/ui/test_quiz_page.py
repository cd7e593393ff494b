"""AppTest: the quiz renders every question; an answer brings the computed evidence, the verdict and the why."""

from __future__ import annotations

import streamlit as st

from chunkviz.lessons.quiz import OPTIONS, QUESTIONS
from tests.ui.apptest_helpers import open_app, texts

PAGE = "pages/quiz_page.py"


def test_all_questions_render_unanswered():
    at = open_app(PAGE)
    radios = [r for r in at.radio if r.key and r.key.startswith("qz_q")]
    assert [r.key for r in radios] == [f"qz_q{i}" for i in range(1, len(QUESTIONS) + 1)]
    assert all(r.value is None for r in radios) and [r.options for r in radios][0][1].startswith("No: the same")
    shown = texts(at)
    assert "Does chunked prefill add attention FLOPs?" in shown and "Belady" not in shown
    assert "Answered 0 of 8; 0 right." in shown
    assert not at.metric and not at.success and not at.error


def test_right_answer_shows_the_computed_figures():
    at = open_app(PAGE)
    at.radio(key="qz_q8").set_value("fifo_anomaly").run()
    assert at.success[0].value.startswith("Right")
    faults = {m.label: m.value for m in at.metric}
    assert faults == {"FIFO, 3 frames": "9 faults", "FIFO, 4 frames": "10 faults", "LRU, 3 frames": "10 faults",
                      "LRU, 4 frames": "8 faults"}
    assert "stack algorithm" in texts(at) and "Answered 1 of 8; 1 right." in texts(at)


def test_wrong_answer_names_the_one_the_numbers_support():
    at = open_app(PAGE)
    at.radio(key="qz_q1").set_value("more_flops").run()
    assert "No: the same (query, key) pairs are computed" in at.error[0].value
    figures = {m.label: m.value for m in at.metric}
    assert figures["toy head FLOPs, one pass"] == figures["toy head FLOPs, chunked"] == "33.62 MFLOP"
    assert float(figures["max |Δ|, toy head"]) < 1e-12
    at.radio(key="qz_q1").set_value("same_flops_more_bytes").run()  # changing the answer changes the verdict
    assert at.success and not at.error


def test_answering_everything_right_scores_full_marks():
    at = open_app(PAGE)
    for number, question_id in enumerate(QUESTIONS, start=1):
        at.radio(key=f"qz_q{number}").set_value(QUESTIONS[question_id]().correct_option)
    at.run()
    assert len(at.success) == len(QUESTIONS) and not at.error
    assert f"Answered {len(QUESTIONS)} of {len(QUESTIONS)}; {len(QUESTIONS)} right." in texts(at)
    assert len(at.expander) >= len(QUESTIONS)  # each shows the code that computed its numbers


def test_a_failing_demonstration_is_a_message(monkeypatch):
    def broken():
        raise ValueError("no frames left")

    st.cache_data.clear()
    monkeypatch.setitem(QUESTIONS, "belady", broken)
    at = open_app(PAGE)
    at.radio(key="qz_q8").set_value(OPTIONS["belady"][0]).run()
    assert not at.exception and "no frames left" in at.error[0].value
    st.cache_data.clear()


def test_chinese_render():
    at = open_app(PAGE, lang="zh")
    at.radio(key="qz_q7").set_value("llama2_more").run()
    assert at.title[0].value == "测验：用运行结果澄清常见误区"
    assert at.success[0].value == "答对了。下面的数字可以证明。"
    values = {m.label: m.value for m in at.metric}
    assert values["Llama-2-7B 每 token 的 KV"] == "512 KiB" and values["倍数"] == "4 倍"


def test_every_quiz_text_exists_in_both_languages():
    from ui.i18n import all_keys, tr

    keys = set(all_keys())
    for question_id, fn in QUESTIONS.items():
        ev = fn()
        needed = {f"qz.q.{question_id}", f"qz.how.{question_id}", f"qz.explain.{question_id}"}
        needed |= {f"qz.opt.{question_id}.{o}" for o in OPTIONS[question_id]}
        needed |= {f"qz.fig.{f.label_key}" for f in ev.figures}
        needed |= {f"qz.unit.{f.unit}" for f in ev.figures if f.unit not in ("flops", "bytes")}
        assert needed <= keys, needed - keys
        assert all(tr(k, "zh") != tr(k, "en") for k in needed if not k.startswith("qz.unit."))  # translated
