"""resolve_knobs: the one place where a run's None knobs (the budget, max_num_seqs, prefix caching) get the engine's
defaults and where configurations the engine refuses are refused with its reason.

Invariant: the Knobs it returns pass every start-up check the policy's entry lists (PolicyEntry.refusals, e.g. vLLM
SchedulerConfig._verify_args); a refusal raises InputError naming the setting, the limit and the engine's reason.
"""

from __future__ import annotations

from dataclasses import replace

from chunkviz.config import SchedulerConfig, SimConfig
from chunkviz.errors import InputError
from chunkviz.simulator.knobs import Knobs
from chunkviz.simulator.policies.defaults import DefaultsQuery
from chunkviz.simulator.policies.registry import REGISTRY, policy_entry

# SGLang server_args.py priority_scheduling_preemption_threshold's default: a value other than this is a choice.
PREEMPTION_THRESHOLD_DEFAULT = SchedulerConfig().priority_scheduling_preemption_threshold


def with_engine_block_size(config: SimConfig) -> SimConfig:
    """The config with its block size resolved: the user's, or the engine's default when None (PolicyEntry
    default_block_size_tokens: vLLM 16, TensorRT-LLM tokens_per_block 32). Every later reader sees an int."""
    if config.cache.block_size is not None:
        return config
    try:
        entry = policy_entry(config.scheduler.policy)
        return replace(config, cache=replace(config.cache, block_size=entry.default_block_size_tokens))
    except ValueError as exc:  # an unknown policy, or a budget below the engine's block (SimConfig's check)
        raise InputError(str(exc)) from None


def resolve_knobs(config: SimConfig, num_gpu_blocks: int) -> Knobs:
    config = with_engine_block_size(config)  # callers outside simulate() may pass the unresolved None
    try:
        entry = policy_entry(config.scheduler.policy)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    s = config.scheduler
    chunks = entry.chunks(s)
    query = DefaultsQuery(config.gpu, config.model, chunks, num_gpu_blocks * config.cache.block_size,
                          s.max_num_batched_tokens, s.max_num_seqs)
    tokens, seqs = entry.defaults(query)
    if s.scheduling_policy == "priority" and not entry.takes_priority:
        takers = ", ".join(e.name for e in REGISTRY.values() if e.takes_priority)
        raise InputError(f"--scheduling-policy priority is modelled only for the policies {takers} (vLLM V1's "
                         f"--scheduling-policy, SGLang's --enable-priority-scheduling); policy {s.policy} runs fcfs")
    if s.schedule_low_priority_values_first and not (s.scheduling_policy == "priority" and entry.priority_higher_first):
        raise InputError("--schedule-low-priority-values-first is SGLang's (--policy sglang with --scheduling-policy "
                         f"priority); policy {s.policy} with --scheduling-policy {s.scheduling_policy} would ignore it")
    if s.priority_scheduling_preemption_threshold != PREEMPTION_THRESHOLD_DEFAULT and not (
            s.scheduling_policy == "priority" and entry.priority_preempts_to_schedule):
        raise InputError("--priority-scheduling-preemption-threshold is SGLang's (--policy sglang with "
                         f"--scheduling-policy priority); policy {s.policy} with --scheduling-policy "
                         f"{s.scheduling_policy} would ignore it")
    for refusal in entry.refusals:  # the engine's start-up checks, as its entry lists them (refusals.py)
        reason = refusal(config, tokens, seqs)
        if reason is not None:
            raise InputError(reason)
    # The threshold caps a prompt's tokens per step, which is chunking: it applies only where the policy chunks
    # (a prefill-first or no-chunk step never splits a prompt, whatever this knob says; see knob_notes).
    # TRT-LLM has no such knob at all (PolicyEntry.takes_prefill_threshold).
    threshold = s.long_prefill_token_threshold if chunks and entry.takes_prefill_threshold else 0
    reserve = entry.reserves(s) or config.cache.allocation == "reserve"
    try:  # the engine's CUDA graphs and overlap scheduling, with the user's switches (policies/pricing.py)
        pricing = entry.step_pricing(config, seqs, tokens)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    return Knobs(tokens, seqs, threshold, chunks, reserve, config.model.max_model_len_tokens,
                 prefix_caching=resolve_prefix_caching(config), step_pricing=pricing,
                 store_context_blocks_at_end=entry.stores_context_blocks_at_end)


def resolve_prefix_caching(config: SimConfig) -> bool:
    """Prefix caching as set, or (None) as the policy's engine ships it (PolicyEntry.prefix_caching_default: vLLM
    V1, SGLang and TensorRT-LLM on; vLLM V0, Sarathi-Serve, Orca and static batching off)."""
    setting = config.cache.enable_prefix_caching
    if setting is not None:
        return setting
    try:
        return policy_entry(config.scheduler.policy).prefix_caching_default
    except ValueError as exc:
        raise InputError(str(exc)) from None


def knob_notes(config: SimConfig, knobs: Knobs, num_gpu_blocks: int) -> list[str]:
    """Settings that run but contradict each other, worth telling the user about."""
    notes = []
    if knobs.max_num_seqs > num_gpu_blocks:
        notes.append(f"max_num_seqs={knobs.max_num_seqs} exceeds the {num_gpu_blocks} KV blocks: at most "
                     f"{num_gpu_blocks} sequences can ever run at once")
    threshold = config.scheduler.long_prefill_token_threshold
    if threshold and not knobs.chunks_prompts:
        notes.append(f"long_prefill_token_threshold={threshold} is ignored: policy {config.scheduler.policy} does not "
                     f"chunk prompts")
    elif threshold and not policy_entry(config.scheduler.policy).takes_prefill_threshold:
        notes.append(f"long_prefill_token_threshold={threshold} is ignored: it is a vLLM setting and policy "
                     f"{config.scheduler.policy} has no such knob")
    elif threshold and threshold >= knobs.max_num_batched_tokens:
        notes.append(f"long_prefill_token_threshold={threshold} is not below max_num_batched_tokens="
                     f"{knobs.max_num_batched_tokens}, so it never caps anything")
    if not config.scheduler.scheduler_reserve_full_isl and \
            policy_entry(config.scheduler.policy).vllm_enable_chunked_prefill is None:
        notes.append(f"scheduler_reserve_full_isl=False is ignored: it is a vLLM V1 setting and policy "
                     f"{config.scheduler.policy} has no such knob")
    return notes
