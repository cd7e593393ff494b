"""Small builders shared by the core tests, and where the project's shared data lies.

Invariant: no path here names the machine the code was written on: the shared data is $CHUNKVIZ_SHARED when set,
else ../shared beside the clone (as CI has it), so a clone anywhere works and a test whose data is absent skips.
"""

from __future__ import annotations

import os
from pathlib import Path

from chunkviz.cost.catalogue import get_gpu, get_model
from chunkviz.config import CacheConfig, SchedulerConfig, SimConfig
from chunkviz.request import Request

REPO = Path(__file__).resolve().parents[1]
SHARED_ENV = "CHUNKVIZ_SHARED"


def shared_path(relative: str = "") -> Path:
    """A path in the shared data (traces, guides, profiles): under $CHUNKVIZ_SHARED, else ../shared beside the clone."""
    root = os.environ.get(SHARED_ENV)
    return (Path(root) if root else REPO.parent / "shared") / relative


def shared_missing(path: Path) -> str:
    """The skip reason for a test or benchmark whose shared data is absent."""
    return f"{path} not found (shared data: set {SHARED_ENV}, or put the shared folder beside the clone as ../shared)"


def make_config(policy: str = "chunked", budget: int | None = 512, num_gpu_blocks: int | None = None,
                max_num_seqs: int | None = None, threshold: int = 0, detail: bool = True, block_size: int = 16,
                prefix_caching: bool = False, eviction: str = "lru", allocation: str = "incremental",
                mixed: bool = False, max_num_steps: int = 2_000_000,
                parallel_sampling: str = "v1-children") -> SimConfig:
    return SimConfig(
        model=get_model("llama-3-8b"), gpu=get_gpu("h100-sxm"),
        scheduler=SchedulerConfig(policy=policy, max_num_batched_tokens=budget, max_num_seqs=max_num_seqs,
                                  long_prefill_token_threshold=threshold, sglang_enable_mixed_chunk=mixed,
                                  parallel_sampling=parallel_sampling),
        cache=CacheConfig(block_size=block_size, num_gpu_blocks=num_gpu_blocks, enable_prefix_caching=prefix_caching,
                          eviction=eviction, allocation=allocation),
        record_detail=detail, max_num_steps=max_num_steps)


def make_requests(specs: list[tuple[float, int, int]]) -> tuple[Request, ...]:
    """Requests from (arrival_s, prompt_tokens, output_tokens) triples, ids in order."""
    return tuple(Request(i, a, p, o) for i, (a, p, o) in enumerate(specs))
