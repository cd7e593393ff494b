"""The closing note of issue 24, measured in one run: goodput per GPU of colocated chunked GPUs against prefill–decode
disaggregation on chats among long documents, and the prompt length and link speed at which the winner changes.

Usage: .venv/bin/python scripts/disagg_figures.py [--num-requests 400] [--workers 1]

Invariant: every figure is a deterministic simulation (chunkviz.analysis.deployment.max_goodput_per_gpu: the highest
arrival rate meeting TTFT p90 <= 500 ms and TBT p99 <= 50 ms with nothing rejected, over the GPUs; DistServe's
per-GPU goodput), so the same arguments print the same tables on any machine.

Setup, and why: the `long-among-chats` preset (chats of ~300 prompt / 128 output tokens; every 8th request a
6–8k-token document with <= 32 output tokens), Llama-3-8B on H100 SXM. 1/8 of the requests are documents, so the
TTFT p90 is a document's: the SLO asks that a document's first token come within 500 ms. Every instance runs vLLM
V1's chunked policy; colocated GPUs take the best budget of COLOCATED_BUDGETS (a smaller one keeps token gaps short,
a larger one finishes documents sooner), disaggregated instances the engine's default budget (a prefill instance
has no token gaps to protect; a decode instance schedules only decodes). Routing is least-loaded (round-robin
sends every 8th request, each document, to the same instance when the instance count divides 8: shown once).
Table B uses Mistral-7B, whose 32k context allows documents past 8k tokens and whose KV per token (32 layers, 8 KV
heads of 128, bf16: 128 KiB) equals Llama-3-8B's.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from chunkviz.analysis.deployment import RateSlo, max_goodput_per_gpu  # noqa: E402
from chunkviz.analysis.parallel import map_ordered  # noqa: E402
from chunkviz.analysis.scenario import Scenario  # noqa: E402
from chunkviz.cost.catalogue import MODELS  # noqa: E402
from chunkviz.request import PRIORITY_BATCH  # noqa: E402
from chunkviz.simulator.deployment import DeploymentSpec  # noqa: E402
from chunkviz.simulator.kv_link import KV_LINKS, parse_kv_link  # noqa: E402
from chunkviz.workloads.generators import WorkloadSpec  # noqa: E402
from chunkviz.workloads.presets import make_workload  # noqa: E402

SLO = RateSlo(ttft_p90_s=0.5, tbt_p99_s=0.05)
COLOCATED_BUDGETS = (512, 1024, 2048)
DOC_TOKENS = (4000, 6000, 8000, 10000, 12000, 14000, 16000)
LINKS = ("nvlink", "rdma-400", "rdma-100", "8", "5", "3", "2")
LINK_DOC_TOKENS = 12000
SEARCH_TOLERANCE = 0.02  # max_goodput_per_gpu's default bisection tolerance


def scenario(num_requests: int, model: str = "llama-3-8b", doc_tokens: int | None = None) -> Scenario:
    """The preset's requests (documents set to `doc_tokens` when given), replayed at any rate by the search."""
    requests = make_workload("long-among-chats", WorkloadSpec(num_requests=num_requests, qps=1.0,
                                                              prompt_tokens=300, output_tokens=128, seed=0))
    if doc_tokens is not None:
        requests = tuple(replace(r, prompt_tokens=doc_tokens) if r.priority == PRIORITY_BATCH else r
                         for r in requests)
    return Scenario(record_detail=False, model=MODELS[model], explicit_requests=requests)


def colocated(n: int, routing: str = "least-loaded") -> DeploymentSpec:
    return DeploymentSpec(num_instances=n, routing=routing)


# Which links the tables run: "shipped" (connectors as measured: the presets' effective rates and per-transfer setup,
# vLLM's NIXL pull after the prefill; simulator/kv_link.py) or "wire-peak" (the model the first tables were made with:
# a preset's "-peak" twin, a number with no setup, layer by layer). Set by --links.
LINK_MODELS = ("shipped", "wire-peak")
_MODEL = {"links": "shipped"}


def wire_link(link: str):
    """The link `link` under the chosen model (see LINK_MODELS)."""
    if _MODEL["links"] == "wire-peak":
        return parse_kv_link(f"{link}-peak" if f"{link}-peak" in KV_LINKS else link, 0.0)
    return parse_kv_link(link)


def default_mode() -> str:
    """Tables A and B: the engine's own transfer (vLLM's connector pulls after the prefill), or the first tables'
    layer-by-layer streaming under the wire-peak model."""
    return "layerwise" if _MODEL["links"] == "wire-peak" else "after-prefill"


def disagg(p: int, d: int, link: str = "nvlink", mode: str | None = None) -> DeploymentSpec:
    return DeploymentSpec("disagg", num_prefill_instances=p, num_decode_instances=d, kv_link=wire_link(link),
                          transfer_mode=mode or default_mode(), routing="least-loaded")


