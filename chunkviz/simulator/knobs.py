"""The scheduler knobs of one run after the engine's defaults are applied (what the policies read).

Invariant: every field is a concrete number or flag; None never reaches a policy. Built by
chunkviz.simulator.policies.resolve.resolve_knobs, the one place where defaults and refusals are decided.
"""

from __future__ import annotations

from dataclasses import dataclass

from chunkviz.cost.step_pricing import EAGER, StepPricing


@dataclass(frozen=True, slots=True)
class Knobs:
    max_num_batched_tokens: int  # the step's token budget (TRT-LLM max_num_tokens, SGLang chunked_prefill_size)
    max_num_seqs: int  # most sequences running at once (TRT-LLM max_batch_size, SGLang max_running_requests)
    long_prefill_token_threshold: int  # 0 when off, and always 0 for a policy that does not chunk prompts
    chunks_prompts: bool  # the policy splits a prompt over several steps
    reserve_prompt: bool  # a prompt's (or recompute's) blocks are all taken when it is first scheduled
    max_model_len_tokens: int  # the model's max length (--max-model-len): what rules reserve for an unset max_tokens
    # Full blocks are kept under chained keys and reused across requests: the run's setting, or when it left it at
    # None, what the engine ships (PolicyEntry.prefix_caching_default).
    prefix_caching: bool = False
    step_pricing: StepPricing = EAGER
    # A prompt's blocks become reusable only once its whole context is computed (TensorRT-LLM storeContextBlocks),
    # not when they are scheduled (vLLM V1 cache_blocks at allocate_slots).
    store_context_blocks_at_end: bool = False  # how the engine runs a step on the host (CUDA graphs, overlap scheduling)
