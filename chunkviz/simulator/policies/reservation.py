"""What an admission rule that reserves for the future believes a request may still write: its engine's reading of
the client's max_tokens (Request.client_max_tokens; None = unset), never the true output length.

Invariant: with max_tokens "output" (the default) every function here returns what the rules read before the
client's max_tokens existed (prompt + output_tokens), so default runs are unchanged; vLLM reads none of this.
"""

from __future__ import annotations

from chunkviz.request import Request
from chunkviz.simulator.sched_common import SchedContext

# SGLang tp_worker: max_req_len = min(context_len - 1, max_total_num_tokens - 1).
SGLANG_MAX_REQ_LEN_MARGIN = 1


def context_limit_tokens(ctx: SchedContext) -> int:
    """max_model_len, or the whole KV cache where that is smaller: an engine given a cache below one context refuses
    to start (vLLM raise_if_cache_size_invalid) or shrinks the context to it (SGLang max_req_len below); here the
    reservation is capped so that such a run serves requests one at a time instead of never starting one."""
    return min(ctx.knobs.max_model_len_tokens, ctx.kv.num_total_blocks * ctx.kv.block_size)


def trtllm_total_tokens(request: Request, max_model_len_tokens: int) -> int:
    """TensorRT-LLM executor/base_worker.py `_deduce_max_tokens`: prompt + max_tokens, and an unset max_tokens
    becomes max_seq_len - prompt, so the request is reserved to max_seq_len (pass context_limit_tokens)."""
    max_tokens = request.client_max_tokens
    return request.prompt_tokens + max_tokens if max_tokens is not None else max_model_len_tokens


def sglang_max_new_tokens(request: Request, max_model_len_tokens: int) -> int:
    """SGLang managers/scheduler.py `init_req_max_new_tokens` (handle_generate_request): max_new_tokens, or when
    unset (1 << 30) capped to max_req_len - prompt - 1, max_req_len = min(context_len - 1, max_total_num_tokens - 1)
    (tp_worker); PrefillAdder then clips it to CLIP_MAX_NEW_TOKENS. Pass context_limit_tokens as the length."""
    max_tokens = request.client_max_tokens
    if max_tokens is not None:
        return max_tokens
    max_req_len = max_model_len_tokens - SGLANG_MAX_REQ_LEN_MARGIN
    return max(1, max_req_len - request.prompt_tokens - 1)
