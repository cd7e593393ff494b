"""Catalogue of models and GPUs, and loaders for a user's own Hugging Face config.json or GPU JSON.

Invariant: every figure here carries its source; user files become the same frozen specs or an InputError that
names the offending key.
"""

from __future__ import annotations

from typing import Any

from chunkviz.config import GpuSpec, ModelSpec
from chunkviz.errors import InputError
from chunkviz.inputs import field_float, parse_json_object, read_bounded

_HF = "Hugging Face config.json of "
MODELS: dict[str, ModelSpec] = {
    "llama-3-8b": ModelSpec("llama-3-8b", 32, 4096, 32, 8, 14336, 128256, 2, 8192, _HF + "meta-llama/Meta-Llama-3-8B"),
    "llama-2-7b": ModelSpec("llama-2-7b", 32, 4096, 32, 32, 11008, 32000, 2, 4096, _HF + "meta-llama/Llama-2-7b-hf"),
    # Mistral's 4096-token sliding window is not modelled: attention here always spans the whole context.
    "mistral-7b": ModelSpec("mistral-7b", 32, 4096, 32, 8, 14336, 32000, 2, 32768,
                            _HF + "mistralai/Mistral-7B-v0.1"),
    # max_position_embeddings is 32768 in the Instruct config (131072 only with YaRN scaling).
    "qwen2.5-7b": ModelSpec("qwen2.5-7b", 28, 3584, 28, 4, 18944, 152064, 2, 32768,
                            _HF + "Qwen/Qwen2.5-7B-Instruct"),
}

# Dense bf16 tensor-core peaks (no 2:4 sparsity), HBM bandwidth and memory from NVIDIA datasheets, as collected in
# shared/guides/costmodel.md §1.2; interconnect is one direction of NVLink (A100 600 GB/s, H100/H200 900 GB/s
# total) or PCIe Gen4 x16 for L40S (32 GB/s each way).
# Memory is the device's total as the driver reports it (nvidia-smi memory.total, torch.cuda.mem_get_info), which
# the engines size their pools from: an "80 GB" H100 SXM is 81,559 MiB (shared/guides/costmodel.md, "Quantities the
# engines ship"; SGLang's mem_fraction_static ≈ 0.835 follows from it), an A100 80GB 81,920 MiB, an H200 143,771 MiB,
# an L40S 46,068 MiB (the totals nvidia-smi prints for these parts) — binary units, not the datasheets' 80e9.
_MIB = 1024 ** 2
GPUS: dict[str, GpuSpec] = {
    "a100-80gb": GpuSpec("a100-80gb", 312e12, 2.039e12, 81_920 * _MIB, 300e9, "NVIDIA A100 datasheet (80GB SXM)"),
    "h100-sxm": GpuSpec("h100-sxm", 989e12, 3.35e12, 81_559 * _MIB, 450e9, "NVIDIA H100 datasheet (SXM5)"),
    "h200": GpuSpec("h200", 989e12, 4.8e12, 143_771 * _MIB, 450e9, "NVIDIA H200 datasheet (SXM)"),
    "l40s": GpuSpec("l40s", 362.05e12, 864e9, 46_068 * _MIB, 32e9, "NVIDIA L40S datasheet (dense FP16/BF16 tensor)"),
}

_DTYPE_BYTES = {"bfloat16": 2, "float16": 2, "float32": 4, "fp8": 1, "float8_e4m3fn": 1}
MAX_SPEC_FILE_BYTES = 1_000_000


def get_model(model_id: str) -> ModelSpec:
    if model_id not in MODELS:
        raise InputError(f"unknown model {model_id!r}; choose one of {', '.join(MODELS)} or bring a config.json")
    return MODELS[model_id]


def get_gpu(gpu_id: str) -> GpuSpec:
    if gpu_id not in GPUS:
        raise InputError(f"unknown GPU {gpu_id!r}; choose one of {', '.join(GPUS)} or bring a GPU JSON file")
    return GPUS[gpu_id]


def _parse_json_object(data: bytes | str, what: str) -> dict[str, Any]:
    # The input gate (chunkviz/inputs.py): size before parsing, bounded nesting, int digits, finite numbers.
    if isinstance(data, (bytes, bytearray)):
        data = read_bounded(data, MAX_SPEC_FILE_BYTES, what)
    elif len(data) > MAX_SPEC_FILE_BYTES:
        raise InputError(f"{what} is {len(data):,} characters; the limit is {MAX_SPEC_FILE_BYTES:,}")
    return parse_json_object(data, what)


def _int_key(obj: dict[str, Any], key: str, what: str, default: int | None = None) -> int:
    value = obj.get(key, default)
    if value is None:
        raise InputError(f"{what}: missing key {key!r}")
    if isinstance(value, bool) or not isinstance(value, int) or value < 1 or value > 10_000_000:
        raise InputError(f"{what}: {key!r} must be a positive integer, got {value!r}")
    return value


