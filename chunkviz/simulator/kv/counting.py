"""A block counter with the BlockManager's interface, for large metrics-only runs.

Invariant: it makes exactly the allocation decisions a BlockManager without prefix caching or forking makes (a
test replays both), but keeps no block identities, so it is cheap enough for tens of thousands of requests.
"""

from __future__ import annotations

from chunkviz.simulator.kv.blocks import ContentFn, SeqKey


class CountingKvManager:
    def __init__(self, num_blocks: int, block_size: int) -> None:
        self.num_total_blocks = num_blocks
        self.block_size = block_size
        self.enable_prefix_caching = False
        self.num_evicted_blocks = 0
        self._num_free = num_blocks
        self.num_seq_blocks: dict[SeqKey, int] = {}
        self.tracks_content = False

    def num_free_blocks(self) -> int:
        return self._num_free

    def num_used_blocks(self) -> int:
        return self.num_total_blocks - self._num_free

    def num_table_blocks(self, seq: SeqKey) -> int:
        return self.num_seq_blocks.get(seq, 0)

    def blocks_for(self, num_tokens: int) -> int:
        return -(-num_tokens // self.block_size)

    def covers(self, seq: SeqKey, write_start: int, end_tokens: int) -> bool:
        """No copies and no keys here: the blocks held cover the tokens."""
        return self.num_seq_blocks.get(seq, 0) * self.block_size >= end_tokens

    def find_prefix_hit(self, content_fn: ContentFn, max_hit_tokens: int) -> list[int]:
        return []

    def allocate(self, seq: SeqKey, write_start: int, target_tokens: int, hit_block_ids: list[int] = ()) -> bool:
        have = self.num_seq_blocks.get(seq, 0)
        num_new = -(-target_tokens // self.block_size) - have
        if num_new <= 0:
            self.num_seq_blocks[seq] = have
            return True
        if num_new > self._num_free:
            return False
        self._num_free -= num_new
        self.num_seq_blocks[seq] = have + num_new
        return True

    def fork(self, parent: SeqKey, child: SeqKey) -> None:
        raise NotImplementedError("parallel sampling needs the paged BlockManager")

    def free(self, seq: SeqKey) -> int:
        num = self.num_seq_blocks.pop(seq, 0)
        self._num_free += num
        return num

    def cache_blocks(self, seq: SeqKey, content_fn: ContentFn, num_tokens: int) -> None:
        return None

    def on_computed(self, seq: SeqKey, content_fn: ContentFn, old_tokens: int, new_tokens: int,
                    cache: bool = True) -> None:
        return None