def search(job: tuple[Scenario, DeploymentSpec, int | None]) -> float:
    base, spec, budget = job
    return max_goodput_per_gpu(replace(base.with_policy("chunked", budget), deployment=spec), SLO)


def best_colocated(base: Scenario, spec: DeploymentSpec, workers: int) -> tuple[float, int]:
    found = map_ordered(search, [(base, spec, b) for b in COLOCATED_BUDGETS], workers)
    return max(zip(found, COLOCATED_BUDGETS))


def _winner(scored: list[tuple[float, str]]) -> str:
    """The best, or a tie when the first two are within the search's tolerance (analysis/deployment.py: 2%)."""
    (best, name), (second, other) = sorted(scored, reverse=True)[:2]
    return f"tie {name} / {other}" if best <= second * (1 + SEARCH_TOLERANCE) else name


def _budget(value: float, budget: int) -> str:
    return str(budget) if value > 0 else "-"  # no budget meets the SLO even at the lowest rate


def table_a(num_requests: int, workers: int) -> None:
    base = scenario(num_requests)
    print(f"A. long-among-chats (documents 6-8k), Llama-3-8B, H100, NVLink {default_mode()}; max goodput per GPU (req/s)")
    rows = [("2 colocated chunked", colocated(2)), ("1P+1D", disagg(1, 1)), ("2P+2D", disagg(2, 2)),
            ("4 colocated chunked", colocated(4)), ("2P+1D (extra)", disagg(2, 1)),
            ("4 colocated, round-robin (extra)", colocated(4, "round-robin"))]
    for label, spec in rows:
        if spec.kind == "colocated":
            value, budget = best_colocated(base, spec, workers)
            print(f"  {label:34} {value:7.2f}   (budget {_budget(value, budget)})")
        else:
            print(f"  {label:34} {search((base, spec, None)):7.2f}")


def table_b(num_requests: int, workers: int) -> None:
    print(f"B. document length (Mistral-7B, 32k context): 2 colocated vs 1P+1D vs 2P+1D, NVLink {default_mode()}")
    print(f"  {'doc tokens':>10} {'2 colocated':>14} {'1P+1D':>7} {'2P+1D':>7}  winner")
    for doc in DOC_TOKENS:
        base = scenario(num_requests, "mistral-7b", doc)
        colo, budget = best_colocated(base, colocated(2), workers)
        one, two = map_ordered(search, [(base, disagg(1, 1), None), (base, disagg(2, 1), None)], workers)
        winner = _winner([(colo, "2 colocated"), (one, "1P+1D"), (two, "2P+1D")])
        print(f"  {doc:10d} {colo:8.2f} ({_budget(colo, budget):>4}) {one:7.2f} {two:7.2f}  {winner}")


def table_c(num_requests: int, workers: int) -> None:
    base = scenario(num_requests, "mistral-7b", LINK_DOC_TOKENS)
    colo, budget = best_colocated(base, colocated(2), workers)
    print(f"C. link speed, {LINK_DOC_TOKENS}-token documents (Mistral-7B): 2P+1D per GPU against 2 colocated "
          f"({colo:.2f}, budget {_budget(colo, budget)})")
    print(f"  {'link':>10} {'GB/s':>7} {'layerwise':>10} {'after-prefill':>14}  winner (layerwise / after)")
    for link in LINKS:
        values = map_ordered(search, [(base, disagg(2, 1, link, mode), None)
                                      for mode in ("layerwise", "after-prefill")], workers)
        winners = " / ".join(_winner([(v, "2P+1D"), (colo, "colocated")]) for v in values)
        gb = wire_link(link).bytes_per_s / 1e9
        print(f"  {KV_LINKS[link].name if link in KV_LINKS else link + ' GB/s':>10} {gb:7.1f} {values[0]:10.2f} "
              f"{values[1]:14.2f}  {winners}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--num-requests", type=int, default=400)
    parser.add_argument("--workers", type=int, default=1, help="local processes for the searches")
    parser.add_argument("--links", choices=LINK_MODELS, default="shipped",
                        help="connectors as shipped (effective rates, setup, the engine's transfer) or the wire's peak")
    args = parser.parse_args()
    _MODEL["links"] = args.links
    print(f"links: {args.links} (tables A and B transfer {default_mode()})")
    print(f"SLO: TTFT p90 <= {SLO.ttft_p90_s * 1e3:g} ms, TBT p99 <= {SLO.tbt_p99_s * 1e3:g} ms, nothing rejected; "
          f"{args.num_requests} requests per run")
    table_a(args.num_requests, args.workers)
    table_b(args.num_requests, args.workers)
    table_c(args.num_requests, args.workers)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
