"""A Llama-shaped decoder stack with seeded random weights and a KV cache, to time prefill chunks and decodes.

Invariant: prefilling a prompt chunk by chunk through the KV cache gives the outputs of one causal pass (up to
rounding), because a chunk attends causally within itself and fully to everything cached before it.
Shapes in comments: B batch, T new tokens, S keys (cached + new), H query heads, G KV heads, D head_dim.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor
from torch.nn import functional as F
from torch.nn.attention.bias import CausalBias, causal_lower_right

from chunkviz.config import ModelSpec

ROPE_THETA = 500_000.0  # Llama 3's rope_theta
RMS_EPS = 1e-5


@dataclass(slots=True)
class KvCache:
    """Per layer, K and V of shape [B, G, capacity, D]; which slots are valid is tracked by the caller."""

    keys: list[Tensor]
    values: list[Tensor]

    def rows(self, start: int, stop: int) -> "KvCache":
        """A view of sequences start..stop-1 (shares storage, so writes land in this cache)."""
        return KvCache([k[start:stop] for k in self.keys], [v[start:stop] for v in self.values])


def _rms_norm(x: Tensor, weight: Tensor) -> Tensor:
    # Normalise in float32 as Llama does, then return to the model's dtype.
    x32 = x.float()
    return (x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + RMS_EPS)).to(x.dtype) * weight


def _dense_lower_right(num_queries: int, num_keys: int, device: torch.device) -> Tensor:
    """[T, S] boolean mask: query i sees keys 0 .. S - T + i."""
    return torch.ones(num_queries, num_keys, dtype=torch.bool, device=device).tril(diagonal=num_keys - num_queries)


def _rotate(x: Tensor, cos: Tensor, sin: Tensor) -> Tensor:
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    return x * cos + torch.cat((-x2, x1), dim=-1) * sin


class DecoderStack:
    """RMSNorm, GQA attention (RoPE optional), SwiGLU MLP, and an lm_head applied to the last token(s) only."""

    def __init__(self, spec: ModelSpec, device: str, dtype: torch.dtype, seed: int = 0, use_rope: bool = True):
        self.spec, self.device, self.dtype, self.use_rope = spec, device, dtype, use_rope
        self.is_dense_lower_right = False  # set when the fused lower-right causal kernel is unavailable
        h, d = spec.hidden_size, spec.head_dim
        gen = torch.Generator(device=device).manual_seed(seed)

        def weight(n_in: int, n_out: int) -> Tensor:
            # 1/sqrt(fan_in) keeps activations of order one through every layer, so the check's tolerance holds.
            return torch.randn(n_in, n_out, generator=gen, device=device, dtype=dtype) / math.sqrt(n_in)

        self.embedding = torch.randn(spec.vocab_size, h, generator=gen, device=device, dtype=dtype)
        self.layers = [{
            "attn_norm": torch.ones(h, device=device, dtype=dtype), "wq": weight(h, spec.num_heads * d),
            "wk": weight(h, spec.num_kv_heads * d), "wv": weight(h, spec.num_kv_heads * d),
            "wo": weight(spec.num_heads * d, h), "mlp_norm": torch.ones(h, device=device, dtype=dtype),
            "w_gate": weight(h, spec.intermediate_size), "w_up": weight(h, spec.intermediate_size),
            "w_down": weight(spec.intermediate_size, h)} for _ in range(spec.num_layers)]
        self.final_norm = torch.ones(h, device=device, dtype=dtype)
        self.lm_head = weight(h, spec.vocab_size)
        self.inv_freq = 1.0 / ROPE_THETA ** (torch.arange(0, d, 2, device=device, dtype=torch.float32) / d)

    def new_cache(self, batch: int, capacity: int) -> KvCache:
        shape = (batch, self.spec.num_kv_heads, capacity, self.spec.head_dim)
        zeros = [torch.zeros(shape, device=self.device, dtype=self.dtype) for _ in range(2 * self.spec.num_layers)]
        return KvCache(zeros[0::2], zeros[1::2])

    def random_tokens(self, batch: int, num_tokens: int, seed: int = 1) -> Tensor:
        gen = torch.Generator(device=self.device).manual_seed(seed)
        return torch.randint(0, self.spec.vocab_size, (batch, num_tokens), generator=gen, device=self.device)

    def prefill(self, token_ids: Tensor, cache: KvCache, num_cached: int, all_tokens: bool = False) -> Tensor:
        """Run a chunk [1, T] after num_cached tokens already in `cache`; logits of the last token [1, V]
        (or the final hidden states of every token [1, T, h] with all_tokens, for the correctness check)."""
        t = token_ids.shape[1]
        positions = torch.arange(num_cached, num_cached + t, device=self.device).unsqueeze(0)  # [1, T]
        # Lower-right causal: query i sees keys 0..num_cached+i, which is plain causal when nothing is cached.
        mask = causal_lower_right(t, num_cached + t) if num_cached else None
        x = self._layers(token_ids, positions, cache, slice(num_cached, num_cached + t), num_cached + t, mask)
        return x if all_tokens else x[:, -1] @ self.lm_head

    def decode(self, token_ids: Tensor, cache: KvCache, contexts: list[int]) -> Tensor:
        """One new token per sequence [B] after contexts[b] cached tokens each; logits [B, V]."""
        b, num_keys = len(contexts), max(contexts) + 1
        positions = torch.tensor(contexts, device=self.device).unsqueeze(1)  # [B, 1]
        mask = None
        if min(contexts) != max(contexts):  # ragged batch: hide each row's slots past its own context
            mask = (torch.arange(num_keys, device=self.device) <= positions).view(b, 1, 1, num_keys)
        x = self._layers(token_ids.view(b, 1), positions, cache, positions, num_keys, mask)
        return x[:, -1] @ self.lm_head

    def _layers(self, token_ids: Tensor, positions: Tensor, cache: KvCache, write_at: slice | Tensor,
                num_keys: int, mask: object) -> Tensor:
        x = F.embedding(token_ids, self.embedding)  # [B, T, h]
        angles = positions.unsqueeze(-1).float() * self.inv_freq  # [B, T, D/2]
        cos = torch.cat((angles, angles), -1).cos().to(self.dtype).unsqueeze(1)  # [B, 1, T, D]
        sin = torch.cat((angles, angles), -1).sin().to(self.dtype).unsqueeze(1)
        for layer, keys, values in zip(self.layers, cache.keys, cache.values):
            x = x + self._attention(_rms_norm(x, layer["attn_norm"]), layer, keys, values, (cos, sin), write_at,
                                    num_keys, mask)
            y = _rms_norm(x, layer["mlp_norm"])
            x = x + (F.silu(y @ layer["w_gate"]) * (y @ layer["w_up"])) @ layer["w_down"]
        return _rms_norm(x, self.final_norm)

    def _attention(self, x: Tensor, layer: dict[str, Tensor], keys: Tensor, values: Tensor,
                   rope: tuple[Tensor, Tensor], write_at: slice | Tensor, num_keys: int, mask: object) -> Tensor:
        b, t, _ = x.shape
        s = self.spec
        q = (x @ layer["wq"]).view(b, t, s.num_heads, s.head_dim).transpose(1, 2)  # [B, H, T, D]
        k = (x @ layer["wk"]).view(b, t, s.num_kv_heads, s.head_dim).transpose(1, 2)  # [B, G, T, D]
        v = (x @ layer["wv"]).view(b, t, s.num_kv_heads, s.head_dim).transpose(1, 2)
        if self.use_rope:
            q, k = _rotate(q, *rope), _rotate(k, *rope)
        if isinstance(write_at, slice):
            keys[:, :, write_at], values[:, :, write_at] = k, v
        else:  # one token per row, each at its own position
            rows = torch.arange(b, device=self.device)
            keys[rows, :, write_at[:, 0]], values[rows, :, write_at[:, 0]] = k[:, :, 0], v[:, :, 0]
        out = self._sdpa(q, keys[:, :, :num_keys], values[:, :, :num_keys], mask)
        return out.transpose(1, 2).reshape(b, t, s.num_heads * s.head_dim) @ layer["wo"]

    def _sdpa(self, q: Tensor, k: Tensor, v: Tensor, mask: object) -> Tensor:
        if isinstance(mask, CausalBias) and self.is_dense_lower_right:
            mask = _dense_lower_right(q.shape[2], k.shape[2], q.device)
        try:
            return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=mask is None and q.shape[2] > 1,
                                                  enable_gqa=True)
        except RuntimeError:
            if not isinstance(mask, CausalBias):
                raise
            # Some torch/GPU pairs have no fused lower-right kernel with GQA: use a boolean mask from now on, so
            # the failed attempt is paid once, before timing starts (the correctness check runs first).
            self.is_dense_lower_right = True
            return self._sdpa(q, k, v, _dense_lower_right(q.shape[2], k.shape[2], q.device))
