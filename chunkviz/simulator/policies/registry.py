"""The policy registry: one entry per policy, carrying its schedule function and every trait the code asks about.

Invariant: everything the rest of the code asks about a policy (its name, whether it chunks prompts, whether it
reserves a prompt's blocks at admission, whom it preempts, its defaults (prefix caching included), what its engine
refuses at start-up, whether the fast path may replay it, which vLLM switch it models, how its engine runs a step
on the host (overlap scheduling, CUDA graphs), its label in English and Chinese) is read from its
entry here, so a new policy is one schedule function plus one entry, and no module outside this one compares a
policy's name (tests/test_policies.py checks it).
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass
from typing import Callable

from chunkviz.config import SchedulerConfig, SimConfig
from chunkviz.cost import host_time as hc
from chunkviz.cost.host_time import HostCosts
from chunkviz.cost.step_pricing import StepPricing
from chunkviz.request import Request
from chunkviz.simulator.policies import pricing as pr
from chunkviz.simulator.policies import defaults as d
from chunkviz.simulator.policies import memory as mem
from chunkviz.simulator.policies import refusals as r
from chunkviz.simulator.policies.orca import schedule_orca
from chunkviz.simulator.policies.sarathi import schedule_sarathi
from chunkviz.simulator.policies.sglang import fewest_outputs_victim, replay_decode_steps, schedule_sglang
from chunkviz.simulator.policies.static import schedule_static
from chunkviz.simulator.policies.trtllm import completion_reserve, schedule_trtllm
from chunkviz.simulator.policies.vllm import schedule_chunked, schedule_monolithic, schedule_vllm_nochunk
from chunkviz.simulator.sched_common import Plan, SchedContext, VictimRule, lowest_priority_victim, newest_victim

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
    follows: str  # the engine function it follows, for docs/engines.md and the app
    _: KW_ONLY
    # vLLM's long_prefill_token_threshold exists in this engine (TRT-LLM has no such knob: its chunks are whole KV
    # blocks, so a cap below a block would starve a prompt forever).
    takes_prefill_threshold: bool = True
    # What the engine refuses to start with (refusals.py), checked in this order once the knobs are resolved.
    refusals: tuple[r.Refusal, ...] = ()
    # The fast path (simulator/fast_forward.py) may replay this policy's steady decode stretches: with nothing
    # waiting and every running sequence decode-ready within the budget, its plan is exactly "one token to each
    # running sequence, in list order". Opt in only after checking that, and tests/test_fast_forward.py's equality
    # tests. SGLang qualifies with its fast_path_replay (new_token_ratio decays every decode step; with nothing
    # waiting and the next blocks there its step is _decode_step without a retraction). TensorRT-LLM: with nothing
    # waiting, schedule_trtllm is schedule_running alone (a decode is never cut to a block-sized chunk: its one token
    # is all that remains), and the stretch's slack means no allocation fails, so max-utilization never pauses
    # anyone.
    fast_path: bool = False
    # The fast path may also absorb the waiting arrivals when their prompts fit the budget left after the decodes,
    # the free seats and the free blocks, into one mixed step (decodes, then the prompts: fast_absorb.absorb replays
    # schedule_running then admit_waiting, as vLLM V1 and TensorRT-LLM schedule running requests, then waiting
    # ones); where the policy chunks prompts (Knobs.chunks_prompts) the last one may be cut to the tokens left and
    # prefilled over the next mixed steps, else every prompt is whole or the step is the exact loop's. Needs
    # fast_path. TensorRT-LLM's chunked context cuts prompts to whole blocks, which the absorption does not replay.
    fast_path_absorbs_arrivals: Trait = False
    # For an absorbing policy whose admission check sets blocks aside for every running request to its completion
    # (TensorRT-LLM's GUARANTEED_NO_EVICT, policies/trtllm.fits_to_completion): given the run's context, the blocks
    # a request sets aside from its start to its end, or None when the run's check sets none aside; fast_absorb
    # replays the check from the stretch's rows.
    fast_path_reserve: Callable[[SchedContext], Callable[[Request], int] | None] | None = None
    # For an absorbing policy that runs prefills first (SGLang's get_next_batch_to_run without mixed chunks): the
    # absorbed admissions form a prefill-only step of their own in which the decodes stall, admitted under its
    # PrefillAdder check (rem_total_tokens, read from the stretch's rows and the replayed new_token_ratio), the
    # policy's plan-time state (a shrink, the running count) updated as schedule_sglang does (fast_prefill.py).
    fast_path_prefill_first: bool = False
    # What a fast-forwarded stretch's decode steps do to the policy's own state (SchedContext.policy_state), given each
    # step's running count at planning time; called at the stretch's end and, under fast_path_prefill_first, before
    # each absorbed prefill batch reads the state, over the decode steps since the last call (None: the policy keeps
    # no state across steps).
    fast_path_replay: Callable[[SchedContext, list[int]], None] | None = None
    # The value of vLLM's --enable-chunked-prefill this policy models in vLLM V1 (None: not a vLLM V1 scheduler);
    # the CLI's --enable-chunked-prefill picks the policy by it.
    vllm_enable_chunked_prefill: bool | None = None
    # The engine has a priority scheduling policy (SchedulerConfig.scheduling_policy "priority"): the waiting queue
    # is served by (Request.priority, arrival), lower value first (vLLM --scheduling-policy priority; SGLang
    # --enable-priority-scheduling --schedule-low-priority-values-first). Others refuse it at start-up (resolve.py).
    takes_priority: bool = False
    # Whom it preempts under that policy; None keeps `victim` (SGLang's retract_decode does not sort by priority).
    priority_victim: VictimRule | None = None
    # Under that policy the engine serves HIGHER priority values first unless told otherwise: SGLang's
    # SchedulePolicy._sort_by_priority_and_fcfs sorts by (priority * priority_sign, wait_queue_entry_time) with
    # priority_sign = 1 if --schedule-low-priority-values-first else -1 (python/sglang/srt/managers/
    # schedule_policy.py; the flag defaults to False in server_args.py). vLLM has no such flag: lower first.
    priority_higher_first: bool = False
    # Under that policy a waiting request may preempt running ones of a priority lower by more than
    # --priority-scheduling-preemption-threshold (SGLang PrefillAdder.preempt_to_schedule, on by default with
    # --enable-priority-scheduling: scheduler.py enable_priority_preemption). vLLM's waiting requests never preempt.
    priority_preempts_to_schedule: bool = False
    # Tokens per KV block when the user gives none (CacheConfig.block_size None): vLLM CacheConfig.block_size 16;
    # TensorRT-LLM KvCacheConfig.tokens_per_block 32 (tensorrt_llm/llmapi/llm_args.py, commit fcd3f316).
    default_block_size_tokens: int = 16
    # Prefix caching when the run leaves CacheConfig.enable_prefix_caching at None: what the engine ships.
    # On: vLLM V1 (vllm/config/cache.py CacheConfig.enable_prefix_caching = True, main @002f10e; since V1 became the
    # default, vllm/engine/arg_utils.py EngineArgs._set_default_args_v1 "V1 enables prefix caching by default",
    # v0.8), SGLang (python/sglang/srt/server_args.py ServerArgs.disable_radix_cache = False), TensorRT-LLM
    # (tensorrt_llm/llmapi/llm_args.py KvCacheConfig.enable_block_reuse = True). Off: vLLM V0 (arg_utils.py
    # _set_default_args_v0 leaves it unset, and V0's CacheConfig treats unset as off; V0 also refused sha256
    # hashing), Sarathi-Serve (sarathi/core/block_space_manager/base_block_space_manager.py BlockAllocator: a plain
    # free list, no block hashes), Orca and static batching (the papers have no prefix cache).
    prefix_caching_default: bool = False
    # How the engine runs a step on the host (policies/pricing.py, cost/step_pricing.py): whether the next step's CPU
    # work overlaps this step's GPU work by default, and which steps it replays as CUDA graphs (None: all eager).
    overlap_scheduling: bool = False
    cuda_graphs: pr.GraphRule | None = None
    # Disaggregated serving as the engine ships it (simulator/kv_link.py): how its connector sends a prompt's KV by
    # default -- vLLM's NixlConnector pulls after the prefill (nixl_connector.py request_finished -> the decode
    # worker's reads), SGLang sends per prefill chunk (disaggregation/prefill.py send_kv_chunk), TensorRT-LLM's cache
    # transceiver after the context phase; the papers' engines (V0, Sarathi, Orca, static) are taken as vLLM's.
    kv_transfer_default: str = "after-prefill"
    # The client's first token comes from the decode side after its first step (vLLM: the proxy sends the prefill
    # with max_tokens=1 and streams the decode instance's output, whose first step recomputes the prompt's last
    # token and samples token 1 -- examples/online_serving/disaggregated_serving proxies); False: the decode side
    # returns the prefill's token once the KV is there (SGLang's decode server takes it from the transferred
    # metadata without a forward pass; TensorRT-LLM's context server returns it).
    pd_first_token_from_decode: bool = False
    # A prompt's full blocks join the prefix cache only when its context is done (TensorRT-LLM: the executor calls
    # KVCacheManager::storeContextBlocks for a request whose last context chunk ran, kvCacheManager.cpp), so a
    # request scheduled in the same step, or while a chunked context is still running, cannot reuse them yet; False:
    # keyed when scheduled (vLLM V1 KVCacheManager.allocate_slots -> cache_blocks).
    stores_context_blocks_at_end: bool = False
    # The engine's CPU seconds of scheduling and input preparation per step (cost/host_time.py, each with its source);
    # the research systems (Orca, Sarathi-Serve, static batching) keep vLLM V0's: Sarathi-Serve's prototype is a fork
    # of vLLM's V0 engine, and the papers publish no host timings (assumption).
    host_costs: HostCosts = hc.VLLM_V0
    # The engine's memory rule for its KV pool (policies/memory.py): vLLM V1 gpu_memory_utilization 0.92, V0 and the
    # research systems 0.90, SGLang mem_fraction_static, TensorRT-LLM free_gpu_memory_fraction.
    kv_pool: mem.PoolRule = mem.VLLM_V0_POOL

    def absorbs(self, scheduler: SchedulerConfig) -> bool:
        absorbs = self.fast_path_absorbs_arrivals
        return absorbs(scheduler) if callable(absorbs) else absorbs

    def __post_init__(self) -> None:
        if self.fast_path_absorbs_arrivals and not self.fast_path:
            raise ValueError(f"policy {self.name}: fast_path_absorbs_arrivals needs fast_path")
        if self.fast_path_replay is not None and (not self.fast_path or self.fast_path_absorbs_arrivals
                                                  and not self.fast_path_prefill_first):
            raise ValueError(f"policy {self.name}: fast_path_replay replays decode-only stretches (fast_path on, "
                             f"fast_path_absorbs_arrivals off, or on with fast_path_prefill_first)")
        if self.fast_path_prefill_first and not self.fast_path_absorbs_arrivals:
            raise ValueError(f"policy {self.name}: fast_path_prefill_first needs fast_path_absorbs_arrivals")

    def chunks(self, scheduler: SchedulerConfig) -> bool:
        return self.chunks_prompts(scheduler) if callable(self.chunks_prompts) else self.chunks_prompts

    def reserves(self, scheduler: SchedulerConfig) -> bool:
        return self.reserves_prompt(scheduler) if callable(self.reserves_prompt) else self.reserves_prompt

    def step_pricing(self, config: SimConfig, max_num_seqs: int,
                     max_num_batched_tokens: int | None = None) -> StepPricing:
        """How this engine prices a step, with the user's --enforce-eager / overlap / --cuda-graph-max-bs applied."""
        return pr.step_pricing(config, max_num_seqs, self.overlap_scheduling, self.cuda_graphs, self.label_en,
                               self.host_costs, max_num_batched_tokens)


