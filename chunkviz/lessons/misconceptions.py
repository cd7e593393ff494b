"""Chapter 9: common claims about chunked prefill, each checked by a run (or the attention math) of this project.

Invariant: every verdict is derived from the figures beside it by the rule in its comment; nothing is asserted
without a number to show for it. The claims mix ones that hold and ones that do not, so "false" is not a pattern.
"""

from __future__ import annotations

from dataclasses import dataclass

from chunkviz.analysis.scenario import run_scenario
from chunkviz.lessons import batching, budgets, predictions
from chunkviz.lessons.attention_math import LECTURE_EXAMPLE, run_attention_demo
from chunkviz.lessons.chapters import DECODE_FIRST, LECTURE, LECTURE_BUDGET_TOKENS, find_bookmark


@dataclass(frozen=True, slots=True)
class Claim:
    claim_id: str
    holds: bool  # does the claim hold on this evidence?
    figures: tuple[tuple[str, float], ...]


def _claim(claim_id: str, holds: bool, **figures: float) -> Claim:
    return Claim(claim_id, holds, tuple(figures.items()))


def _decodes_in(trace, step_index: int) -> int:
    return sum(c.num_tokens for c in trace.steps[step_index].chunks if c.phase == "decode")


def check_claims() -> tuple[Claim, ...]:
    """Six claims, in the order chapter 9 shows them: some hold and some do not, each decided by its run."""
    # The questions of chapters 9 (misconceptions: chunked TTFT) and 8 (knobs: SGLang stalls).
    mis, knob = predictions.prediction(9), predictions.prediction(8)
    demo = run_attention_demo(**LECTURE_EXAMPLE)  # chapter 3's and /attention's example: one set of numbers
    trace = run_scenario(LECTURE.with_policy(DECODE_FIRST, LECTURE_BUDGET_TOKENS))
    first = find_bookmark(trace, "long_prefill")
    decodes = _decodes_in(trace, first.step_index)
    sweep = budgets.sweep_budgets()
    small, big = sweep[0], sweep[-1]
    modes = batching.by_mode(batching.compare_batching())
    static, cont = modes["static"], modes["continuous"]
    return (
        # Holds only if chunked TTFT p50 is below prefill-first's.
        _claim("lowers_ttft", mis.correct_option == "lower", mono_ms=mis.value("ttft_p50_ms_mono"),
               chunked_ms=mis.value("ttft_p50_ms_chunked")),
        # Holds only if chunked attention FLOPs exceed one pass's; the extra cost is re-read KV bytes.
        _claim("adds_flops", demo.total_attention_flops > demo.one_pass_attention_flops,
               chunked_flops=demo.total_attention_flops, one_pass_flops=demo.one_pass_attention_flops,
               kv_ratio=demo.total_kv_read_bytes / demo.one_pass_kv_read_bytes, max_diff=demo.max_abs_diff),
        # Holds only if the step of the document's first chunk ran decodes and they and the chunk fill the budget
        # together (the budget is the step's, not the request's).
        _claim("budget_per_step", decodes > 0 and first.num_tokens + decodes == LECTURE_BUDGET_TOKENS,
               chunk=first.num_tokens, budget=LECTURE_BUDGET_TOKENS, decodes=decodes),
        # Holds only if SGLang's default chunking leaves no step with stalled decodes.
        _claim("always_removes_stalls", knob.value("stall_steps") == 0, stall_steps=knob.value("stall_steps"),
               tbt_max_ms=knob.value("tbt_max_ms")),
        # Holds only if the largest budget gives the chats a longer TBT p99 and the documents a shorter TTFT p50
        # than the smallest one.
        _claim("budget_trades", big.chat_tbt_p99_s > small.chat_tbt_p99_s and big.doc_ttft_p50_s < small.doc_ttft_p50_s,
               small=small.budget_tokens, big=big.budget_tokens, small_ms=small.chat_tbt_p99_s * 1e3,
               big_ms=big.chat_tbt_p99_s * 1e3, small_doc_ms=small.doc_ttft_p50_s * 1e3,
               big_doc_ms=big.doc_ttft_p50_s * 1e3),
        # Holds only if continuous batching serves more output tokens per second than static batching.
        _claim("continuous_beats_static", cont.throughput_tokens_per_s > static.throughput_tokens_per_s,
               static_tps=static.throughput_tokens_per_s, continuous_tps=cont.throughput_tokens_per_s,
               static_ttft_ms=static.ttft_p50_s * 1e3, continuous_ttft_ms=cont.ttft_p50_s * 1e3),
    )
