"""The lecture: nine chapters (the seed article's eight, with "Split the kitchen" after chapter 6), each with a small
preset scenario and its bookmarks.

Invariant: chapter numbers are 1..N in order, slugs are unique (a slug is a URL: chapters 8 and 9 keep the slugs
ch7-knobs and ch8-misconceptions they had as 7 and 8, so old links open the same content), and every chapter's preset is a valid Scenario small
enough (≤ 24 requests) to simulate in well under a second; bookmarks are found in a trace, never hard-coded steps.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from chunkviz.analysis.scenario import DEFAULT_SCENARIO, Scenario
from chunkviz.config import CacheConfig
from chunkviz.simulator.policies.registry import POLICY_NAMES, policy_entry
from chunkviz.simulator.trace import StepRecord, Trace

# Policy names live here and nowhere else in the lessons and chapter pages, so a rename in the policy registry is
# one edit. Each says which engine version behaves so (chunkviz/simulator/policies/registry.py).
STATIC = "static"  # wait for the whole batch to drain before admitting anyone (pre-Orca)
# vLLM V0 prefill-first: a step with a prompt runs no decodes. Not Orca, whose hybrid batches keep the decodes
# (policies/orca.py).
PREFILL_FIRST = "monolithic"
VLLM_NOCHUNK = "vllm-nochunk"  # vLLM V1 with chunked prefill off: decodes first, a whole prompt rides along
DECODE_FIRST = "chunked"  # vLLM V1 / Sarathi-Serve stall-free batching: decodes first, chunks fill the rest
SGLANG_DEFAULT = "sglang"  # prefill has priority, chunks run back to back unless --enable-mixed-chunk
TRTLLM = "trtllm"  # TensorRT-LLM in-flight batching: generation requests first, then context (chunks if enabled)
LESSON_POLICIES = (STATIC, PREFILL_FIRST, VLLM_NOCHUNK, DECODE_FIRST, SGLANG_DEFAULT, TRTLLM)
assert all(p in POLICY_NAMES for p in LESSON_POLICIES), "a lesson names a policy the simulator does not have"

LECTURE_BUDGET_TOKENS = 512  # Sarathi-Serve's token budget and vLLM V0's first chunked default (costmodel.md §2.3)
# Six requests of the long-among-chats preset (seed 0): five chats and, fifth to arrive, one 6,806-token document.
LECTURE_WORKLOAD = replace(DEFAULT_SCENARIO.workload, num_requests=6, qps=16.0, seed=0)
LECTURE = replace(DEFAULT_SCENARIO, workload_preset="long-among-chats", workload=LECTURE_WORKLOAD)
# Chapter 4: the same six-request size, all sharing a 1,000-token system prompt, prefix caching on. 1,024 blocks
# (16,384 tokens) hold all six, and stay under kv/setup.py's MAX_GRID_BLOCKS so snapshots list every block.
SHARED_PREFIX = replace(LECTURE, workload_preset="shared-system-prompt",
                        workload=replace(LECTURE_WORKLOAD, prompt_tokens=300, shared_prefix_tokens=1000),
                        cache=CacheConfig(enable_prefix_caching=True, num_gpu_blocks=1024))
# Chapter 4's own run: that workload with one request, R5 (the last to arrive, so the stage shows the prompt's
# sharing first; its colour, ui/palette.py REQUEST_COLORS[5], is none of the changes' the stage draws in this run),
# asking for two answers (n = 2) forked after its prompt as vLLM V0 and the PagedAttention paper do (SchedulerConfig
# parallel_sampling "v0-fork-cow"; engine.py forks, kv/ copies on write): the two samples share R5's blocks, ref
# counts rise once more, and the first token each writes lands in the shared, partly filled last block, which is
# copied first. (vLLM V1 runs the samples as child requests and never copies; chunkviz/config/engine_knobs.py.)
SAMPLED_REQUEST_ID = 5
NUM_SAMPLES = 2
SHARED_PREFIX_SAMPLING = replace(
    SHARED_PREFIX, scheduler=replace(SHARED_PREFIX.scheduler, parallel_sampling="v0-fork-cow"),
    explicit_requests=tuple(replace(r, n_samples=NUM_SAMPLES) if r.request_id == SAMPLED_REQUEST_ID else r
                            for r in SHARED_PREFIX.requests()))
# Chapter 6: four times the lecture's requests so each class has enough members for a percentile (3 documents).
CLASSES = replace(LECTURE, workload=replace(LECTURE_WORKLOAD, num_requests=24))
# Chapter 7: the lecture's requests, each instance running the lecture's engine; lessons/split.py deploys them on
# two GPUs (colocated, or one prefill and one decode instance).
PRESETS: dict[str, Scenario] = {"lecture": LECTURE, "shared-prefix": SHARED_PREFIX,
                                "shared-prefix-sampling": SHARED_PREFIX_SAMPLING, "classes": CLASSES,
                                "two-gpus": LECTURE}


@dataclass(frozen=True, slots=True)
class Chapter:
    number: int
    slug: str  # the page's url path
    title_en: str
    title_zh: str
    see_en: str  # one line: what you will see
    see_zh: str
    preset: str  # key of PRESETS
    policies: tuple[str, ...]  # the engines the chapter compares, left to right
    bookmarks: tuple[str, ...]  # bookmark kinds, the key one first: the chapter opens at its start
    reveal: str = ""  # bookmark kind whose end an answered prediction moves to ("" = the key one)

    @property
    def reveal_kind(self) -> str:
        return self.reveal or self.bookmarks[0]


CHAPTERS: tuple[Chapter, ...] = (
    Chapter(1, "ch1-kitchen", "The kitchen", "后厨",
            "Six orders reach one kitchen with one stove; watch the other tables while the banquet order cooks.",
            "六桌客人向只有一个灶台的后厨点单；看宴席大单下锅时，其他桌的菜怎么样。",
            "lecture", (PREFILL_FIRST,), ("long_prefill", "long_first_token")),
    Chapter(2, "ch2-long-prefill", "Why a long prefill hurts", "长预填充为什么伤人",
            "One long prompt arrives among running chats; watch the chat windows in the step where it runs, on two engines.",
            "一段长提示词在对话进行中到达；看两个引擎在它运行的那一步里，对话窗口怎么样。",
            "lecture", (PREFILL_FIRST, DECODE_FIRST), ("long_prefill", "longest_gap")),
    Chapter(3, "ch3-chunking", "Chunking and prefix-incremental attention", "分块与前缀增量注意力",
            "A prompt cut into budget-sized chunks: count the chunks, and see what each one reads from the cache.",
            "一段提示词被切成预算大小的块：数一数有几块，看每块从缓存里读什么。",
            "lecture", (DECODE_FIRST,), ("long_prefill", "long_last_chunk", "long_first_token")),
    Chapter(4, "ch4-paged-kv", "Paged KV cache: sharing, ref counts, copy-on-write",
            "分页 KV 缓存：共享、引用计数、写时复制",
            f"Six requests start with one system prompt and R{SAMPLED_REQUEST_ID} asks for two answers: watch how "
            f"much of each later prompt is computed again, the ref counts, and the first token each of "
            f"R{SAMPLED_REQUEST_ID}'s two answers writes.",
            f"六个请求以同一段系统提示词开头，R{SAMPLED_REQUEST_ID} 要两个回答：看后来的每个提示词有多少要重新计算、"
            f"引用计数，以及 R{SAMPLED_REQUEST_ID} 的两个回答各自写下的第一个 token。",
            "shared-prefix-sampling", (DECODE_FIRST,), ("prefix_hit", "peak_sharing")),
    Chapter(5, "ch5-continuous-batching", "Continuous batching and decode-first", "连续批处理与解码优先",
            "Static, continuous and decode-first batching on one workload: watch when each newcomer gets its first token.",
            "同一负载下的静态、连续与解码优先批处理：看每个新来的请求何时拿到首个 token。",
            "lecture", (STATIC, PREFILL_FIRST, DECODE_FIRST), ("longest_wait", "long_prefill")),
    Chapter(6, "ch6-chunk-size", "Choosing the chunk size: per-class SLOs", "选择块长：分类 SLO",
            f"Chats and documents share one engine at a {LECTURE_BUDGET_TOKENS:,}-token budget per step: watch the "
            f"chats' gaps and the documents' first tokens, then pick the budget that serves both.",
            f"对话和文档以每步 {LECTURE_BUDGET_TOKENS:,} token 的预算共用一个引擎：看对话的间隔和文档的首个 token，"
            f"再选出能同时照顾两类请求的预算。",
            "classes", (DECODE_FIRST,), ("long_prefill", "longest_gap")),
    # The stage draws chapter 2's workload on two GPUs (chunkviz/lessons/split.py: colocated chunked and 1P+1D); the
    # preset and policy here are each instance's engine, and its bookmarks are found in each instance's trace.
    Chapter(7, "split-kitchen", "Split the kitchen", "分开后厨",
            "Chapter 2's orders on two GPUs: two whole kitchens, or one for prefill and one for decode with the KV carried across.",
            "第 2 章的订单放到两块 GPU 上：两个完整的后厨，或者一个做预填充、一个做解码，KV 从中间递过去。",
            "two-gpus", (DECODE_FIRST,), ("long_prefill", "longest_gap")),
    Chapter(8, "ch7-knobs", "The engines' knobs", "各引擎的调参旋钮",
            "SGLang's defaults beside vLLM's on one workload: watch the chats while the document's chunks run; then the knobs.",
            "同一负载下 SGLang 与 vLLM 的默认设置：看文档分块运行时对话怎么样；然后看各个参数。",
            "lecture", (SGLANG_DEFAULT, DECODE_FIRST), ("long_prefill", "long_last_chunk"), "long_last_chunk"),
    Chapter(9, "ch8-misconceptions", "Misconceptions and interview questions", "常见误区与面试题",
            "Six claims about chunked prefill: say true or false to each, then a run of the simulator checks it.",
            "关于分块预填充的六个说法：先判断对错，再用模拟器跑一遍核对。",
            "lecture", (PREFILL_FIRST, DECODE_FIRST), ("long_prefill", "long_first_token")),
)


def chapter(number: int) -> Chapter:
    """The chapter with this number (1-based); ValueError names the valid range."""
    if not 1 <= number <= len(CHAPTERS):
        raise ValueError(f"chapter must be between 1 and {len(CHAPTERS)}, got {number}")
    return CHAPTERS[number - 1]


def neighbours(number: int) -> tuple[Chapter | None, Chapter | None]:
    """(previous, next) chapter, None at either end."""
    chapter(number)
    return (CHAPTERS[number - 2] if number > 1 else None, CHAPTERS[number] if number < len(CHAPTERS) else None)


def scenario_for(ch: Chapter, policy: str, budget_tokens: int = LECTURE_BUDGET_TOKENS) -> Scenario:
    """The chapter's preset run by `policy` (lesson_run)."""
    return lesson_run(PRESETS[ch.preset], policy, budget_tokens)


