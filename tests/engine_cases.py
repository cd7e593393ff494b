"""Generated engine cases and the invariants every step and every run must keep (issue 16), shared by
tests/test_engine_invariants.py and scripts/invariant_census.py.

A case is a SimConfig (every policy in the registry, prefix caching, eviction and allocation modes, block sizes,
tiny caches that force preemption, tensor parallelism) and a workload (n > 1 samples, shared prefixes, ties).
`violations(case, trace)` returns one line per broken invariant, grouped by name, so a census can count them.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, fields

from hypothesis import reject
from hypothesis import strategies as st

from chunkviz import config as config_module
from chunkviz.analysis.metrics import summarize
from chunkviz.config import ALLOCATION_NAMES, EVICTION_NAMES, CacheConfig, SchedulerConfig, SimConfig
from chunkviz.cost.catalogue import get_gpu, get_model
from chunkviz.request import Request, Segment
from chunkviz.simulator.trace import StepRecord, Trace

try:  # the policy registry, where policy names and traits live
    from chunkviz.simulator.policies.registry import POLICY_NAMES, REGISTRY
except ImportError:  # an older checkout measured by scripts/invariant_census.py (the "before" figures): config's names
    from chunkviz.config import POLICY_NAMES
    REGISTRY = None

MAX_TEST_STEPS = 20_000  # a livelock fails fast instead of running to the engine's two-million-step bound
# Llama-3-8B's shapes with a 1,024-token context, so that a 1,024-token budget holds any sequence here (at most
# 600 + 40 tokens): engines refuse an unchunked policy whose budget is below max_model_len (vLLM's check).
MODEL = dataclasses.replace(get_model("llama-3-8b"), max_model_len_tokens=1024)
# Policies whose steps never mix prefill and decode tokens: vLLM V0 without chunking (schedule_monolithic), static
# batching (a batch is admitted only onto an empty engine).
# Under long_prefill_token_threshold the unchunked policies are checked by monolithic_violations instead.
NO_MIX_POLICIES = {"monolithic": lambda s: s.long_prefill_token_threshold == 0,
                   "static": lambda s: s.long_prefill_token_threshold == 0}
# SGLang without --enable-mixed-chunk is prefill-first too; its rule has a test of its own (sglang_violations).
SGLANG_NO_MIX = lambda s: s.policy == "sglang" and not getattr(s, "sglang_enable_mixed_chunk", False)  # noqa: E731


def chunks_prompts(scheduler: SchedulerConfig) -> bool:
    """Whether the policy may split a prompt over steps (the registry's trait; monolithic and static never do)."""
    if REGISTRY is not None:
        return REGISTRY[scheduler.policy].chunks(scheduler)
    return scheduler.policy not in ("monolithic", "static")


# Optional scheduler switches, drawn when this checkout's SchedulerConfig has them: field -> choices.
_OPTIONAL_KNOBS = {"sglang_enable_mixed_chunk": (False, True), "trtllm_chunked_context": (False, True),
                   "scheduler_reserve_full_isl": (True, False),
                   "trtllm_capacity_policy": getattr(config_module, "TRTLLM_CAPACITY_POLICIES", ()),
                   "parallel_sampling": getattr(config_module, "PARALLEL_SAMPLING_MODES", ())}


@dataclass(frozen=True)
class Case:
    config: SimConfig
    requests: tuple[Request, ...]


def _request(i: int, arrival_s: float, prompt: int, output: int, n: int, prefix: tuple[str, int] | None) -> Request:
    segments = None
    if prefix is not None and prefix[1] < prompt:
        segments = (Segment(prefix[0], prefix[1]), Segment(f"own{i}", prompt - prefix[1]))
    return Request(i, arrival_s, prompt, output, n_samples=n, segments=segments)


request_specs = st.tuples(
    st.sampled_from([0.0, 0.0, 0.01, 0.05, 0.2, 0.7]),  # repeated times: simultaneous arrivals
    st.integers(1, 600), st.integers(1, 40), st.sampled_from([1, 1, 1, 2, 3, 4]),
    st.one_of(st.none(), st.tuples(st.sampled_from(["sys-a", "sys-b"]), st.integers(1, 300))))


@st.composite
def cases(draw) -> Case:
    block_size = draw(st.sampled_from([2, 8, 16, 32]))
    present = {f.name for f in fields(SchedulerConfig)}
    knobs = {name: draw(st.sampled_from(choices)) for name, choices in _OPTIONAL_KNOBS.items()
             if name in present and choices}
    scheduler = SchedulerConfig(
        policy=draw(st.sampled_from(POLICY_NAMES)),  # the registry's names: new policies are covered as they land
        max_num_batched_tokens=max(block_size, draw(st.sampled_from([16, 64, 256, 1024, 1024]))),
        max_num_seqs=draw(st.sampled_from([1, 2, 3, 5, 256])),
        long_prefill_token_threshold=draw(st.sampled_from([0, 0, 24, 100])), **knobs)
    cache = CacheConfig(block_size=block_size, num_gpu_blocks=draw(st.sampled_from([4, 10, 24, 80, 600])),
                        enable_prefix_caching=draw(st.booleans()), eviction=draw(st.sampled_from(EVICTION_NAMES)),
                        allocation=draw(st.sampled_from(ALLOCATION_NAMES)))
    try:
        config = SimConfig(model=MODEL, gpu=get_gpu("h100-sxm"), scheduler=scheduler, cache=cache,
                           tensor_parallel=draw(st.sampled_from([1, 2, 4, 8])), max_num_steps=MAX_TEST_STEPS)
    except ValueError:
        reject()  # a combination the configuration refuses with a message is not a run to check
    specs = sorted(draw(st.lists(request_specs, min_size=1, max_size=8)), key=lambda s: s[0])
    return Case(config, tuple(_request(i, *spec) for i, spec in enumerate(specs)))


def step_phases(step: StepRecord) -> set[str]:
    """The step's phases, a sequence admitted in this very step counting as prefill: a preempted sequence whose
    prompt and outputs are all cached again recomputes only its last token, which the chunk labels "decode", but it
    is a (re-)admission, not a running decode."""
    admitted = {(e.request_id, e.sample_index) for e in step.events if e.kind == "Admitted"}
    return {"prefill" if (c.request_id, c.sample_index) in admitted else c.phase for c in step.chunks}


def _step_violations(case: Case, trace: Trace, step: StepRecord, clock_s: float) -> list[str]:
    found = []
    tokens = sum(c.num_tokens for c in step.chunks)
    if not 0 < tokens <= trace.budget_tokens:
        found.append(f"budget: step {step.step} schedules {tokens} tokens, budget {trace.budget_tokens}")
    if not (step.start_s >= clock_s and step.duration_s > 0):
        found.append(f"clock: step {step.step} starts at {step.start_s} after {clock_s} (duration {step.duration_s})")
    if not 0 <= step.num_used_blocks <= trace.num_gpu_blocks:
        found.append(f"blocks: step {step.step} uses {step.num_used_blocks} of {trace.num_gpu_blocks}")
    found += _block_violations(step, trace.num_gpu_blocks)
    rule = NO_MIX_POLICIES.get(case.config.scheduler.policy)
    if rule and rule(case.config.scheduler) and step_phases(step) == {"prefill", "decode"}:
        found.append(f"policy: {case.config.scheduler.policy} step {step.step} mixes prefill and decode")
    return found


def _block_violations(step: StepRecord, num_gpu_blocks: int) -> list[str]:
    """allocated = in use + free, ref counts >= 0 and equal to the tables that hold each block."""
    snap = step.snapshot
    if snap is None or not snap.blocks:
        return []
    held: dict[int, int] = {}
    for _, _, table in snap.block_tables:
        for block_id in table:
            held[block_id] = held.get(block_id, 0) + 1
    found = []
    in_use = 0
    for b in snap.blocks:
        in_free_queue = b.free_position is not None
        if b.ref_count < 0 or b.ref_count != held.get(b.block_id, 0) or (b.ref_count > 0) == in_free_queue:
            found.append(f"blocks: step {step.step} block {b.block_id} ref {b.ref_count}, held by "
                         f"{held.get(b.block_id, 0)} tables, free position {b.free_position}")
        in_use += b.ref_count > 0
    num_free = num_gpu_blocks - in_use
    if in_use != step.num_used_blocks or num_free < 0 or set(held) - {b.block_id for b in snap.blocks}:
        found.append(f"blocks: step {step.step} counts {step.num_used_blocks} in use, the blocks say {in_use}")
    return found


def violations(case: Case, trace: Trace) -> list[str]:
    """Every broken invariant of one run, each line starting with its invariant's name."""
    found = []
    clock_s = 0.0
    for step in trace.steps:
        found += _step_violations(case, trace, step, clock_s)
        clock_s = step.start_s + step.duration_s
    for r in trace.requests:
        if (r.finish_s is None) == (r.rejected_reason is None):
            found.append(f"outcome: request {r.request_id} finished={r.finish_s} rejected={r.rejected_reason!r}")
        if r.finish_s is not None and r.num_generated_tokens != r.output_tokens * r.n_samples:
            found.append(f"tokens: request {r.request_id} generated {r.num_generated_tokens}, "
                         f"requested {r.output_tokens} x {r.n_samples}")
        if not 0 <= r.prefix_hit_tokens <= r.prefix_query_tokens:
            found.append(f"hits: request {r.request_id} {r.prefix_hit_tokens} of {r.prefix_query_tokens}")
    if trace.blocks_in_use_at_end != 0:
        found.append(f"blocks: {trace.blocks_in_use_at_end} blocks still in use at the end")
    if not 0.0 <= summarize(trace).prefix_hit_rate <= 1.0:
        found.append(f"hits: hit rate {summarize(trace).prefix_hit_rate}")
    return found


def max_num_seqs_violations(case: Case, trace: Trace) -> list[str]:
    """Running sequences (every sample counts) never exceed max_num_seqs."""
    limit = case.config.scheduler.max_num_seqs
    return [f"max_num_seqs: step {s.step} runs {len(s.snapshot.running)} sequences, limit {limit}"
            for s in trace.steps if s.snapshot is not None and len(s.snapshot.running) > limit]


def monolithic_violations(case: Case, trace: Trace) -> list[str]:
    """A policy that does not chunk prompts (monolithic, static, ...) never does, under any setting: a prefill chunk
    leaves its sequence with every token computed (but the one just sampled); prefill-first ones mix no decodes."""
    scheduler = case.config.scheduler
    if chunks_prompts(scheduler):
        return []
    no_mix = scheduler.policy in NO_MIX_POLICIES
    found = []
    for step in trace.steps:
        if no_mix and step_phases(step) == {"prefill", "decode"}:
            found.append(f"monolithic: {case.config.scheduler.policy} step {step.step} mixes prefill and decode")
        after = {(p[0], p[1]): p for p in step.snapshot.progress} if step.snapshot else {}
        for c in step.chunks:
            progress = after.get((c.request_id, c.sample_index))
            if c.phase == "prefill" and progress is not None and progress[2] < progress[3] - 1:
                found.append(f"monolithic: step {step.step} prefills {c.num_tokens} tokens of request "
                             f"{c.request_id}, leaving {progress[3] - 1 - progress[2]} uncomputed")
    return found


def sglang_violations(case: Case, trace: Trace) -> list[str]:
    """SGLang without mixed chunks is prefill-first: a step that prefills carries no decodes (schedule_sglang)."""
    if not SGLANG_NO_MIX(case.config.scheduler):
        return []
    return [f"sglang: step {s.step} mixes prefill and decode" for s in trace.steps
            if step_phases(s) == {"prefill", "decode"}]
