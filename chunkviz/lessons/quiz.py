"""Quiz evidence: each question's answer is computed by running the project's own modules, never asserted.

Invariant: every evidence function derives `correct_option` from its own figures by the rule written beside it, so
if a model, cost or policy changed the numbers, the verdict would follow them (tests re-derive it from the figures).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Callable, NamedTuple

from chunkviz.lessons.attention_math import run_attention_demo
from chunkviz.lessons.chapters import DECODE_FIRST, PREFILL_FIRST, SGLANG_DEFAULT
from chunkviz.simulator.kv.blocks import BlockManager
from chunkviz.cost.catalogue import GPUS, MODELS
from chunkviz.config import SchedulerConfig, SimConfig
from chunkviz.simulator.engine import simulate
from chunkviz.analysis.metrics import summarize
from chunkviz.lessons.paging import PRESETS, simulate_paging
from chunkviz.cost.prefill import prefill_cost
from chunkviz.request import Request
from chunkviz.analysis.scenario import DEFAULT_SCENARIO, run_scenario
from chunkviz.simulator.trace import Trace

MODEL, GPU = MODELS["llama-3-8b"], GPUS["h100-sxm"]
DOC_ID, NUM_CHATS, DOC_PROMPT_TOKENS = 32, 32, 8000
# Option ids per question, in the order the page shows them (the right one is not always in the same place).
OPTIONS: dict[str, tuple[str, ...]] = {
    "attention_flops": ("more_flops", "same_flops_more_bytes", "fewer_flops", "no_cost"),
    "long_request_ttft": ("lower", "same", "higher"),
    "budget_is_per_step": ("per_request_chunk", "decodes_on_top", "per_step_total"),
    "sglang_itl": ("always", "depends_on_mixing", "never"),
    "budget_tbt_p99": ("falls", "unchanged", "rises"),
    "tail_first_free": ("keep_prefix_head", "allocator_speed", "no_difference"),
    "kv_per_token": ("llama2_more", "same", "llama3_more"),
    "belady": ("more_is_better", "fifo_anomaly", "both_worse"),
}


class Figure(NamedTuple):
    """One number of the evidence: a text key (the UI translates it), the value, and a unit id."""

    label_key: str
    value: float
    unit: str  # flops, bytes, ms, tokens, steps, blocks, faults, kib, heads, ratio, diff


@dataclass(frozen=True, slots=True)
class QuizEvidence:
    question_id: str
    option_ids: tuple[str, ...]  # in the order the page shows them
    correct_option: str
    figures: tuple[Figure, ...]

    def value(self, label_key: str) -> float:
        return next(f.value for f in self.figures if f.label_key == label_key)


def _evidence(question_id: str, verdict: str, figures: tuple[Figure, ...]) -> QuizEvidence:
    assert verdict in OPTIONS[question_id], f"{question_id}: verdict {verdict!r} is not an option"
    return QuizEvidence(question_id, OPTIONS[question_id], verdict, figures)


def _rel_gap(a: float, b: float) -> float:
    return abs(a - b) / max(abs(a), abs(b), 1e-300)


def attention_flops() -> QuizEvidence:
    """Toy head (512 tokens, chunks of 48) and Llama-3-8B on H100 (8192 tokens, chunks of 512)."""
    toy = run_attention_demo(num_tokens=512, head_dim=64, chunk_tokens=48)
    whole, chunked = prefill_cost(MODEL, GPU, 8192, 8192), prefill_cost(MODEL, GPU, 8192, 512)
    figs = (Figure("max_abs_diff", toy.max_abs_diff, "diff"),
            Figure("toy_flops_one_pass", toy.one_pass_attention_flops, "flops"),
            Figure("toy_flops_chunked", toy.total_attention_flops, "flops"),
            Figure("real_attn_flops_whole", whole.attention_flops, "flops"),
            Figure("real_attn_flops_chunked", chunked.attention_flops, "flops"),
            Figure("real_bytes_whole", whole.read_bytes, "bytes"),
            Figure("real_bytes_chunked", chunked.read_bytes, "bytes"))
    gap = _rel_gap(chunked.attention_flops, whole.attention_flops)
    verdict = ("more_flops" if chunked.attention_flops > whole.attention_flops and gap > 1e-9 else
               "fewer_flops" if gap > 1e-9 else
               "same_flops_more_bytes" if chunked.read_bytes > whole.read_bytes else "no_cost")
    return _evidence("attention_flops", verdict, figs)


def doc_among_chats() -> tuple[Request, ...]:
    """32 chats (200-token prompts, 300 tokens to write) streaming when an 8000-token document arrives at 0.3 s."""
    chats = [Request(i, 0.005 * i, 200, 300) for i in range(NUM_CHATS)]
    return tuple(chats + [Request(DOC_ID, 0.3, DOC_PROMPT_TOKENS, 16)])


@lru_cache(maxsize=16)
def _doc_run(policy: str, budget_tokens: int | None) -> Trace:
    config = SimConfig(MODEL, GPU, SchedulerConfig(policy=policy, max_num_batched_tokens=budget_tokens))
    return simulate(config, doc_among_chats())


def _doc_ttft_ms(trace: Trace) -> float:
    doc = trace.requests[DOC_ID]
    assert doc.first_token_s is not None, "the document request must finish"
    return (doc.first_token_s - doc.arrival_s) * 1e3


def _chat_max_gap_ms(trace: Trace) -> float:
    return max(r.max_tbt_s or 0.0 for r in trace.requests if r.request_id != DOC_ID) * 1e3


def long_request_ttft() -> QuizEvidence:
    mono, chunked = _doc_run(PREFILL_FIRST, None), _doc_run(DECODE_FIRST, 512)
    doc_steps = sum(1 for s in chunked.steps for c in s.chunks if c.request_id == DOC_ID and c.phase == "prefill")
    figs = (Figure("doc_ttft_mono", _doc_ttft_ms(mono), "ms"), Figure("doc_ttft_chunked", _doc_ttft_ms(chunked), "ms"),
            Figure("doc_prefill_steps_chunked", doc_steps, "steps"),
            Figure("chat_gap_mono", _chat_max_gap_ms(mono), "ms"),
            Figure("chat_gap_chunked", _chat_max_gap_ms(chunked), "ms"))
    a, b = figs[0].value, figs[1].value
    verdict = "same" if _rel_gap(a, b) < 0.01 else ("lower" if b < a else "higher")
    return _evidence("long_request_ttft", verdict, figs)


def budget_is_per_step() -> QuizEvidence:
    """The first step (chunked, budget 512) that mixes the document's prefill with decodes."""
    trace = _doc_run(DECODE_FIRST, 512)
    step = next(s for s in trace.steps if any(c.request_id == DOC_ID for c in s.chunks)
                and any(c.phase == "decode" for c in s.chunks))
    doc_tokens = sum(c.num_tokens for c in step.chunks if c.request_id == DOC_ID)
    decode_tokens = sum(c.num_tokens for c in step.chunks if c.phase == "decode")
    total = sum(c.num_tokens for c in step.chunks)
    figs = (Figure("budget", trace.budget_tokens, "tokens"), Figure("step_decode_tokens", decode_tokens, "tokens"),
            Figure("step_doc_tokens", doc_tokens, "tokens"), Figure("step_total_tokens", total, "tokens"))
    verdict = ("decodes_on_top" if total > trace.budget_tokens else
               "per_request_chunk" if doc_tokens == trace.budget_tokens else "per_step_total")
    return _evidence("budget_is_per_step", verdict, figs)


