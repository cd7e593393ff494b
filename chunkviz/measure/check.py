"""Correctness check before timing: chunked prefill and a ragged decode through the KV cache vs one causal pass.

Invariant: the returned difference covers every compared token: all prompt positions of a chunked prefill, and the
logits of a two-sequence decode whose contexts differ (so the per-row mask and cache writes are exercised).
"""

from __future__ import annotations

import torch

from chunkviz.measure.model import DecoderStack

# Outputs are final-normed hidden states and logits of order one; float32 agrees to about 1e-6, while bf16/fp16
# reorder sums in half precision across every layer, so they get a looser bound.
TOLERANCE = {torch.float32: 1e-3, torch.bfloat16: 0.25, torch.float16: 0.1}
CHUNKS = (20, 17, 11)  # uneven on purpose: chunk boundaries fall at odd positions


def check_chunked_prefill(stack: DecoderStack, seed: int = 7) -> float:
    """Max absolute difference between cached (chunked) and one-pass outputs."""
    n, m = sum(CHUNKS), sum(CHUNKS) // 3  # the two sequences' prompt lengths
    ids = stack.random_tokens(2, n + 1, seed)
    full = stack.prefill(ids[:1], stack.new_cache(1, n + 1), 0, all_tokens=True)  # [1, n+1, h]
    cache, pieces, start = stack.new_cache(1, n), [], 0
    for size in CHUNKS:
        pieces.append(stack.prefill(ids[:1, start:start + size], cache, start, all_tokens=True))
        start += size
    diff = (torch.cat(pieces, dim=1).float() - full[:, :n].float()).abs().max().item()
    batch = stack.new_cache(2, n + 1)
    stack.prefill(ids[0:1, :n], batch.rows(0, 1), 0)
    stack.prefill(ids[1:2, :m], batch.rows(1, 2), 0)
    logits = stack.decode(torch.stack((ids[0, n], ids[1, m])), batch, [n, m]).float()
    ref_long = (full[:, n] @ stack.lm_head).float()[0]
    ref_short = stack.prefill(ids[1:2, :m + 1], stack.new_cache(1, m + 1), 0).float()[0]
    diff = max(diff, (logits[0] - ref_long).abs().max().item(), (logits[1] - ref_short).abs().max().item())
    return diff
