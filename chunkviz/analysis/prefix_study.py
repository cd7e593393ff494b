"""Prefix-cache hit rates with timing ignored: replay each request's prompt block ids through a cache of C blocks.

Invariant: a request's hits are its leading run of cached blocks (counting stops at the first miss); after each
request the cache holds at most C blocks; no policy beats the unlimited-capacity ceiling.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Container, Hashable, Iterable, Sequence
from dataclasses import dataclass

from chunkviz.errors import InputError
from chunkviz.replacement import Convention, Replacer, make_replacer
from chunkviz.request import Request, Segment
from chunkviz.workloads.checks import DEFAULT_LOAD_OPTIONS

BlockLists = Sequence[Sequence[Hashable]]
# docs/input-limits.md's promise: at most 1,000,000 prefix block ids in one study, the same cap as a trace's
# declared ids (workloads/checks.py LoadOptions.max_prefix_blocks: ~250 bytes each once cut, so ~250 MB). Counted
# from the prompt lengths before any id is made: 200 prompts of 1 M tokens in 1-token blocks would be 2e8 ids.
MAX_STUDY_BLOCK_IDS = DEFAULT_LOAD_OPTIONS.max_prefix_blocks


class PrefixCache:
    """Resident block ids under one replacement rule of chunkviz.replacement, touched in request order.

    FIFO: a hit does not refresh a block, so even a hot shared prefix ages out. LRU: the least recently touched
    block leaves first. LFU: the fewest touches since the block came in, ties to the least recently touched; the
    count restarts at 1 when an evicted block comes back (no history is kept for absent blocks).
    """

    def __init__(self, rule: str) -> None:
        # LFU ties go to the least recently touched block: the order the study has always used.
        self.blocks: Replacer = make_replacer(rule, Convention(lfu_tie_break="lru"))
        self._tick = 0

    def touch_all(self, block_ids: Iterable[Hashable]) -> None:
        """Insert or refresh each block, in the given order."""
        self._tick = self.blocks.touch_all(block_ids, self._tick)

    def evict_to(self, capacity_blocks: int) -> None:
        self.blocks.shrink_to(capacity_blocks)


def _cache(rule: str) -> Callable[[], PrefixCache]:
    return lambda: PrefixCache(rule)


# UI name -> factory; a new policy is a rule in chunkviz.replacement plus one entry here.
PREFIX_CACHE_POLICIES: dict[str, Callable[[], PrefixCache]] = {name: _cache(name) for name in ("fifo", "lru", "lfu")}


@dataclass(frozen=True, slots=True)
class PrefixStudyResult:
    """Hit counts of one policy at one capacity over a whole trace; hit_rate = hit_blocks / prompt_blocks."""

    policy: str
    capacity_blocks: int | None  # None: unlimited capacity
    hit_rate: float
    hit_blocks: int
    prompt_blocks: int
    num_requests: int

    def to_dict(self) -> dict[str, object]:
        return dataclasses.asdict(self)


def _result(policy: str, capacity_blocks: int | None, hit_blocks: int, block_lists: BlockLists) -> PrefixStudyResult:
    prompt_blocks = sum(len(blocks) for blocks in block_lists)
    hit_rate = hit_blocks / prompt_blocks if prompt_blocks else 0.0
    return PrefixStudyResult(policy, capacity_blocks, hit_rate, hit_blocks, prompt_blocks, len(block_lists))


def leading_hits(resident: Container[Hashable], block_ids: Sequence[Hashable]) -> int:
    """How many of block_ids, from the first, are resident before the first miss (a prefix cache can only reuse
    a contiguous prefix: after a miss the KV of later blocks depends on tokens that must be recomputed)."""
    num_hits = 0
    for block_id in block_ids:
        if block_id not in resident:
            break
        num_hits += 1
    return num_hits


def run_prefix_study(block_lists: BlockLists, policy: str, capacity_blocks: int) -> PrefixStudyResult:
    """Blocks hit under `policy` with room for `capacity_blocks` blocks, requests replayed in order."""
    if policy not in PREFIX_CACHE_POLICIES:
        raise InputError(f"unknown prefix-cache policy {policy!r}; choose one of {', '.join(PREFIX_CACHE_POLICIES)}")
    if isinstance(capacity_blocks, bool) or not isinstance(capacity_blocks, int) or capacity_blocks < 1:
        raise InputError(f"capacity must be a whole number of blocks >= 1, got {capacity_blocks!r}")
    cache = PREFIX_CACHE_POLICIES[policy]()
    hit_blocks = 0
    for block_ids in block_lists:
        hit_blocks += leading_hits(cache.blocks, block_ids)
        # Last block first, so the request's first block is the freshest: its prefix outlives its tail, as in
        # vLLM, which frees a finished sequence's blocks tail-first.
        cache.touch_all(reversed(block_ids))
        cache.evict_to(capacity_blocks)
    return _result(policy, capacity_blocks, hit_blocks, block_lists)


def unlimited_ceiling(block_lists: BlockLists) -> PrefixStudyResult:
    """Blocks hit when nothing is ever evicted: the most any policy can reach."""
    seen: set[Hashable] = set()  # membership only, so set order never shows in the result
    hit_blocks = 0
    for block_ids in block_lists:
        hit_blocks += leading_hits(seen, block_ids)
        seen.update(block_ids)
    return _result("unlimited", None, hit_blocks, block_lists)


def hit_rate_curve(block_lists: BlockLists, capacities: Sequence[int],
                   policies: Sequence[str] = tuple(PREFIX_CACHE_POLICIES)) -> tuple[PrefixStudyResult, ...]:
    """One result per (policy, capacity), policy-major in the order given."""
    block_lists = tuple(block_lists)  # a generator would be used up by the first policy
    return tuple(run_prefix_study(block_lists, policy, c) for policy in policies for c in capacities)


def _chain(parent: bytes, pieces: list[tuple[str, int, int]]) -> bytes:
    # A block's id hashes its parent's id with its own content, so equal ids mean equal prefixes (the style's
    # blake2b chain); repr of (str, int, int) tuples is unambiguous, unlike joining with a separator.
    return hashlib.blake2b(parent + repr(pieces).encode(), digest_size=8).digest()


def _prompt_block_ids(segments: tuple[Segment, ...], block_tokens: int) -> tuple[int, ...]:
    block_ids: list[int] = []
    parent = b""
    pieces: list[tuple[str, int, int]] = []  # (segment key, offset in segment, tokens) inside the current block
    room = block_tokens
    for segment in segments:
        offset = 0
        while offset < segment.num_tokens:
            take = min(room, segment.num_tokens - offset)
            pieces.append((segment.key, offset, take))
            offset += take
            room -= take
            if room == 0:
                parent = _chain(parent, pieces)
                block_ids.append(int.from_bytes(parent, "big"))
                pieces, room = [], block_tokens
    if pieces:  # a partial last block gets an id too (as in Mooncake); it only matches the same partial content
        block_ids.append(int.from_bytes(_chain(parent, pieces), "big"))
    return tuple(block_ids)


def num_prompt_blocks(requests: Sequence[Request], block_tokens: int) -> int:
    """How many block ids block_ids_from_requests would make: each prompt's blocks, a partial last one included."""
    return sum(-(-request.prompt_tokens // block_tokens) for request in requests)


def check_num_prompt_blocks(requests: Sequence[Request], block_tokens: int, setting: str = "block size") -> None:
    """Refuse, before any id is made, a study whose prompts cut into more than MAX_STUDY_BLOCK_IDS blocks;
    `setting` names the block-size control in the message (a CLI flag or a widget)."""
    if isinstance(block_tokens, bool) or not isinstance(block_tokens, int) or block_tokens < 1:
        raise InputError(f"{setting} must be a whole number of tokens >= 1, got {block_tokens!r}")
    num_blocks = num_prompt_blocks(requests, block_tokens)
    if num_blocks > MAX_STUDY_BLOCK_IDS:
        num_tokens = sum(request.prompt_tokens for request in requests)
        raise InputError(
            f"{setting} {block_tokens}: the prompts ({num_tokens:,} tokens) cut into {num_blocks:,} prefix block ids, "
            f"over the limit of {MAX_STUDY_BLOCK_IDS:,}; use larger blocks (at least "
            f"{-(-num_tokens // MAX_STUDY_BLOCK_IDS):,} tokens) or fewer requests")


def block_ids_from_requests(requests: Sequence[Request], block_tokens: int = 512,
                            setting: str = "block size") -> tuple[tuple[int, ...], ...]:
    """Each request's prompt cut into `block_tokens`-token blocks, as chained content ids (64-bit ints)."""
    check_num_prompt_blocks(requests, block_tokens, setting)
    return tuple(_prompt_block_ids(request.prompt_segments(), block_tokens) for request in requests)