def sglang_itl() -> QuizEvidence:
    runs = {"mono": _doc_run(PREFILL_FIRST, None), "vllm": _doc_run(DECODE_FIRST, 512),
            "sglang": _doc_run(SGLANG_DEFAULT, 512)}
    gaps = {name: _chat_max_gap_ms(trace) for name, trace in runs.items()}
    figs = tuple(Figure(f"chat_gap_{name}", gaps[name], "ms") for name in runs) + tuple(
        Figure(f"stall_steps_{name}", trace.num_stall_steps, "steps") for name, trace in runs.items())
    # "Smooth" means the worst gap at most half of the monolithic one, the stall chunking is meant to remove.
    smooth = {name: gaps[name] < gaps["mono"] / 2 for name in ("vllm", "sglang")}
    verdict = ("always" if all(smooth.values()) else "depends_on_mixing" if smooth["vllm"] else "never")
    return _evidence("sglang_itl", verdict, figs)


def _document(start: int, end: int) -> tuple[tuple[str, int, int], ...]:
    return (("doc", start, end),)  # the document's token ids, as block content


def _after_pressure(tail_first: bool) -> tuple[int, int]:
    """A 4-block document is cached, then freed; an unrelated request takes 4 of the 6 blocks; the document comes
    back. Returns (its prefix-hit tokens, how many of its 4 blocks were evicted)."""
    bm = BlockManager(num_blocks=6, block_size=4, enable_prefix_caching=True, eviction="lru")
    bm.allocate((0, 0), 0, 16)
    bm.on_computed((0, 0), _document, 0, 16)
    doc_blocks = list(bm.tables[(0, 0)])
    if not tail_first:
        bm.tables[(0, 0)].reverse()  # the same free() walking the table the other way: head block released first
    bm.free((0, 0))
    bm.allocate((1, 0), 0, 16)
    num_evicted = sum(1 for b in doc_blocks if bm.blocks[b].key is None)
    return len(bm.find_prefix_hit(_document, 16)) * bm.block_size, num_evicted


