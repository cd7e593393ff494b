"""What is drawn says what is true: one colour per meaning, kinds coloured by kind, 1-based token ranges, stated
tie-breaks and ratios that match the figures they describe."""

from __future__ import annotations

from chunkviz.lessons.seed_demo import run_seed_demo
from chunkviz.simulator.trace import ScheduledChunk
from ui import palette
from ui.quiz.charts import kind_colour
from ui.i18n import pair_of


def test_each_meaning_has_its_own_colour_and_the_cursor_is_not_the_stall_red():
    colours = list(palette.MEANINGS.values())
    assert len(set(colours)) == len(colours)
    assert palette.CURSOR != palette.STALL


def test_quiz_bars_are_coloured_by_what_they_measure():
    assert kind_colour("step_decode_tokens") == palette.DECODE
    assert kind_colour("step_doc_tokens") == palette.PREFILL
    assert kind_colour("chat_gap_mono") == palette.STALL
    assert kind_colour("budget") not in (palette.DECODE, palette.PREFILL, palette.STALL)


def test_explained_chunks_use_one_based_inclusive_token_ranges():
    from types import SimpleNamespace

    from ui.kv.explain import explain_step

    record = SimpleNamespace(step=3, duration_s=0.01, events=(),
                             chunks=(ScheduledChunk(7, 0, 36, 96, "prefill"), ScheduledChunk(8, 0, 512, 0, "prefill")))
    lines = explain_step(record, 1024, "en")
    assert "tokens 97–132" in lines[1] and "tokens 1–512" in lines[2]


def test_the_article_ratio_in_the_text_matches_the_toy_figures():
    report = run_seed_demo()
    total = report.chunked.total_steps / report.monolithic.total_steps
    ttft = report.chunked.mean_ttft_toy / report.monolithic.mean_ttft_toy
    en, zh = pair_of("sd.lesson")
    assert f"{total:.2f}×" in en and f"{ttft:.2f}×" in en and "doubles" not in en
    assert f"{total:.2f} 倍" in zh and f"{ttft:.2f} 倍" in zh


def test_the_best_setting_states_its_tie_break():
    en, zh = pair_of("to.best")
    assert "Ties go to the higher throughput, then to the smaller budget" in en and "并列时" in zh
