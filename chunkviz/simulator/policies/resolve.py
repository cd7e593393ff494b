"""resolve_knobs: the one place where a run's None knobs get the engine's defaults and where configurations the
engine refuses are refused with its reason.

Invariant: the Knobs it returns pass every start-up check the policy's entry lists (PolicyEntry.refusals, e.g. vLLM
SchedulerConfig._verify_args); a refusal raises InputError naming the setting, the limit and the engine's reason.
"""

from __future__ import annotations

from chunkviz.config import SimConfig
from chunkviz.errors import InputError
from chunkviz.simulator.knobs import Knobs
from chunkviz.simulator.policies.defaults import DefaultsQuery
from chunkviz.simulator.policies.registry import policy_entry


def resolve_knobs(config: SimConfig, num_gpu_blocks: int) -> Knobs:
    try:
        entry = policy_entry(config.scheduler.policy)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    s = config.scheduler
    chunks = entry.chunks(s)
    query = DefaultsQuery(config.gpu, config.model, chunks, num_gpu_blocks * config.cache.block_size,
                          s.max_num_batched_tokens, s.max_num_seqs)
    tokens, seqs = entry.defaults(query)
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
        pricing = entry.step_pricing(config, seqs)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    return Knobs(tokens, seqs, threshold, chunks, reserve, config.model.max_model_len_tokens, pricing)


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
    return notes