def tail_first_free() -> QuizEvidence:
    (hit_tail, evicted_tail), (hit_head, evicted_head) = _after_pressure(True), _after_pressure(False)
    figs = (Figure("evicted_tail_first", evicted_tail, "blocks"), Figure("evicted_head_first", evicted_head, "blocks"),
            Figure("hit_tokens_tail_first", hit_tail, "tokens"), Figure("hit_tokens_head_first", hit_head, "tokens"))
    verdict = "keep_prefix_head" if hit_tail > hit_head else "no_difference"
    return _evidence("tail_first_free", verdict, figs)


@lru_cache(maxsize=4)
def _chat_run(budget_tokens: int) -> Trace:
    return run_scenario(replace(DEFAULT_SCENARIO.with_policy(DECODE_FIRST, budget_tokens), record_detail=False))


def budget_tbt_p99() -> QuizEvidence:
    """The app's default workload (64 requests, long documents among chats), chunked at 512 and at 8192."""
    small, large = summarize(_chat_run(512)), summarize(_chat_run(8192))
    figs = (Figure("tbt_p99_512", (small.tbt_s.p99 or 0.0) * 1e3, "ms"),
            Figure("tbt_p99_8192", (large.tbt_s.p99 or 0.0) * 1e3, "ms"),
            Figure("ttft_p50_512", (small.ttft_s.p50 or 0.0) * 1e3, "ms"),
            Figure("ttft_p50_8192", (large.ttft_s.p50 or 0.0) * 1e3, "ms"))
    ratio = figs[1].value / figs[0].value
    verdict = "rises" if ratio > 1.1 else "falls" if ratio < 0.9 else "unchanged"
    return _evidence("budget_tbt_p99", verdict, figs)


def kv_per_token() -> QuizEvidence:
    l2, l3 = MODELS["llama-2-7b"], MODELS["llama-3-8b"]
    ratio = l2.kv_bytes_per_token / l3.kv_bytes_per_token
    figs = (Figure("kv_llama2", l2.kv_bytes_per_token / 1024, "kib"),
            Figure("kv_llama3", l3.kv_bytes_per_token / 1024, "kib"), Figure("kv_ratio", ratio, "ratio"),
            Figure("kv_heads_llama2", l2.num_kv_heads, "heads"), Figure("kv_heads_llama3", l3.num_kv_heads, "heads"))
    verdict = "same" if ratio == 1 else "llama3_more" if ratio < 1 else "llama2_more"
    return _evidence("kv_per_token", verdict, figs)


def belady() -> QuizEvidence:
    refs = PRESETS["belady"]
    faults = {(algo, n): simulate_paging(algo, refs, n).faults for algo in ("fifo", "lru") for n in (3, 4)}
    figs = tuple(Figure(f"faults_{algo}_{n}", count, "faults") for (algo, n), count in faults.items())
    fifo_worse, lru_worse = faults["fifo", 4] > faults["fifo", 3], faults["lru", 4] > faults["lru", 3]
    verdict = "both_worse" if fifo_worse and lru_worse else "fifo_anomaly" if fifo_worse else "more_is_better"
    return _evidence("belady", verdict, figs)


QUESTIONS: dict[str, Callable[[], QuizEvidence]] = {
    "attention_flops": attention_flops, "long_request_ttft": long_request_ttft,
    "budget_is_per_step": budget_is_per_step, "sglang_itl": sglang_itl, "budget_tbt_p99": budget_tbt_p99,
    "tail_first_free": tail_first_free, "kv_per_token": kv_per_token, "belady": belady,
}