def lesson_run(scenario: Scenario, policy: str, budget_tokens: int = LECTURE_BUDGET_TOKENS) -> Scenario:
    """`scenario` run by `policy`: a policy that chunks prompts (its registry entry says) gets the budget, the
    others their engine's default budget (vLLM refuses one below max_model_len without chunking)."""
    chunking = policy_entry(policy).chunks(scenario.scheduler)
    return scenario.with_policy(policy, budget_tokens if chunking else None)


@dataclass(frozen=True, slots=True)
class Bookmark:
    """A moment that teaches. `end_s` is when the event is over, so the cursor there shows all of it."""

    kind: str
    step_index: int
    start_s: float
    end_s: float
    request_id: int | None
    prompt_tokens: int  # of request_id (0 when none)
    duration_ms: float  # of the step (for longest_wait: the time the request queued)
    num_frozen: int  # decode-ready requests that got no token in the step
    num_tokens: int  # tokens the event is about: the chunk, the cache hit


def long_request_id(trace: Trace) -> int:
    """The request with the longest prompt (ties: the first)."""
    return max(trace.requests, key=lambda r: (r.prompt_tokens, -r.request_id)).request_id


def _at(trace: Trace, kind: str, index: int, request_id: int | None, num_tokens: int) -> Bookmark:
    step: StepRecord = trace.steps[index]
    prompt = next((r.prompt_tokens for r in trace.requests if r.request_id == request_id), 0)
    return Bookmark(kind, index, step.start_s, step.start_s + step.duration_s, request_id, prompt,
                    step.duration_s * 1e3, step.num_stalled_decodes, num_tokens)