_ENTRIES = (
    PolicyEntry("monolithic", schedule_monolithic, chunks_prompts=False, reserves_prompt=False, victim=newest_victim,
                defaults=d.vllm_v0_defaults, label_en="prefill-first (vLLM V0)",
                label_zh="预填充优先（vLLM V0）", follows="vllm/core/scheduler.py Scheduler._schedule_default",
                refusals=r.VLLM_NO_CHUNK, fast_path=True, cuda_graphs=pr.vllm_v0_graphs),
    PolicyEntry("vllm-nochunk", schedule_vllm_nochunk, chunks_prompts=False, reserves_prompt=False,
                victim=newest_victim, defaults=d.vllm_v1_defaults, label_en="vLLM V1, chunked prefill off",
                label_zh="vLLM V1（关闭分块预填充）",
                follows="vllm/v1/core/sched/scheduler.py Scheduler.schedule (enable_chunked_prefill=False)",
                refusals=r.VLLM_NO_CHUNK, fast_path=True, fast_path_absorbs_arrivals=True,
                vllm_enable_chunked_prefill=False, takes_priority=True, pd_first_token_from_decode=True,
                priority_victim=lowest_priority_victim, prefix_caching_default=True,
                overlap_scheduling=True, cuda_graphs=pr.vllm_v1_graphs, host_costs=hc.VLLM_V1,
                kv_pool=mem.VLLM_V1_POOL),
    PolicyEntry("chunked", schedule_chunked, chunks_prompts=True, reserves_prompt=False, victim=newest_victim,
                defaults=d.vllm_v1_defaults, label_en="chunked prefill (vLLM V1)", label_zh="分块预填充（vLLM V1）",
                follows="vllm/v1/core/sched/scheduler.py Scheduler.schedule",
                refusals=r.VLLM_CHUNKED, fast_path=True, fast_path_absorbs_arrivals=True,
                vllm_enable_chunked_prefill=True, takes_priority=True, priority_victim=lowest_priority_victim,
                prefix_caching_default=True, pd_first_token_from_decode=True,
                overlap_scheduling=True, cuda_graphs=pr.vllm_v1_graphs, host_costs=hc.VLLM_V1,
                kv_pool=mem.VLLM_V1_POOL),
    PolicyEntry("sarathi", schedule_sarathi, chunks_prompts=True, reserves_prompt=True, victim=newest_victim,
                defaults=d.sarathi_defaults, label_en="Sarathi-Serve (stall-free batching)",
                label_zh="Sarathi-Serve（无停顿批处理）",
                follows="sarathi-serve sarathi/core/scheduler/sarathi_scheduler.py SarathiScheduler._schedule",
                fast_path=True),
    PolicyEntry("sglang", schedule_sglang, chunks_prompts=True, reserves_prompt=True, victim=fewest_outputs_victim,
                defaults=d.sglang_defaults, label_en="SGLang (prefill first)", label_zh="SGLang（预填充优先）",
                follows="sglang/srt/managers/scheduler.py get_next_batch_to_run, schedule_policy.py PrefillAdder",
                takes_priority=True, priority_higher_first=True, priority_preempts_to_schedule=True,
                prefix_caching_default=True,
                kv_transfer_default="per-chunk",
                overlap_scheduling=True, cuda_graphs=pr.sglang_graphs, host_costs=hc.SGLANG,
                kv_pool=mem.sglang_pool,
                fast_path=True, fast_path_replay=replay_decode_steps,
                fast_path_absorbs_arrivals=lambda s: not s.sglang_enable_mixed_chunk, fast_path_prefill_first=True),
    # TensorRT-LLM takes a prompt's blocks whole at its first context chunk: KVCacheManager::getNeededBlocksOneStep
    # counts the whole prompt (mPromptLen) for `isContextInitState() && isFirstContextChunk()` and addSequence
    # allocates blocks for the whole inputLength (cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp); later chunks
    # need none. Without chunked context a prompt runs whole anyway, so the trait matters only with it.
    PolicyEntry("trtllm", schedule_trtllm, chunks_prompts=lambda s: s.trtllm_chunked_context, reserves_prompt=True,
                victim=newest_victim, defaults=d.trtllm_defaults, label_en="TensorRT-LLM (in-flight batching)",
                label_zh="TensorRT-LLM（动态批处理）",
                follows="tensorrt_llm/batch_manager capacityScheduler.cpp, microBatchScheduler.cpp",
                takes_prefill_threshold=False, default_block_size_tokens=32, prefix_caching_default=True,
                stores_context_blocks_at_end=True,
                overlap_scheduling=True, cuda_graphs=pr.trtllm_graphs, host_costs=hc.TRTLLM, kv_pool=mem.trtllm_pool,
                fast_path=True,
                fast_path_absorbs_arrivals=lambda s: not s.trtllm_chunked_context, fast_path_reserve=completion_reserve),
    PolicyEntry("static", schedule_static, chunks_prompts=False, reserves_prompt=False, victim=newest_victim,
                defaults=d.vllm_v0_defaults, label_en="static batching", label_zh="静态批处理",
                follows="Orca (OSDI '22) §2: batch-level scheduling", fast_path=True),
    PolicyEntry("orca", schedule_orca, chunks_prompts=False, reserves_prompt=False, victim=newest_victim,
                defaults=d.orca_defaults, label_en="Orca (iteration-level batching)",
                label_zh="Orca（迭代级批处理）",
                follows="Orca (OSDI '22) §4; sarathi-serve sarathi/core/scheduler/orca_scheduler.py "
                        "OrcaScheduler._schedule"),
)

REGISTRY: dict[str, PolicyEntry] = {entry.name: entry for entry in _ENTRIES}
POLICY_NAMES: tuple[str, ...] = tuple(REGISTRY)
# The prefill-first baseline without chunking that the budget sweeps (analysis/sweep.py) set chunked prefill against.
BASELINE_POLICY = "monolithic"


def policy_entry(name: str) -> PolicyEntry:
    entry = REGISTRY.get(name)
    if entry is None:
        raise ValueError(f"policy must be one of {', '.join(POLICY_NAMES)}, got {name!r}")
    return entry


def vllm_v1_policy(enable_chunked_prefill: bool) -> str:
    """The policy that models vLLM V1 with this --enable-chunked-prefill value (its entry's
    vllm_enable_chunked_prefill)."""
    name = next((e.name for e in REGISTRY.values() if e.vllm_enable_chunked_prefill is enable_chunked_prefill), None)
    if name is None:
        raise ValueError(f"no policy models vLLM V1 with enable_chunked_prefill={enable_chunked_prefill}")
    return name
