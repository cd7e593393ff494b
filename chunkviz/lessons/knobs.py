"""The engines' knobs: each setting of vLLM, SGLang and TensorRT-LLM, its default, where that default is written,
and the simulator setting it maps to (or that it is not modelled); plus runs that show a knob's effect.

Invariant: every knob either names a SimConfig field path that exists (and two values to try on it) or says it is
not modelled, with no values; every default cites a file or doc. Defaults were checked against the sources in
shared/guides/costmodel.md §0 and §2 (vLLM V1, SGLang server_args.py, TensorRT-LLM docs and TorchLlmArgs).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from chunkviz.analysis.metrics import summarize
from chunkviz.analysis.scenario import DEFAULT_SCENARIO, Scenario, run_scenario
from chunkviz.lessons.chapters import (DECODE_FIRST, LECTURE_BUDGET_TOKENS, PRESETS, SGLANG_DEFAULT, TRTLLM,
                                       VLLM_NOCHUNK)
from chunkviz.simulator.policies.registry import policy_entry

ENGINES = ("vllm", "sglang", "trtllm")
# Llama-3-8B on one H100 (81,559 MiB): 0.1983 leaves 428 KV blocks of 16 tokens (6,848 tokens) beside the weights,
# just enough for the document, so chats must be preempted (or held back) while it runs; found by running the lecture.
TIGHT_MEMORY_UTILIZATION = 0.1983
# TensorRT-LLM sizes its pool by its own knob (policies/memory.py): this fraction of what is free after the weights and
# the activations of the lecture's max_num_tokens of 512 is 223 blocks of 32 tokens (0.0135 · 69,422,546,944 bytes
# / 4 MiB): the document's 213 blocks, taken whole at its first context chunk (kvCacheManager.cpp
# getNeededBlocksOneStep), beside the chats, so MAX_UTILIZATION runs out of blocks while GUARANTEED_NO_EVICT waits;
# found by running the lecture (tests/test_lessons_chapters.py test_knob_runs_show_their_effect).
TIGHT_FREE_GPU_MEMORY_FRACTION = 0.0135
_TIGHT_KNOB = {"trtllm": ("free_gpu_memory_fraction", TIGHT_FREE_GPU_MEMORY_FRACTION),
               "vllm": ("gpu_memory_utilization", TIGHT_MEMORY_UTILIZATION)}
_KNOB_PRESETS = {**PRESETS, "tight-memory": PRESETS["lecture"]}  # the engine's memory knob is set by knob_scenario
NOT_MODELLED = ""
_VLLM_ARGS = "vllm/engine/arg_utils.py EngineArgs.get_batch_defaults"
_VLLM_SCHED = "vllm/config/scheduler.py SchedulerConfig"
_SGL_ARGS = "sglang python/sglang/srt/server_args.py ServerArgs"
_TRT_ARGS = "TensorRT-LLM docs llm-api/reference/TorchLlmArgs.html"
_TRT_SCHED = "TensorRT-LLM docs features/paged-attention-ifb-scheduler.md"


@dataclass(frozen=True, slots=True)
class Knob:
    engine: str  # one of ENGINES
    name: str  # as the engine spells it
    default: str  # as the engine ships it
    source: str  # file + class/function, or doc page, where the default is written
    setting: str  # SimConfig/Scenario field path it maps to ("scheduler.max_num_batched_tokens"), or NOT_MODELLED
    try_values: tuple[object, ...] = ()  # two values whose runs show the effect (first = closest to the default)
    preset: str = "lecture"  # chapters.PRESETS key of the run that shows the effect


KNOBS: tuple[Knob, ...] = (
    Knob("vllm", "enable_chunked_prefill", "True (V1)", "vllm docs/configuration/optimization.md",
         "scheduler.policy", (DECODE_FIRST, VLLM_NOCHUNK)),
    Knob("vllm", "max_num_batched_tokens", "8192 API server on ≥70 GiB non-A100 GPUs, else 2048", _VLLM_ARGS,
         "scheduler.max_num_batched_tokens", (8192, LECTURE_BUDGET_TOKENS)),
    Knob("vllm", "max_num_seqs", "1024 on ≥70 GiB non-A100 GPUs, else 256", _VLLM_ARGS,
         "scheduler.max_num_seqs", (256, 2)),
    Knob("vllm", "long_prefill_token_threshold", "0 (off)", _VLLM_SCHED,
         "scheduler.long_prefill_token_threshold", (0, 128)),
    # PR #37307 (March 2026): a waiting request starts only if its whole prompt's KV fits (policies/vllm.py).
    Knob("vllm", "scheduler_reserve_full_isl", "True after v0.18.0 (PR #37307)", _VLLM_SCHED,
         "scheduler.scheduler_reserve_full_isl", (True, False), "tight-memory"),
    Knob("vllm", "max_num_partial_prefills", "1 (V1 rejects other values)", _VLLM_SCHED, NOT_MODELLED),
    Knob("vllm", "enable_prefix_caching", "True (V1)", "vllm docs/design/prefix_caching.md; vllm/config/cache.py",
         "cache.enable_prefix_caching", (True, False), "shared-prefix"),
    Knob("vllm", "gpu_memory_utilization", "0.92", "vllm/config/cache.py CacheConfig",
         "cache.gpu_memory_utilization", (0.92, TIGHT_MEMORY_UTILIZATION)),
    Knob("sglang", "chunked_prefill_size", "8192 on 80–160 GB GPUs (2048 below 35 GB)",
         f"{_SGL_ARGS}._handle_gpu_memory_settings", "scheduler.max_num_batched_tokens", (8192, LECTURE_BUDGET_TOKENS)),
    Knob("sglang", "max_prefill_tokens", "16384", _SGL_ARGS, NOT_MODELLED),
    Knob("sglang", "schedule_conservativeness", "1.0", _SGL_ARGS, NOT_MODELLED),
    Knob("sglang", "enable_mixed_chunk", "False", _SGL_ARGS, "scheduler.sglang_enable_mixed_chunk", (False, True)),
    Knob("sglang", "disable_radix_cache", "False (radix cache on)", _SGL_ARGS, "cache.enable_prefix_caching",
         (True, False), "shared-prefix"),
    Knob("trtllm", "max_num_tokens", "8192", _TRT_ARGS, "scheduler.max_num_batched_tokens",
         (8192, LECTURE_BUDGET_TOKENS)),
    Knob("trtllm", "max_batch_size", "2048", _TRT_ARGS, "scheduler.max_num_seqs", (2048, 2)),
    Knob("trtllm", "enable_chunked_prefill (chunked context)", "False in the LLM API", _TRT_ARGS,
         "scheduler.trtllm_chunked_context", (False, True)),
    Knob("trtllm", "tokens_per_block", "32", "tensorrt_llm/llmapi/llm_args.py KvCacheConfig", "cache.block_size",
         (32, 16)),
    # GUARANTEED_NO_EVICT admits a request only if its whole KV (prompt + max output) fits beside the running ones;
    # MAX_UTILIZATION admits greedily and pauses the newest request when blocks run out (policies/trtllm.py).
    Knob("trtllm", "capacity_scheduler_policy", "GUARANTEED_NO_EVICT", _TRT_SCHED, "scheduler.trtllm_capacity_policy",
         ("guaranteed-no-evict", "max-utilization"), "tight-memory"),
)
ENGINE_POLICY = {"vllm": DECODE_FIRST, "sglang": SGLANG_DEFAULT, "trtllm": TRTLLM}


def knobs_of(engine: str) -> tuple[Knob, ...]:
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    return tuple(k for k in KNOBS if k.engine == engine)


def apply_setting(scenario: Scenario, setting: str, value: object) -> Scenario:
    """The scenario with one field set, e.g. ("cache.enable_prefix_caching", True); ValueError for unknown paths."""
    part, _, name = setting.partition(".")
    if part not in ("scheduler", "cache") or not hasattr(getattr(scenario, part), name):
        raise ValueError(f"unknown simulator setting {setting!r}")
    return replace(scenario, **{part: replace(getattr(scenario, part), **{name: value})})


def knob_scenario(knob: Knob, value: object) -> Scenario:
    """The knob's preset run by its engine's policy at the lecture budget, with the knob set to `value`."""
    if knob.setting == NOT_MODELLED:
        raise ValueError(f"{knob.engine} {knob.name} is not modelled, so it has no run")
    policy = str(value) if knob.setting == "scheduler.policy" else ENGINE_POLICY[knob.engine]
    scenario = _KNOB_PRESETS[knob.preset].with_policy(policy, LECTURE_BUDGET_TOKENS)
    if knob.preset == "tight-memory":  # each engine's own memory knob (another engine's is refused)
        name, value_ = _TIGHT_KNOB[knob.engine]
        scenario = apply_setting(scenario, f"cache.{name}", value_)
    if knob.engine == "trtllm":  # the lecture shows TRT-LLM with chunked context on, like the other two engines
        scenario = apply_setting(scenario, "scheduler.trtllm_chunked_context", True)
    if knob.setting != "scheduler.policy":
        scenario = apply_setting(scenario, knob.setting, value)
    if not policy_entry(policy).chunks(scenario.scheduler):
        # Turning chunking off brings back the engine's no-chunk budget (the model's max length): a 512-token
        # budget would reject the document instead of running it in one step.
        scenario = scenario.with_policy(policy, None)
    return scenario


@dataclass(frozen=True, slots=True)
class RunFigures:
    label: str
    ttft_p50_ms: float
    tbt_p99_ms: float
    tbt_max_ms: float
    throughput_tokens_per_s: float  # prompt and output tokens per second of makespan
    num_steps: int
    num_preemptions: int
    prefix_hit_rate: float


def figures(label: str, scenario: Scenario) -> RunFigures:
    m = summarize(run_scenario(scenario))
    def ms(v: float | None) -> float:
        return float("nan") if v is None else v * 1e3
    return RunFigures(label, ms(m.ttft_s.p50), ms(m.tbt_s.p99), ms(m.tbt_s.max), m.throughput_tokens_per_s,
                      m.num_steps, m.num_preemptions, m.prefix_hit_rate)


def knob_effect(knob: Knob) -> tuple[RunFigures, ...]:
    """One run per try value, in order."""
    return tuple(figures(str(v), knob_scenario(knob, v)) for v in knob.try_values)


# "When to turn chunking off" (the article's §6): prompts far below the budget, and an offline batch that only
# wants throughput. 32 chats of ~64 tokens at 32 req/s; 64 jobs of ~1,500 tokens arriving together.
SHORT_PROMPTS = replace(DEFAULT_SCENARIO, workload_preset="synthetic", workload=replace(
    DEFAULT_SCENARIO.workload, num_requests=32, qps=32.0, prompt_tokens=64, output_tokens=64))
OFFLINE_BATCH = replace(DEFAULT_SCENARIO, workload_preset="synthetic", workload=replace(
    DEFAULT_SCENARIO.workload, num_requests=64, qps=200.0, prompt_tokens=1500, output_tokens=64))
CHUNKING_OFF_CASES = {"short_prompts": SHORT_PROMPTS, "offline_batch": OFFLINE_BATCH}


def chunking_off_case(case: str) -> tuple[RunFigures, ...]:
    """The case's workload with chunking at 512 and 2048 tokens, and vLLM V1 without chunking (its no-chunk budget)."""
    scenario = CHUNKING_OFF_CASES[case]
    return (figures(f"{DECODE_FIRST}@512", scenario.with_policy(DECODE_FIRST, 512)),
            figures(f"{DECODE_FIRST}@2048", scenario.with_policy(DECODE_FIRST, 2048)),
            figures(VLLM_NOCHUNK, scenario.with_policy(VLLM_NOCHUNK, None)))
