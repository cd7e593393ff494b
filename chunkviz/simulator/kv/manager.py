"""The interface every KV manager offers the scheduler and the engine (the paged BlockManager, the counting one).

Invariant: a manager never lets blocks in use exceed num_total_blocks; allocate() either takes every block asked
for or none (and returns False), so a failed allocation leaves the cache as it was.
"""

from __future__ import annotations

from typing import Protocol

from chunkviz.simulator.kv.blocks import ContentFn, SeqKey


class KvManager(Protocol):
    num_total_blocks: int
    block_size: int
    enable_prefix_caching: bool
    num_evicted_blocks: int
    tracks_content: bool  # True when the manager keeps block identities and prefix keys (needs on_computed)

    def num_free_blocks(self) -> int: ...

    def num_used_blocks(self) -> int: ...

    def blocks_for(self, num_tokens: int) -> int: ...

    def num_table_blocks(self, seq: SeqKey) -> int: ...

    def covers(self, seq: SeqKey, write_start: int, end_tokens: int) -> bool: ...

    def find_prefix_hit(self, content_fn: ContentFn, max_hit_tokens: int) -> list[int]: ...

    def allocate(self, seq: SeqKey, write_start: int, target_tokens: int,
                 hit_block_ids: list[int] = ...) -> bool: ...

    def fork(self, parent: SeqKey, child: SeqKey) -> None: ...

    def free(self, seq: SeqKey) -> int: ...

    def cache_blocks(self, seq: SeqKey, content_fn: ContentFn, num_tokens: int) -> None: ...

    def on_computed(self, seq: SeqKey, content_fn: ContentFn, old_tokens: int, new_tokens: int,
                    cache: bool = True) -> None: ...

    def block_key_at(self, content_fn: ContentFn, end_tokens: int) -> object: ...
