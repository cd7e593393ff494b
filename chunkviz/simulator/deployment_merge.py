"""One Trace for a whole deployment: the requests as the user saw them, the instances' steps and gaps pooled.

Invariant: the merged trace holds exactly one RequestResult per request given (ids ascending); every token gap of
every instance appears once in `tbt_gaps_s`; step lists are the instances' concatenated in instance order (so
MFU/MBU means weighted by step time are over all GPUs). Its `steps` is empty: one timeline per instance lives in
each InstanceRun's own trace. Block figures are per instance: num_gpu_blocks is one instance's cache, the peak is
the fullest instance's, evictions and blocks in use at the end are summed.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

import numpy as np

from chunkviz.config import SimConfig
from chunkviz.request import Request
from chunkviz.simulator.float_array import FloatArray
from chunkviz.simulator.trace import RequestResult, Trace


@dataclass(frozen=True, slots=True)
class InstanceRun:
    role: str  # "colocated", "prefill" or "decode"
    index: int  # within its role
    request_ids: tuple[int, ...]  # routed here, in arrival order (KV-ready order on the decode side)
    trace: Trace


@dataclass(frozen=True, slots=True)
class KvTransfer:
    """One prompt's KV cache crossing from a prefill instance to a decode instance."""

    request_id: int
    prefill_instance: int
    decode_instance: int
    num_bytes: int
    prefill_start_s: float  # first step of its prompt on the prefill instance
    prefill_end_s: float  # its first token was sampled
    start_s: float  # first byte on the wire
    ready_s: float  # the whole cache is at the decode instance (the decode side's arrival)

    @property
    def exposed_s(self) -> float:
        """Time the request waits for the link after its prefill: the transfer's share of its TTFT."""
        return self.ready_s - self.prefill_end_s


def merge_traces(config: SimConfig, instances: Sequence[InstanceRun], transfers: Sequence[KvTransfer],
                 requests: Sequence[Request]) -> Trace:
    results = _results(instances, requests)
    traces = [run.trace for run in instances]
    first = traces[0]
    gap_parts = [np.asarray(t.tbt_gaps_s, dtype=np.float64) for t in traces]
    gaps = np.concatenate(gap_parts) if gap_parts else np.zeros(0)
    return Trace(
        policy=first.policy, budget_tokens=first.budget_tokens, num_gpu_blocks=first.num_gpu_blocks,
        kv_pool_bytes=first.kv_pool_bytes,
        block_size=first.block_size, steps=(), requests=results,
        num_steps=sum(t.num_steps for t in traces), makespan_s=max(t.makespan_s for t in traces),
        busy_s=sum(t.busy_s for t in traces),
        tbt_gaps_s=tuple(gaps.tolist()) if config.record_detail else FloatArray.adopt(gaps),
        step_durations_s=tuple(x for t in traces for x in t.step_durations_s),
        step_mfu=tuple(x for t in traces for x in t.step_mfu), step_mbu=tuple(x for t in traces for x in t.step_mbu),
        peak_blocks_used=max(t.peak_blocks_used for t in traces),
        blocks_in_use_at_end=sum(t.blocks_in_use_at_end for t in traces),
        num_evicted_blocks=sum(t.num_evicted_blocks for t in traces),
        num_stall_steps=sum(t.num_stall_steps for t in traces), max_num_seqs=first.max_num_seqs,
        prefix_caching=first.prefix_caching,
        fast_forwarded_steps=sum(t.fast_forwarded_steps for t in traces), knob_notes=first.knob_notes)


def _results(instances: Sequence[InstanceRun], requests: Sequence[Request]) -> tuple[RequestResult, ...]:
    original = {r.request_id: r for r in requests}
    prefill: dict[int, RequestResult] = {}
    decode: dict[int, RequestResult] = {}
    for run in instances:
        target = decode if run.role == "decode" else prefill
        for res in run.trace.requests:
            target[res.request_id] = res
    merged = []
    for rid in sorted(original):
        p = replace(prefill[rid], output_tokens=original[rid].output_tokens)
        d = decode.get(rid)
        merged.append(p if d is None else _joined(p, d))
    return tuple(merged)


def _joined(p: RequestResult, d: RequestResult) -> RequestResult:
    """The prefill's arrival, start and prefix lookups; the decode side's first token (it came with the KV),
    tokens, finish and gaps; preemptions of both."""
    return replace(d, arrival_s=p.arrival_s, first_scheduled_s=p.first_scheduled_s,
                   num_preemptions=p.num_preemptions + d.num_preemptions,
                   prefix_hit_tokens=p.prefix_hit_tokens, prefix_query_tokens=p.prefix_query_tokens,
                   prefix_hit_tokens_readmitted=p.prefix_hit_tokens_readmitted + d.prefix_hit_tokens_readmitted,
                   prefix_query_tokens_readmitted=p.prefix_query_tokens_readmitted + d.prefix_query_tokens_readmitted)
