"""Start-up refusals: configurations an engine will not start with, each with the engine's reason; a policy's
registry entry lists the ones its engine makes (PolicyEntry.refusals), and resolve_knobs runs them in that order.

Invariant: a refusal is a pure function of the config and the resolved (max_num_batched_tokens, max_num_seqs); it
returns None when the engine starts, else a one-line reason naming the setting, the limit and what to change.
"""

from __future__ import annotations

from typing import Callable

from chunkviz.config import SimConfig

Refusal = Callable[[SimConfig, int, int], str | None]  # (config, budget tokens, max_num_seqs) -> reason or None


def vllm_budget_below_max_model_len(config: SimConfig, tokens: int, seqs: int) -> str | None:
    """vLLM SchedulerConfig._verify_args without chunked prefill: max_num_batched_tokens < max_model_len is refused,
    since a sequence longer than the budget could never be scheduled."""
    max_len = config.model.max_model_len_tokens
    if tokens >= max_len:
        return None
    return (f"max_num_batched_tokens ({tokens}) is smaller than max_model_len ({max_len}): vLLM refuses this without "
            f"chunked prefill, since it would reject longer sequences; raise max_num_batched_tokens or use a chunking "
            f"policy")


def vllm_budget_below_max_num_seqs(config: SimConfig, tokens: int, seqs: int) -> str | None:
    """vLLM SchedulerConfig._verify_args: max_num_batched_tokens must be >= max_num_seqs (one token per sequence)."""
    if tokens >= seqs:
        return None
    return (f"max_num_batched_tokens ({tokens}) must be greater than or equal to max_num_seqs ({seqs}) "
            f"(vLLM refuses it)")


# The checks of vLLM's SchedulerConfig._verify_args, as the vLLM policies' entries list them.
VLLM_CHUNKED: tuple[Refusal, ...] = (vllm_budget_below_max_num_seqs,)
VLLM_NO_CHUNK: tuple[Refusal, ...] = (vllm_budget_below_max_model_len, vllm_budget_below_max_num_seqs)
