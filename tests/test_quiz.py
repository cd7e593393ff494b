"""Quiz evidence: every verdict is re-derived here from the figures alone, and the figures match hand arithmetic."""

from __future__ import annotations

import pickle
import subprocess
import sys

import pytest

from chunkviz.lessons.quiz import OPTIONS, QUESTIONS, QuizEvidence, doc_among_chats


@pytest.fixture(scope="module")
def evidence() -> dict[str, QuizEvidence]:
    return {qid: fn() for qid, fn in QUESTIONS.items()}


def test_every_question_is_well_formed(evidence: dict[str, QuizEvidence]) -> None:
    assert 6 <= len(evidence) <= 10
    for qid, ev in evidence.items():
        assert ev.question_id == qid and ev.option_ids == OPTIONS[qid]
        assert ev.correct_option in ev.option_ids and len(set(ev.option_ids)) == len(ev.option_ids) >= 3
        labels = [f.label_key for f in ev.figures]
        assert len(labels) == len(set(labels)) >= 2
        assert all(isinstance(f.value, (int, float)) and f.value >= 0 for f in ev.figures)
        assert pickle.loads(pickle.dumps(ev)) == ev  # st.cache_data copies it this way
    # The right answer is not always in the same place.
    assert len({ev.option_ids.index(ev.correct_option) for ev in evidence.values()}) >= 2


def test_attention_flops_are_equal_and_bytes_grow(evidence: dict[str, QuizEvidence]) -> None:
    ev = evidence["attention_flops"]
    assert ev.value("max_abs_diff") < 1e-12  # exact up to float64 rounding
    # 512 tokens, d = 64: 4·d·n(n+1)/2 = 4·64·131328 = 33,619,968 FLOPs, chunked or not.
    assert ev.value("toy_flops_one_pass") == ev.value("toy_flops_chunked") == 33_619_968
    assert ev.value("real_attn_flops_chunked") == ev.value("real_attn_flops_whole")
    assert ev.value("real_bytes_chunked") > 10 * ev.value("real_bytes_whole")  # 16 weight reads instead of 1
    assert ev.correct_option == "same_flops_more_bytes"


def test_long_request_ttft_gets_later(evidence: dict[str, QuizEvidence]) -> None:
    ev = evidence["long_request_ttft"]
    assert ev.value("doc_ttft_chunked") > ev.value("doc_ttft_mono")
    # 8000 tokens, 512-token budget shared with 32 decodes: ceil(8000 / 480) = 17 steps.
    assert ev.value("doc_prefill_steps_chunked") == 17
    # What chunking buys instead: the chats' worst gap shrinks.
    assert ev.value("chat_gap_chunked") < ev.value("chat_gap_mono") / 5
    assert ev.correct_option == "higher"


def test_budget_counts_decodes(evidence: dict[str, QuizEvidence]) -> None:
    ev = evidence["budget_is_per_step"]
    budget, decodes, doc = (ev.value(k) for k in ("budget", "step_decode_tokens", "step_doc_tokens"))
    assert (budget, decodes, doc) == (512, 32, 480)  # 32 chats decode one token each; the prompt gets the rest
    assert ev.value("step_total_tokens") == decodes + doc <= budget
    assert ev.correct_option == "per_step_total"


def test_sglang_default_still_stalls(evidence: dict[str, QuizEvidence]) -> None:
    ev = evidence["sglang_itl"]
    mono, vllm, sglang = (ev.value(f"chat_gap_{n}") for n in ("mono", "vllm", "sglang"))
    assert vllm < mono / 2 <= sglang
    assert ev.value("stall_steps_vllm") == 0 < ev.value("stall_steps_sglang")
    assert ev.correct_option == "depends_on_mixing"


def test_bigger_budget_raises_tbt_p99(evidence: dict[str, QuizEvidence]) -> None:
    ev = evidence["budget_tbt_p99"]
    assert ev.value("tbt_p99_8192") > 1.1 * ev.value("tbt_p99_512")
    assert ev.value("ttft_p50_8192") < ev.value("ttft_p50_512")  # the price paid at 512
    assert ev.correct_option == "rises"


def test_tail_first_keeps_the_shared_head(evidence: dict[str, QuizEvidence]) -> None:
    ev = evidence["tail_first_free"]
    # 6 blocks, a 16-token document in blocks 0..3 freed, 4 blocks taken: the 2 unused blocks plus 2 of the document's.
    assert ev.value("evicted_tail_first") == ev.value("evicted_head_first") == 2
    # Tail-first loses positions 3-4, so the first 2 blocks (8 tokens) still hit; head-first loses block 1 and the
    # chained keys break there, so nothing hits although 2 of its blocks are still cached.
    assert (ev.value("hit_tokens_tail_first"), ev.value("hit_tokens_head_first")) == (8, 0)
    assert ev.correct_option == "keep_prefix_head"


def test_kv_per_token_follows_kv_heads(evidence: dict[str, QuizEvidence]) -> None:
    ev = evidence["kv_per_token"]
    # 2 (K, V) · 32 layers · heads · 128 dims · 2 bytes: 32 heads → 512 KiB, 8 heads → 128 KiB.
    assert (ev.value("kv_llama2"), ev.value("kv_llama3")) == (512, 128)
    assert ev.value("kv_ratio") == ev.value("kv_heads_llama2") / ev.value("kv_heads_llama3") == 4
    assert ev.correct_option == "llama2_more"


def test_belady_anomaly(evidence: dict[str, QuizEvidence]) -> None:
    ev = evidence["belady"]
    assert (ev.value("faults_fifo_3"), ev.value("faults_fifo_4")) == (9, 10)
    assert ev.value("faults_lru_4") <= ev.value("faults_lru_3")  # LRU is a stack algorithm: no anomaly
    assert ev.correct_option == "fifo_anomaly"


def test_workload_of_the_engine_questions() -> None:
    requests = doc_among_chats()
    assert [r.request_id for r in requests] == list(range(len(requests)))
    assert requests[-1].prompt_tokens == 8000 and all(r.prompt_tokens == 200 for r in requests[:-1])


def test_evidence_is_deterministic() -> None:
    assert QUESTIONS["belady"]() == QUESTIONS["belady"]()
    with pytest.raises(AttributeError):
        QUESTIONS["belady"]().correct_option = "x"  # type: ignore[misc]


def test_imports_no_ui() -> None:
    code = "import sys, chunkviz.lessons.quiz; print('streamlit' in sys.modules, 'plotly' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["False", "False"]
