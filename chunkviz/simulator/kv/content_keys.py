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

Private nodes: given the run's requests up front, a node on the path of exactly one sequence can only ever be looked
up by that sequence, and a sequence looks up its own blocks only when it comes back after a preemption. Keys under
such a node are negated (the lean cache keeps them out of its index until the sequence is preempted:
LeanPrefixCache.expose_own_keys). A node's users are a subset of its parent's, so along a sequence's segments the
public nodes come first and the private ones after.
"""

from __future__ import annotations

KEY_STRIDE = 1 << 32  # offsets into a segment stay below this (max_model_len is far smaller)

# Per segment: (start token, end token (inf for the open output segment), base, private); the key of a block ending
# at e in it is base + e, negated when the segment's node is private.
Plan = tuple[tuple[int, float, int, bool], ...]


class ContentKeys:
    """The trie of segment paths shared by every sequence of one run, with how many sequences use each node."""

    def __init__(self) -> None:
        self._nodes: dict[tuple[int, int, str], int] = {}
        self._users: dict[int, int] = {}  # node -> sequences on its path (counted by count_users; absent: public)
        # count_users' paths, kept until each sequence's first plan_of (which would build the same path again)
        self._counted_paths: dict[tuple[int, int], list[tuple[int, int, int]]] = {}

    def _node(self, parent: int, parent_len: int, key: str) -> int:
        nodes = self._nodes
        node = nodes.get((parent, parent_len, key))
        if node is None:
            node = nodes[(parent, parent_len, key)] = len(nodes) + 1
        return node

    def _path(self, request: object, sample_index: int, segments: tuple) -> list[tuple[int, int, int]]:
        """(node, start, end) per segment, output last; SeqState.content's segment list and output key."""
        out_key = request.output_key or f"r{request.request_id}.out"
        if sample_index:
            out_key += f".s{sample_index}"
        path, node, parent_len, start = [], 0, 0, 0
        for segment in segments:
            if segment.num_tokens <= 0:
                continue
            node = self._node(node, parent_len, segment.key)
            path.append((node, start, start + segment.num_tokens))
            parent_len = segment.num_tokens
            start += segment.num_tokens
        path.append((self._node(node, parent_len, out_key), start, float("inf")))
        return path

    def count_users(self, requests: object) -> None:
        """Count every sequence the run will hold (one per sample of each request) on each node of its path."""
        users, paths = self._users, self._counted_paths
        for request in requests:
            segments = request.prompt_segments()
            for sample in range(request.n_samples):
                path = paths[(request.request_id, sample)] = self._path(request, sample, segments)
                for node, _, _ in path:
                    users[node] = users.get(node, 0) + 1

    def plan_of(self, seq: object, exposed: bool = False) -> Plan:
        """The key plan of `seq`; with `exposed` (it was preempted) none of its nodes counts as private."""
        users = self._users
        path = self._counted_paths.pop((seq.request.request_id, seq.sample_index), None)
        if path is None:  # a sequence planned again (preempted), or not counted
            path = self._path(seq.request, seq.sample_index, seq.prompt_segments)
        return tuple((start, end, node * KEY_STRIDE - start, not exposed and users.get(node) == 1)
                     for node, start, end in path)


NO_PRIVATE_TOKENS = 1 << 62  # private_from of a plan without private segments (an int: floor division stays exact)


def private_from(plan: Plan) -> int:
    """The first token of the plan's first private segment: a block ending past it has a private key."""
    for start, _, _, private in plan:
        if private:
            return start
    return NO_PRIVATE_TOKENS


def key_at(plan: Plan, end_tokens: int) -> int:
    """The key of the full block that ends at `end_tokens` (> 0); negative when private."""
    for start, end, base, private in plan:
        if end_tokens <= end:
            return -(base + end_tokens) if private else base + end_tokens
    raise AssertionError("the output segment is open-ended")


def keys_between(plan: Plan, first_end: int, last_end: int, block_size: int) -> list[int]:
    """Keys of the blocks ending at first_end, first_end + block_size, ..., last_end (inclusive), as ranges per
    segment (consecutive blocks of one segment have consecutive ends, so their keys are an arithmetic run)."""
    keys: list[int] = []
    end_tokens = first_end
    for start, end, base, private in plan:
        if end_tokens > last_end:
            break
        if end_tokens > end:
            continue
        stop = min(end, last_end)  # the last block end that lies in this segment
        stop -= (stop - end_tokens) % block_size
        if private:
            keys.extend(range(-(base + end_tokens), -(base + stop) - 1, -block_size))
        else:
            keys.extend(range(base + end_tokens, base + stop + 1, block_size))
        end_tokens = stop + block_size
    return keys
