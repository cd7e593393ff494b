"""Prefix keys as integers: the key of a full block computed by arithmetic instead of a hash chain.

Invariant: for two sequences and two block ends, `ContentKeys.key_at` gives equal integers exactly when
BlockManager's chained blake2b keys of those blocks are equal (collisions of the 8-byte hash aside): when the token
ids of [0, end) are equal in both.

Why that holds: request.py's content model says a prompt is a list of segments (key, num_tokens) whose token ids are
a function of (segment key, offset), followed by the sequence's own output segment. The tokens [0, end) are then
fully described by the segments passed whole before `end` (their keys and lengths) and the key of the segment `end`
falls in plus how far into it `end` lies. The segments passed whole are interned as one integer node per distinct
path (a trie of (parent node, parent segment's length, segment key)), so key = node · KEY_STRIDE + offset in the
segment. BlockManager's chain key hashes the same thing block by block: the runs (segment key, from, to) of every
block up to `end`, which at fixed block boundaries are determined by the same segment list. Zero-length segments
hold no tokens and appear in no block's runs, so they are skipped here too.

The nodes are few (one per distinct segment path: about one per request and segment), so the table stays small
while the keys themselves are never stored as strings.
"""

from __future__ import annotations

KEY_STRIDE = 1 << 32  # offsets into a segment stay below this (max_model_len is far smaller)

# (start token, end token or None for the open output segment, base): key of a block ending at e in it = base + e
Plan = tuple[tuple[int, float, int], ...]


class ContentKeys:
    """The trie of segment paths shared by every sequence of one run."""

    def __init__(self) -> None:
        self._nodes: dict[tuple[int, int, str], int] = {}

    def _node(self, parent: int, parent_len: int, key: str) -> int:
        nodes = self._nodes
        node = nodes.get((parent, parent_len, key))
        if node is None:
            node = nodes[(parent, parent_len, key)] = len(nodes) + 1
        return node

    def plan_of(self, seq: object) -> Plan:
        """Per segment of `seq` (prompt segments, then its output): where it starts and the base its block keys add
        their end token to. Matches SeqState.content's segment list and output key."""
        request = seq.request
        out_key = request.output_key or f"r{request.request_id}.out"
        if seq.sample_index:
            out_key += f".s{seq.sample_index}"
        plan, node, parent_len, start = [], 0, 0, 0
        for segment in seq.prompt_segments:
            if segment.num_tokens <= 0:
                continue
            node = self._node(node, parent_len, segment.key)
            plan.append((start, start + segment.num_tokens, node * KEY_STRIDE - start))
            parent_len = segment.num_tokens
            start += segment.num_tokens
        node = self._node(node, parent_len, out_key)
        plan.append((start, float("inf"), node * KEY_STRIDE - start))
        return tuple(plan)


def key_at(plan: Plan, end_tokens: int) -> int:
    """The key of the full block that ends at `end_tokens` (> 0)."""
    for start, end, base in plan:
        if end_tokens <= end:
            return base + end_tokens
    raise AssertionError("the output segment is open-ended")


def keys_between(plan: Plan, first_end: int, last_end: int, block_size: int) -> list[int]:
    """Keys of the blocks ending at first_end, first_end + block_size, ..., last_end (inclusive), as ranges per
    segment (consecutive blocks of one segment have consecutive ends, so their keys are an arithmetic run)."""
    keys: list[int] = []
    end_tokens = first_end
    for start, end, base in plan:
        if end_tokens > last_end:
            break
        if end_tokens > end:
            continue
        stop = min(end, last_end)  # the last block end that lies in this segment
        stop -= (stop - end_tokens) % block_size
        keys.extend(range(base + end_tokens, base + stop + 1, block_size))
        end_tokens = stop + block_size
    return keys
