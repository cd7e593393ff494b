"""The public A100 measurements the dense cost model is fitted to, and the models they were taken on.

Invariant: every row of the shipped file `chunkviz/data/a100-dense-ops.csv` becomes one frozen PublicPoint whose
kernel times add up to its dense time, on a model listed in PROFILED_MODELS; the file is read once per process.

Source of the data: Microsoft vidur's operator profiles (`data/profiling/compute/a100/*/mlp.csv`, MIT License),
reduced as described in chunkviz/data/ATTRIBUTION.md. Shapes below are the ones vidur profiled (its `n_head`,
`n_kv_head`, `n_embd`, `n_expanded_embd`, `use_gated_mlp`, `vocab_size` columns); layer counts and context lengths
come from each model's Hugging Face config.json.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from chunkviz.config import ModelSpec

PUBLIC_POINTS_PATH = Path(__file__).resolve().parents[1] / "data" / "a100-dense-ops.csv"
# Kernel columns of the shipped file, in the order one decoder layer runs them (vidur's operator names).
KERNEL_COLUMNS: tuple[str, ...] = ("input_layernorm", "attn_pre_proj", "attn_rope", "attn_post_proj",
                                   "post_attention_layernorm", "mlp_up_proj", "mlp_act", "mlp_down_proj", "add")

_HF = "Hugging Face config.json of "


def _spec(model_id: str, hf_name: str, layers: int, hidden: int, heads: int, kv_heads: int, inter: int, vocab: int,
          max_len: int, gated: bool = True, norms: int = 2) -> ModelSpec:
    return ModelSpec(model_id, layers, hidden, heads, kv_heads, inter, vocab, 2, max_len, _HF + hf_name,
                     is_gated_mlp=gated, num_norms_per_layer=norms)


# Every model of the profile file. Qwen-72B's config says intermediate_size 49152, which its code halves per
# matrix (w1, w2 are 24576 wide), so the per-matrix width 24576 is what vidur profiled and what is used here.
# phi-2 runs attention and MLP in parallel off one LayerNorm (`PhiDecoderLayer`), and its MLP is fc1/gelu/fc2.
PROFILED_MODELS: tuple[ModelSpec, ...] = (
    _spec("llama-2-7b", "meta-llama/Llama-2-7b-hf", 32, 4096, 32, 32, 11008, 32000, 4096),
    _spec("llama-3-8b", "meta-llama/Meta-Llama-3-8B", 32, 4096, 32, 8, 14336, 128256, 8192),
    _spec("internlm-20b", "internlm/internlm-20b", 60, 5120, 40, 40, 13824, 103168, 4096),
    _spec("codellama-34b", "codellama/CodeLlama-34b-Instruct-hf", 48, 8192, 64, 8, 22016, 32000, 16384),
    _spec("llama-2-70b", "meta-llama/Llama-2-70b-hf", 80, 8192, 64, 8, 28672, 32000, 4096),
    _spec("llama-3-70b", "meta-llama/Meta-Llama-3-70B", 80, 8192, 64, 8, 28672, 128256, 8192),
    _spec("qwen-72b", "Qwen/Qwen-72B", 80, 8192, 64, 64, 24576, 152064, 32768),
    _spec("phi-2", "microsoft/phi-2", 32, 2560, 32, 32, 10240, 51200, 2048, gated=False, norms=1),
)
PROFILED_BY_ID: dict[str, ModelSpec] = {m.model_id: m for m in PROFILED_MODELS}
# The names the profile file uses, for the attribution and the Measure page.
HF_NAMES: dict[str, str] = {m.model_id: m.source.removeprefix(_HF) for m in PROFILED_MODELS}


@dataclass(frozen=True, slots=True)
class PublicPoint:
    """One measured step shape: `num_tokens` tokens through one layer's dense kernels on one of `tp` GPUs."""

    model_id: str
    tensor_parallel: int
    num_tokens: int
    kernel_ms: tuple[float, ...]  # one per KERNEL_COLUMNS entry (median over vidur's repeats)

    @property
    def dense_ms(self) -> float:
        return sum(self.kernel_ms)

    @property
    def model(self) -> ModelSpec:
        return PROFILED_BY_ID[self.model_id]


@lru_cache(maxsize=1)
def load_public_points(path: Path = PUBLIC_POINTS_PATH) -> tuple[PublicPoint, ...]:
    """Every row of the shipped measurement file (about 8,000 points)."""
    with path.open(newline="") as handle:
        return tuple(PublicPoint(row["model"], int(row["tensor_parallel"]), int(row["num_tokens"]),
                                 tuple(float(row[c]) for c in KERNEL_COLUMNS))
                     for row in csv.DictReader(handle))