def _prefill_steps(trace: Trace, request_id: int) -> list[tuple[int, int]]:
    return [(i, c.num_tokens) for i, s in enumerate(trace.steps) for c in s.chunks
            if c.request_id == request_id and c.phase == "prefill"]


def _long_first_token(trace: Trace) -> Bookmark | None:
    rid = long_request_id(trace)
    for i, s in enumerate(trace.steps):
        if any(e.kind == "FirstToken" and e.request_id == rid for e in s.events):
            return _at(trace, "long_first_token", i, rid, 1)
    return None


def _longest_gap(trace: Trace) -> Bookmark | None:
    """The longest step that kept a decode-ready request waiting for its next token (decoded or frozen)."""
    candidates = [i for i, s in enumerate(trace.steps)
                  if s.num_stalled_decodes or any(c.phase == "decode" for c in s.chunks)]
    if not candidates:
        return None
    index = max(candidates, key=lambda i: (trace.steps[i].duration_s, -i))
    return _at(trace, "longest_gap", index, None, 0)


def _prefix_hit(trace: Trace) -> Bookmark | None:
    for i, s in enumerate(trace.steps):
        for e in s.events:
            if e.kind == "Admitted" and e.prefix_hit_tokens > 0:
                return _at(trace, "prefix_hit", i, e.request_id, e.prefix_hit_tokens)
    return None


