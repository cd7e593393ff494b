"""Which instance a request goes to: round-robin, or the least-loaded one as the router estimates it.

Invariant: a pure function of the requests (in the order given) and the cost model; every request gets exactly
one instance in [0, num_instances); ties go to the lowest index, so routing is deterministic.

The router cannot see inside the engines (vLLM's disaggregated proxy and SGLang's router only pick a URL), so
least-loaded uses the estimate a router can make from the request itself, priced by the same cost model as alone:
  - prefill instances: the one free earliest, each prompt adding its lone prefill time (a prefill instance runs
    prompts one after another; DistServe OSDI'24 §3.1 models it as an M/D/1 queue);
  - decode and colocated instances: the one with the fewest requests in flight, each request counted from its
    arrival until its lone end (prefill if any, then one decode step per further token): SGLang router's
    "shortest queue" / vLLM production-stack's "least requests" rule, with the queue estimated.
"""

from __future__ import annotations

import heapq
from typing import Callable, Sequence

from chunkviz.cost.roofline import shape_of
from chunkviz.errors import InputError
from chunkviz.request import Request

ROUTING_RULES: tuple[str, ...] = ("round-robin", "least-loaded")
StepPrice = Callable[..., object]  # a StepCoster: StepShape -> StepCost


def _check(rule: str, num_instances: int) -> None:
    if rule not in ROUTING_RULES:
        raise InputError(f"--routing must be one of {', '.join(ROUTING_RULES)}, got {rule!r}")
    if num_instances < 1:
        raise InputError(f"need at least one instance to route to, got {num_instances}")


def lone_prefill_s(coster: StepPrice, prompt_tokens: int) -> float:
    return coster(shape_of(((prompt_tokens, 0),), ())).total_s


def lone_decode_s(coster: StepPrice, context_tokens: int) -> float:
    return coster(shape_of((), (context_tokens,))).total_s


def route_prefill(requests: Sequence[Request], num_instances: int, rule: str, coster: StepPrice) -> list[int]:
    """Instance of each request (requests in arrival order)."""
    _check(rule, num_instances)
    if rule == "round-robin":
        return [i % num_instances for i in range(len(requests))]
    free_s = [0.0] * num_instances
    chosen = []
    for r in requests:
        index = min(range(num_instances), key=lambda k: (max(free_s[k], r.arrival_s), k))
        free_s[index] = max(free_s[index], r.arrival_s) + lone_prefill_s(coster, r.prompt_tokens)
        chosen.append(index)
    return chosen


def route_in_flight(requests: Sequence[Request], num_instances: int, rule: str, coster: StepPrice,
                    with_prefill: bool) -> list[int]:
    """Instance of each request (in the order given: arrival, or KV-ready time on the decode side)."""
    _check(rule, num_instances)
    if rule == "round-robin":
        return [i % num_instances for i in range(len(requests))]
    ends: list[list[float]] = [[] for _ in range(num_instances)]  # a heap of estimated ends per instance
    chosen = []
    for r in requests:
        for heap in ends:
            while heap and heap[0] <= r.arrival_s:  # bounded: each end is pushed once
                heapq.heappop(heap)
        index = min(range(num_instances), key=lambda k: (len(ends[k]), k))
        work_s = (r.output_tokens - 1) * lone_decode_s(coster, r.prompt_tokens)
        if with_prefill:
            work_s += lone_prefill_s(coster, r.prompt_tokens)
        heapq.heappush(ends[index], r.arrival_s + work_s)
        chosen.append(index)
    return chosen