# MLP kind from the Hugging Face keys. phi (transformers `PhiMLP`: fc1, gelu, fc2) and GPT-style models are not
# gated, and phi/GPT-J run attention and MLP in parallel off one norm (`PhiDecoderLayer`); Gemma's gelu is GeGLU,
# gated like Llama's SwiGLU. Any other model is gated unless its `hidden_act` is a gelu.
_UNGATED_MODEL_TYPES = frozenset({"phi", "gpt2", "gpt_neox", "gptj", "gpt_bigcode", "opt", "bloom", "falcon",
                                  "starcoder2"})
_GATED_MODEL_TYPES = frozenset({"gemma", "gemma2", "gemma3", "gemma3_text"})
_ONE_NORM_MODEL_TYPES = frozenset({"phi", "gptj"})


def _mlp_kind(obj: dict[str, Any]) -> tuple[bool, int]:
    """(is_gated_mlp, num_norms_per_layer) of a Hugging Face config."""
    model_type = str(obj.get("model_type", "")).lower()
    act = str(obj.get("hidden_act", obj.get("activation_function", "silu"))).lower()
    gated = model_type in _GATED_MODEL_TYPES or (model_type not in _UNGATED_MODEL_TYPES and not act.startswith("gelu"))
    return gated, 1 if model_type in _ONE_NORM_MODEL_TYPES else 2


def model_from_hf_config(data: bytes | str, model_id: str = "custom") -> ModelSpec:
    """A ModelSpec from a Hugging Face config.json (Llama-style keys; MLP kind from model_type / hidden_act)."""
    what = "model config.json"
    obj = _parse_json_object(data, what)
    num_heads = _int_key(obj, "num_attention_heads", what)
    if obj.get("num_key_value_heads", 0) is None:  # phi-2 writes null for "same as num_attention_heads"
        obj = {**obj, "num_key_value_heads": num_heads}
    is_gated_mlp, num_norms = _mlp_kind(obj)
    dtype = obj.get("torch_dtype", obj.get("dtype", "bfloat16"))
    if not isinstance(dtype, str):  # checked first: a list or object is unhashable and would fail the lookup
        raise InputError(f"{what}: torch_dtype must be a string, one of {', '.join(_DTYPE_BYTES)}; got a JSON "
                         f"{_json_type(dtype)}")
    if dtype not in _DTYPE_BYTES:
        raise InputError(f"{what}: torch_dtype {dtype!r:.40} is not one of {', '.join(_DTYPE_BYTES)}")
    try:
        return ModelSpec(
            model_id=model_id,
            num_layers=_int_key(obj, "num_hidden_layers", what),
            hidden_size=_int_key(obj, "hidden_size", what),
            num_heads=num_heads,
            num_kv_heads=_int_key(obj, "num_key_value_heads", what, default=num_heads),
            intermediate_size=_int_key(obj, "intermediate_size", what),
            vocab_size=_int_key(obj, "vocab_size", what),
            bytes_per_param=_DTYPE_BYTES[dtype],
            max_model_len_tokens=_int_key(obj, "max_position_embeddings", what, default=8192),
            source="user config.json",
            is_gated_mlp=is_gated_mlp,
            num_norms_per_layer=num_norms,
        )
    except InputError:
        raise  # _int_key's message already names the file; prefixing it again would say it twice
    except ValueError as exc:  # ModelSpec's own checks, which know nothing of the file
        raise InputError(f"{what}: {exc}") from None


def _json_type(value: object) -> str:
    return {list: "array", dict: "object", bool: "boolean", int: "number", float: "number", str: "string",
            type(None): "null"}.get(type(value), "value")


# Plausible ranges for a user's GPU JSON, wide around the catalogue above (an L40S's 0.864 TB/s to an H200's
# 141 GB): a figure outside them is a typo or a unit slip, and subnormal figures would overflow the roofline.
GPU_FIELD_RANGES = {"peak_tflops": (0.01, 100_000.0), "hbm_tb_per_s": (0.001, 1_000.0),
                    "memory_gb": (0.1, 100_000.0), "interconnect_gb_per_s": (0.001, 100_000.0)}


def gpu_from_json(data: bytes | str, gpu_id: str = "custom") -> GpuSpec:
    """A GpuSpec from a small JSON file: peak_tflops, hbm_tb_per_s, memory_gb, interconnect_gb_per_s (optional)."""
    what = "GPU JSON"
    obj = _parse_json_object(data, what)
    name = obj.get("name", gpu_id)
    if not isinstance(name, str):
        raise InputError(f"{what}: 'name' must be a string, got a JSON {_json_type(name)}")
    if not name.strip():
        raise InputError(f"{what}: 'name' must be a non-empty string (the GPU's name, e.g. \"H100\"), got "
                         f"{'an empty string' if not name else 'only whitespace'}")
    figures = {key: field_float(obj, key, what, *GPU_FIELD_RANGES[key], default=32.0 if key.startswith("inter")
                                else None) for key in GPU_FIELD_RANGES}
    return GpuSpec(
        gpu_id=name[:40],
        peak_flops_per_s=figures["peak_tflops"] * 1e12,
        hbm_bytes_per_s=figures["hbm_tb_per_s"] * 1e12,
        memory_bytes=figures["memory_gb"] * 1e9,
        interconnect_bytes_per_s=figures["interconnect_gb_per_s"] * 1e9,
        source="user GPU JSON",
    )
