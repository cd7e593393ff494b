"""Chapter 7, "Split the kitchen": chapter 2's workload on two GPUs, colocated chunked against 1P+1D, a small
sweep of goodput per GPU over the documents' length and the KV link's speed, and the load axis: at each document
length and offered load, which deployment meets the SLO (TTFT p90 and TBT p99 from one run each).

Invariant: every figure is a deterministic run of the simulator (chunkviz.simulator.deployment.run_deployment and
chunkviz.analysis.deployment.max_goodput_per_gpu); the two deployments of a comparison run the same requests on the
same number of GPUs, so "per GPU" compares like with like.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

from chunkviz.analysis.deployment import RateSlo, max_goodput_per_gpu, run_deployment_scenario
from chunkviz.analysis.capacity import at_rate
from chunkviz.analysis.metrics import summarize
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
# The sweep: the links the issue names (a slow NIC, PCIe, and a slow link), documents short to the model's
# context (Llama-3-8B, 8,192 tokens), and the SLO of scripts/disagg_figures.py (TTFT p90 500 ms, TBT p99 50 ms).
# The slow link is 3 GB/s, the rate measured for MooncakeConnector KV migrations between vLLM instances under load
# (shared/guides/costmodel.md); it was 5 GB/s until the engines' host time (issue 36) made each step slower, after
# which 1P+1D over 5 GB/s still kept a lead with 7k-token documents (14.5 vs 14 req/s per GPU).
SWEEP_LINKS = ("pcie", "rdma-100", "3")
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


def deployment_scenario(doc_tokens: int, deployment: str) -> Scenario:
    """Colocated at the lecture's budget (512, chapter 2); 1P+1D at the engine's default budget, as
    scripts/disagg_figures.py runs it (a prefill instance has no token gaps to protect)."""
    base = sweep_scenario(doc_tokens)
    if deployment == "colocated":
        return replace(lesson_run(base, DECODE_FIRST), deployment=spec_for("colocated"))
    return replace(base.with_policy(DECODE_FIRST, None), deployment=spec_for("disagg", deployment))


def sweep_cell(doc_tokens: int, deployment: str) -> SweepCell:
    scenario = deployment_scenario(doc_tokens, deployment)
    return SweepCell(doc_tokens, deployment, max_goodput_per_gpu(scenario, SWEEP_SLO, tolerance=SWEEP_TOLERANCE))


@lru_cache(maxsize=1)
def sweep() -> tuple[SweepCell, ...]:
    """Every (document length, deployment) cell: colocated first, then 1P+1D over each link."""
    return tuple(sweep_cell(doc, dep) for doc in SWEEP_DOC_TOKENS for dep in ("colocated",) + SWEEP_LINKS)


# The load axis: requests/s offered to the two GPUs together, from well below every cell's goodput to above the
# highest (the sweep above: 2 x 96 req/s per GPU at 2,000-token documents); colocated against 1P+1D over the
# slide's link. 3 lengths x 9 loads x 2 deployments = 54 runs of SWEEP_NUM_REQUESTS requests, about a second.
LOADS_QPS = (10.0, 20.0, 30.0, 40.0, 60.0, 90.0, 120.0, 160.0, 240.0)
LOAD_DEPLOYMENTS = ("colocated", SLIDE_LINK)
LOAD_CHART_DOC_TOKENS = 4000  # the length drawn as curves: the winner changes with the load there
WINNERS = ("both", "colocated", "disagg", "neither")


@dataclass(frozen=True, slots=True)
class LoadCell:
    doc_tokens: int
    deployment: str  # "colocated" or the link of 1P+1D (LOAD_DEPLOYMENTS)
    qps: float  # offered to both GPUs together
    ttft_p90_s: float | None
    tbt_p99_s: float | None
    meets_slo: bool  # SWEEP_SLO, as max_goodput_per_gpu judges a rate (analysis/deployment.py meets)


def load_cell(doc_tokens: int, deployment: str, qps: float) -> LoadCell:
    m = summarize(run_deployment_scenario(at_rate(deployment_scenario(doc_tokens, deployment), qps)).trace)
    ttft, tbt = m.ttft_s.p90, m.tbt_s.p99
    meets = (m.num_rejected == 0 and ttft is not None and ttft <= SWEEP_SLO.ttft_p90_s
             and (tbt is None or tbt <= SWEEP_SLO.tbt_p99_s))
    return LoadCell(doc_tokens, deployment, qps, ttft, tbt, meets)


@lru_cache(maxsize=1)
def load_sweep() -> tuple[LoadCell, ...]:
    """Every (document length, load, deployment) run, in that order."""
    return tuple(load_cell(doc, dep, qps) for doc in SWEEP_DOC_TOKENS for qps in LOADS_QPS
                 for dep in LOAD_DEPLOYMENTS)


def load_winner(cells: tuple[LoadCell, ...], doc_tokens: int, qps: float) -> str:
    """One of WINNERS: which deployments meet the SLO at this length and load (both on the same two GPUs, so a
    deployment that meets it where the other does not serves that load per GPU and the other does not)."""
    met = {c.deployment: c.meets_slo for c in cells if c.doc_tokens == doc_tokens and c.qps == qps}
    colocated, disagg = met["colocated"], met[LOAD_DEPLOYMENTS[1]]
    return "both" if colocated and disagg else "colocated" if colocated else "disagg" if disagg else "neither"
