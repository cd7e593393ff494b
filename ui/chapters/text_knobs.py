"""Chapter 8's knobs table in both languages: engine names and each knob's shipped default.

Invariant: the English default is the core's own string (chunkviz/lessons/knobs.py, which cites where each is
written); the Chinese one says the same, with values an engine reads (True, False, enum names) kept as code.
"""

from chunkviz.lessons.knobs import KNOBS, Knob

_ZH_DEFAULTS = {
    ("vllm", "enable_chunked_prefill"): "`True`（V1）",
    ("vllm", "max_num_batched_tokens"): "显存 ≥70 GiB 的非 A100 GPU 上，API 服务器为 8192，否则 2048",
    ("vllm", "max_num_seqs"): "显存 ≥70 GiB 的非 A100 GPU 上为 1024，否则 256",
    ("vllm", "long_prefill_token_threshold"): "0（关闭）",
    ("vllm", "scheduler_reserve_full_isl"): "v0.18.0 之后为 `True`（PR #37307）",
    ("vllm", "max_num_partial_prefills"): "1（V1 拒绝其他取值）",
    ("vllm", "enable_prefix_caching"): "`True`（V1）",
    ("sglang", "chunked_prefill_size"): "80–160 GB 的 GPU 上为 8192（35 GB 以下为 2048）",
    ("sglang", "enable_mixed_chunk"): "`False`",
    ("sglang", "disable_radix_cache"): "`False`（基数树缓存开启）",
    ("trtllm", "enable_chunked_prefill (chunked context)"): "LLM API 中为 `False`",
    ("trtllm", "capacity_scheduler_policy"): "`GUARANTEED_NO_EVICT`",
}


def default_key(knob: Knob) -> str:
    return f"chx.knob.dflt.{knob.engine}.{knob.name}"


TEXTS = {
    "chx.knob.engine.vllm": ("vLLM", "vLLM"),
    "chx.knob.engine.sglang": ("SGLang", "SGLang"),
    "chx.knob.engine.trtllm": ("TensorRT-LLM", "TensorRT-LLM"),
    **{default_key(k): (k.default, _ZH_DEFAULTS.get((k.engine, k.name), k.default)) for k in KNOBS},
}