def _longest_wait(trace: Trace) -> Bookmark | None:
    """The admission of the request that queued longest before its first step."""
    waited = [r for r in trace.requests if r.first_scheduled_s is not None]
    if not waited:
        return None
    r = max(waited, key=lambda r: (r.first_scheduled_s - r.arrival_s, -r.request_id))
    index = next(i for i, s in enumerate(trace.steps) if s.start_s >= r.first_scheduled_s)
    mark = _at(trace, "longest_wait", index, r.request_id, 0)
    return replace(mark, duration_ms=(r.first_scheduled_s - r.arrival_s) * 1e3)


def _peak_sharing(trace: Trace) -> Bookmark | None:
    """The first step after which the most block tables share one block (`num_tokens` = blocks shared, `num_frozen`
    unused); needs a detailed paged trace whose snapshots list blocks."""
    best: tuple[int, int, int] | None = None
    for i, s in enumerate(trace.steps):
        refs = [b.ref_count for b in s.snapshot.blocks] if s.snapshot is not None else []
        if refs and max(refs) > 1 and (best is None or (max(refs), sum(r > 1 for r in refs)) > best[:2]):
            best = (max(refs), sum(r > 1 for r in refs), i)
    if best is None:
        return None
    return replace(_at(trace, "peak_sharing", best[2], None, best[1]), num_frozen=best[0])


def find_bookmark(trace: Trace, kind: str) -> Bookmark | None:
    """The first moment of `kind` in a detailed trace, or None when the run has none."""
    if kind in ("long_prefill", "long_last_chunk"):
        rid = long_request_id(trace)
        steps = _prefill_steps(trace, rid)
        if not steps:
            return None
        index, tokens = steps[0] if kind == "long_prefill" else steps[-1]
        return _at(trace, kind, index, rid, tokens)
    finders = {"long_first_token": _long_first_token, "longest_gap": _longest_gap, "prefix_hit": _prefix_hit,
               "longest_wait": _longest_wait, "peak_sharing": _peak_sharing}
    if kind not in finders:
        raise ValueError(f"unknown bookmark kind {kind!r}")
    return finders[kind](trace)


def bookmarks(trace: Trace, kinds: tuple[str, ...]) -> tuple[Bookmark, ...]:
    """The chapter's bookmarks present in this trace, in the chapter's order."""
    return tuple(b for b in (find_bookmark(trace, k) for k in kinds) if b is not None)


def num_prefill_chunks(trace: Trace, request_id: int) -> int:
    """Steps in which the request's prompt was computed (1 without chunking)."""
    return len(_prefill_steps(trace, request_id))
