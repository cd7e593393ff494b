"""A policy's own state over a fast-forwarded stretch (PolicyEntry.fast_path_replay) equals what its exact schedule
calls leave, float for float: SGLang's new_token_ratio (decayed once per step, floored, from above or below the
floor), its batch_is_full latch (cleared once the batch shrinks) and the running count it remembers."""

from __future__ import annotations

from collections import deque

import pytest

from chunkviz.config import SchedulerConfig
from chunkviz.request import Request
from chunkviz.simulator.kv.counting import CountingKvManager
from chunkviz.simulator.knobs import Knobs
from chunkviz.simulator.policies import sglang
from chunkviz.simulator.policies.registry import REGISTRY, PolicyEntry
from chunkviz.simulator.sched_common import SchedContext
from chunkviz.simulator.sequence import SeqState


def _steady_context(num_seqs: int, state: dict[str, float]) -> SchedContext:
    """Decode-ready sequences, nothing waiting, blocks to spare: the state a stretch starts from."""
    running = []
    for i in range(num_seqs):
        seq = SeqState(request=Request(i, 0.0, 40 + i, 500))
        seq.num_output_tokens, seq.num_tokens = 3, seq.num_tokens + 3
        seq.num_computed_tokens = seq.num_tokens - 1
        seq.key = (i, 0)
        running.append(seq)
    knobs = Knobs(max_num_batched_tokens=512, max_num_seqs=256, long_prefill_token_threshold=0, chunks_prompts=True,
                  reserve_prompt=True, max_model_len_tokens=8192)
    return SchedContext(running=running, waiting=deque(), kv=CountingKvManager(10_000, 16),
                        scheduler=SchedulerConfig(policy="sglang"), knobs=knobs, emit=lambda event: None,
                        policy_state=dict(state))


CASES = {  # (state before the stretch, running count at each step's planning)
    "decay-no-shrink-latched": ({"new_token_ratio": 0.5, sglang.BATCH_IS_FULL: 1.0,
                                 sglang.RUNNING_AFTER_LAST_PLAN: 6.0}, [6] * 40),
    "shrink-inside-clears-latch": ({"new_token_ratio": 0.7, sglang.BATCH_IS_FULL: 1.0,
                                    sglang.RUNNING_AFTER_LAST_PLAN: 6.0}, [6] * 5 + [4] * 5 + [1] * 3),
    "shrink-at-entry": ({"new_token_ratio": 0.7, sglang.BATCH_IS_FULL: 1.0,
                         sglang.RUNNING_AFTER_LAST_PLAN: 8.0}, [6, 6]),
    "shrank-flag-left-by-a-prefill-step": ({"new_token_ratio": 0.3, sglang.BATCH_IS_FULL: 1.0, sglang.SHRANK: 1.0,
                                            sglang.RUNNING_AFTER_LAST_PLAN: 6.0}, [6] * 3),
    "reaches-the-floor": ({"new_token_ratio": 0.7, sglang.RUNNING_AFTER_LAST_PLAN: 6.0}, [6] * 700),
    "starts-below-the-floor": ({"new_token_ratio": 0.05, sglang.RUNNING_AFTER_LAST_PLAN: 6.0}, [6] * 4),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_sglang_replay_leaves_the_exact_loops_state(name):
    state, counts = CASES[name]
    exact = _steady_context(counts[0], state)
    for n in counts:  # the exact loop: finishes leave between steps, then schedule_sglang plans a decode step
        del exact.running[n:]
        plan = sglang.schedule_sglang(exact)
        assert [s for s, _ in plan.items] == exact.running and not plan.preempted  # a pure decode step
    fast = _steady_context(counts[0], state)
    sglang.replay_decode_steps(fast, counts)
    assert fast.policy_state == exact.policy_state
    assert fast.policy_state["new_token_ratio"] == exact.policy_state["new_token_ratio"]  # bit for bit


def test_a_replay_needs_a_decode_only_fast_path():
    entry = REGISTRY["sglang"]
    assert entry.fast_path and entry.fast_path_replay is sglang.replay_decode_steps
    fields = {f: getattr(entry, f) for f in PolicyEntry.__dataclass_fields__}
    with pytest.raises(ValueError, match="fast_path_replay replays decode-only stretches"):
        PolicyEntry(**{**fields, "fast_path_absorbs_arrivals": True, "fast_path_prefill_first": False})
    with pytest.raises(ValueError, match="fast_path_prefill_first needs fast_path_absorbs_arrivals"):
        PolicyEntry(**{**fields, "fast_path_absorbs_arrivals": False})
    # SGLang absorbs arrivals as prefill-only steps, unless --enable-mixed-chunk adds the decodes to them
    assert entry.fast_path_prefill_first and entry.absorbs(SchedulerConfig("sglang", 512))
    assert not entry.absorbs(SchedulerConfig("sglang", 512, sglang_enable_mixed_chunk=True))
