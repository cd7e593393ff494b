"""Chapter 7, "Split the kitchen": chapter 2's workload on two GPUs, colocated chunked against 1P+1D, and a small
sweep of goodput per GPU over the documents' length and the KV link's speed.

Invariant: every figure is a deterministic run of the simulator (chunkviz.simulator.deployment.run_deployment and
chunkviz.analysis.deployment.max_goodput_per_gpu); the two deployments of a comparison run the same requests on the
same number of GPUs, so "per GPU" compares like with like.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

from chunkviz.analysis.deployment import RateSlo, max_goodput_per_gpu, run_deployment_scenario
from chunkviz.analysis.scenario import Scenario
from chunkviz.config import CacheConfig
from chunkviz.lessons.chapters import DECODE_FIRST, PRESETS, lesson_run
from chunkviz.request import PRIORITY_BATCH
from chunkviz.simulator.deployment import DeploymentRun, DeploymentSpec
from chunkviz.simulator.kv_link import parse_kv_link
from chunkviz.workloads.generators import WorkloadSpec
from chunkviz.workloads.presets import make_workload

DEPLOYMENT_KINDS = ("colocated", "disagg")
# The slide's link: two GPUs without NVLink talk over PCIe Gen5 (kv_link.py KV_LINKS["pcie"], 64 GB/s); the KV
# streams layer by layer during the prefill (kv_link.py transfer_times, the engines' default: LMCache, Mooncake).
SLIDE_LINK = "pcie"
SLIDE_TRANSFER = "layerwise"
# The sweep: the links the issue names (a slow NIC, PCIe, and a 5 GB/s link), documents short to the model's
# context (Llama-3-8B, 8,192 tokens), and the SLO of scripts/disagg_figures.py (TTFT p90 500 ms, TBT p99 50 ms).
SWEEP_LINKS = ("pcie", "rdma-100", "5")
SWEEP_DOC_TOKENS = (2000, 4000, 7000)
SWEEP_NUM_REQUESTS = 96  # twelve documents among 84 chats: enough for a TTFT p90, small enough for seconds
SWEEP_SLO = RateSlo(ttft_p90_s=0.5, tbt_p99_s=0.05)
SWEEP_TOLERANCE = 0.05  # the rate search's bisection tolerance (analysis/deployment.py max_goodput_per_gpu)


def spec_for(kind: str, link: str = SLIDE_LINK) -> DeploymentSpec:
    """Two GPUs either way: two colocated instances, or one prefill and one decode instance joined by `link`."""
    if kind == "colocated":
        return DeploymentSpec(kind="colocated", num_instances=2)
    return DeploymentSpec(kind="disagg", kv_link=parse_kv_link(link), transfer_mode=SLIDE_TRANSFER)


def split_scenario(kind: str, link: str = SLIDE_LINK) -> Scenario:
    """Chapter 2's six requests with its chunked engine (budget 512) on each instance, deployed as `kind`."""
    return replace(lesson_run(PRESETS["two-gpus"], DECODE_FIRST), deployment=spec_for(kind, link))


@lru_cache(maxsize=4)  # deterministic: the slide, its question and the tests share one run per kind
def split_run(kind: str, link: str = SLIDE_LINK) -> DeploymentRun:
    return run_deployment_scenario(split_scenario(kind, link))


def sweep_scenario(doc_tokens: int) -> Scenario:
    """The long-among-chats preset (scripts/disagg_figures.py `scenario`) with its documents set to `doc_tokens`."""
    requests = make_workload("long-among-chats", WorkloadSpec(num_requests=SWEEP_NUM_REQUESTS, qps=1.0,
                                                              prompt_tokens=300, output_tokens=128, seed=0))
    requests = tuple(replace(r, prompt_tokens=doc_tokens) if r.priority == PRIORITY_BATCH else r for r in requests)
    # Prefix caching off (vLLM V1 ships it on): these prompts share nothing, so it changes no figure (tests/
    # test_prefix_caching_default.py checks the same of the lecture's runs), and without it the search's hundreds of
    # metrics-only runs keep the fast path (simulator/fast_forward.py leaves prefix caching to the exact loop).
    return Scenario(record_detail=False, explicit_requests=requests, cache=CacheConfig(enable_prefix_caching=False))


@dataclass(frozen=True, slots=True)
class SweepCell:
    doc_tokens: int
    deployment: str  # "colocated" or a link name of SWEEP_LINKS (1P+1D over it)
    goodput_per_gpu: float  # requests/s per GPU meeting SWEEP_SLO (DistServe's per-GPU goodput)


def sweep_cell(doc_tokens: int, deployment: str) -> SweepCell:
    """Colocated at the lecture's budget (512, chapter 2); 1P+1D at the engine's default budget, as
    scripts/disagg_figures.py runs it (a prefill instance has no token gaps to protect)."""
    base = sweep_scenario(doc_tokens)
    if deployment == "colocated":
        scenario = replace(lesson_run(base, DECODE_FIRST), deployment=spec_for("colocated"))
    else:
        scenario = replace(base.with_policy(DECODE_FIRST, None), deployment=spec_for("disagg", deployment))
    return SweepCell(doc_tokens, deployment, max_goodput_per_gpu(scenario, SWEEP_SLO, tolerance=SWEEP_TOLERANCE))


@lru_cache(maxsize=1)
def sweep() -> tuple[SweepCell, ...]:
    """Every (document length, deployment) cell: colocated first, then 1P+1D over each link."""
    return tuple(sweep_cell(doc, dep) for doc in SWEEP_DOC_TOKENS for dep in ("colocated",) + SWEEP_LINKS)
