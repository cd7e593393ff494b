"""Chapter 9: common claims about chunked prefill, each checked by a run (or the attention math) of this project.

Invariant: every verdict is derived from the figures beside it by the rule in its comment; nothing is asserted
without a number to show for it.
"""

from __future__ import annotations

from dataclasses import dataclass

from chunkviz.analysis.scenario import run_scenario
from chunkviz.lessons import batching, budgets, predictions
from chunkviz.lessons.attention_math import run_attention_demo
from chunkviz.lessons.chapters import DECODE_FIRST, LECTURE, LECTURE_BUDGET_TOKENS, find_bookmark


@dataclass(frozen=True, slots=True)
class Claim:
    claim_id: str
    holds: bool  # does the claim hold on this evidence?
    figures: tuple[tuple[str, float], ...]


def _claim(claim_id: str, holds: bool, **figures: float) -> Claim:
    return Claim(claim_id, holds, tuple(figures.items()))


def check_claims() -> tuple[Claim, ...]:
    """Six claims, in the order chapter 9 shows them."""
    # The questions of chapters 9 (misconceptions: chunked TTFT) and 8 (knobs: SGLang stalls).
    mis, knob = predictions.prediction(9), predictions.prediction(8)
    demo = run_attention_demo(num_tokens=64, head_dim=16, chunk_tokens=16)
    first = find_bookmark(run_scenario(LECTURE.with_policy(DECODE_FIRST, LECTURE_BUDGET_TOKENS)), "long_prefill")
    sweep = budgets.sweep_budgets()
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
        # Holds only if the document's first chunk gets the whole budget although decodes ran in that step.
        _claim("budget_per_request", first.num_tokens == LECTURE_BUDGET_TOKENS, chunk=first.num_tokens,
               budget=LECTURE_BUDGET_TOKENS, decodes=LECTURE_BUDGET_TOKENS - first.num_tokens),
        # Holds only if SGLang's default chunking leaves no step with stalled decodes.
        _claim("always_removes_stalls", knob.value("stall_steps") == 0, stall_steps=knob.value("stall_steps"),
               tbt_max_ms=knob.value("tbt_max_ms")),
        # Holds only if chat TBT p99 never rises with the budget.
        _claim("bigger_budget_better", sweep[-1].chat_tbt_p99_s <= sweep[0].chat_tbt_p99_s,
               small=sweep[0].budget_tokens, small_ms=sweep[0].chat_tbt_p99_s * 1e3, big=sweep[-1].budget_tokens,
               big_ms=sweep[-1].chat_tbt_p99_s * 1e3),
        # Holds only if static batching matches continuous batching's throughput.
        _claim("static_is_enough", static.throughput_tokens_per_s >= cont.throughput_tokens_per_s,
               static_tps=static.throughput_tokens_per_s, continuous_tps=cont.throughput_tokens_per_s,
               static_ttft_ms=static.ttft_p50_s * 1e3, continuous_ttft_ms=cont.ttft_p50_s * 1e3),
    )
