"""The policy registry: one entry per policy, carrying its schedule function and its traits.

Invariant: everything the rest of the code asks about a policy (its name, whether it chunks prompts, whether it
reserves a prompt's blocks at admission, whom it preempts, its defaults, its label in English and Chinese) is read
from its entry here, so a new policy is one function plus one entry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from chunkviz.config import SchedulerConfig
from chunkviz.simulator.policies import defaults as d
from chunkviz.simulator.policies.sarathi import schedule_sarathi
from chunkviz.simulator.policies.sglang import fewest_outputs_victim, schedule_sglang
from chunkviz.simulator.policies.static import schedule_static
from chunkviz.simulator.policies.trtllm import schedule_trtllm
from chunkviz.simulator.policies.vllm import schedule_chunked, schedule_monolithic, schedule_vllm_nochunk
from chunkviz.simulator.sched_common import Plan, SchedContext, VictimRule, newest_victim

Trait = bool | Callable[[SchedulerConfig], bool]  # a constant, or decided by the policy's own switch


@dataclass(frozen=True, slots=True)
class PolicyEntry:
    name: str
    schedule: Callable[[SchedContext], Plan]
    chunks_prompts: Trait
    reserves_prompt: Trait  # all of a prompt's blocks are taken when it is first scheduled
    victim: VictimRule  # whom the policy preempts (recompute) when blocks run out
    defaults: Callable[[d.DefaultsQuery], tuple[int, int]]  # (max_num_batched_tokens, max_num_seqs) when None
    label_en: str
    label_zh: str
    follows: str  # the engine function it follows, for the README and the docs
    # vLLM's long_prefill_token_threshold exists in this engine (TRT-LLM has no such knob: its chunks are whole KV
    # blocks, so a cap below a block would starve a prompt forever).
    takes_prefill_threshold: bool = True

    def chunks(self, scheduler: SchedulerConfig) -> bool:
        return self.chunks_prompts(scheduler) if callable(self.chunks_prompts) else self.chunks_prompts

    def reserves(self, scheduler: SchedulerConfig) -> bool:
        return self.reserves_prompt(scheduler) if callable(self.reserves_prompt) else self.reserves_prompt


_ENTRIES = (
    PolicyEntry("monolithic", schedule_monolithic, False, False, newest_victim, d.vllm_v0_defaults,
                "prefill-first (vLLM V0)", "预填充优先（vLLM V0）",
                "vllm/core/scheduler.py Scheduler._schedule_default"),
    PolicyEntry("vllm-nochunk", schedule_vllm_nochunk, False, False, newest_victim, d.vllm_v1_defaults,
                "vLLM V1, chunked prefill off", "vLLM V1（关闭分块预填充）",
                "vllm/v1/core/sched/scheduler.py Scheduler.schedule (enable_chunked_prefill=False)"),
    PolicyEntry("chunked", schedule_chunked, True, False, newest_victim, d.vllm_v1_defaults,
                "chunked prefill (vLLM V1)", "分块预填充（vLLM V1）",
                "vllm/v1/core/sched/scheduler.py Scheduler.schedule"),
    PolicyEntry("sarathi", schedule_sarathi, True, True, newest_victim, d.vllm_v1_defaults,
                "Sarathi-Serve (stall-free batching)", "Sarathi-Serve（无停顿批处理）",
                "sarathi-serve sarathi/core/scheduler/sarathi_scheduler.py SarathiScheduler._schedule"),
    PolicyEntry("sglang", schedule_sglang, True, True, fewest_outputs_victim, d.sglang_defaults,
                "SGLang (prefill first)", "SGLang（预填充优先）",
                "sglang/srt/managers/scheduler.py get_next_batch_to_run, schedule_policy.py PrefillAdder"),
    PolicyEntry("trtllm", schedule_trtllm, lambda s: s.trtllm_chunked_context, False, newest_victim,
                d.trtllm_defaults, "TensorRT-LLM (in-flight batching)", "TensorRT-LLM（动态批处理）",
                "tensorrt_llm/batch_manager capacityScheduler.cpp, microBatchScheduler.cpp",
                takes_prefill_threshold=False),
    PolicyEntry("static", schedule_static, False, False, newest_victim, d.vllm_v0_defaults,
                "static batching", "静态批处理", "Orca (OSDI '22) §2: batch-level scheduling"),
)

REGISTRY: dict[str, PolicyEntry] = {entry.name: entry for entry in _ENTRIES}
POLICY_NAMES: tuple[str, ...] = tuple(REGISTRY)


def policy_entry(name: str) -> PolicyEntry:
    entry = REGISTRY.get(name)
    if entry is None:
        raise ValueError(f"policy must be one of {', '.join(POLICY_NAMES)}, got {name!r}")
    return entry
