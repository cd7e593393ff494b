"""chunkviz benchmarks: prints one table of figures and ratios (run: .venv/bin/python bench/run.py [--quick]).

Speed is measured here, never asserted in tests. Each figure is the best of a few repeats (wall clock,
time.perf_counter); memory is tracemalloc's peak of Python allocations while a trace is built.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
import tracemalloc
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from chunkviz.cost.catalogue import get_gpu, get_model  # noqa: E402
from chunkviz.config import SchedulerConfig, SimConfig  # noqa: E402
from chunkviz.simulator.engine import simulate  # noqa: E402
from chunkviz.workloads.presets import make_workload  # noqa: E402
from chunkviz.analysis.scenario import DEFAULT_SCENARIO, run_scenario  # noqa: E402
from chunkviz.lessons.seed_demo import generate_requests, toy_simulate  # noqa: E402
from chunkviz.workloads.generators import WorkloadSpec  # noqa: E402


def best_of(fn, repeats: int) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def row(name: str, figure: str, note: str = "") -> None:
    print(f"| {name:<48} | {figure:>22} | {note} |")


def bench_teaching(repeats: int) -> None:
    for policy, budget in (("monolithic", None), ("chunked", 512)):
        scenario = DEFAULT_SCENARIO.with_policy(policy, budget)
        wall, trace = best_of(lambda: run_scenario(scenario), repeats)
        row(f"teaching run, full detail ({policy})", f"{wall * 1e3:.0f} ms",
            f"{len(trace.requests)} requests, {trace.num_steps} steps, {trace.num_steps / wall:,.0f} steps/s")


def bench_large(num_requests: int, repeats: int) -> float:
    reqs = make_workload("azure-conv-like", WorkloadSpec(num_requests=num_requests, qps=5.5, seed=0))
    cfg = SimConfig(get_model("llama-3-8b"), get_gpu("h100-sxm"), SchedulerConfig("chunked", 2048),
                    record_detail=False)
    wall, trace = best_of(lambda: simulate(cfg, reqs), repeats)
    row(f"{num_requests:,} requests, metrics-only (chunked, H100)", f"{wall:.2f} s",
        f"{trace.num_steps:,} steps, {trace.num_steps / wall:,.0f} steps/s")
    return wall


def bench_sweep(num_requests: int) -> None:
    spec = WorkloadSpec(num_requests=num_requests, qps=16.0, prompt_tokens=300, output_tokens=128, seed=0)
    reqs = make_workload("long-among-chats", spec)
    budgets = [64 * 2 ** (i / 2) for i in range(16)]
    t0 = time.perf_counter()
    for b in budgets:
        cfg = SimConfig(get_model("llama-3-8b"), get_gpu("h100-sxm"), SchedulerConfig("chunked", int(b)),
                        record_detail=False)
        simulate(cfg, reqs)
    wall = time.perf_counter() - t0
    row(f"16-point budget sweep, {num_requests:,} requests each", f"{wall:.2f} s", f"{wall / 16 * 1e3:.0f} ms/point")


def bench_memory() -> None:
    tracemalloc.start()
    trace = run_scenario(DEFAULT_SCENARIO)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    row("peak memory, full-detail teaching trace", f"{peak / 2**20:.1f} MiB",
        f"{trace.num_steps} steps with events and block snapshots")


def bench_seed_toy(num_requests: int, repeats: int) -> None:
    toy_reqs = generate_requests(num_requests, 7)
    toy_wall, _ = best_of(lambda: toy_simulate(toy_reqs, 8), repeats)
    spec = replace(DEFAULT_SCENARIO.workload, num_requests=num_requests)
    scenario = replace(DEFAULT_SCENARIO, workload=spec, workload_preset="seed-article", record_detail=False)
    ours, _ = best_of(lambda: run_scenario(scenario), repeats)
    row(f"seed article's toy, {num_requests} requests (chunk 8)", f"{toy_wall * 1e3:.1f} ms",
        f"chunkviz metrics-only on the same count: {ours * 1e3:.1f} ms ({ours / toy_wall:.1f}x the toy)")


def bench_pages(repeats: int) -> None:
    from streamlit.testing.v1 import AppTest

    pages = ["pages/timeline_page.py", "pages/kv_cache_page.py", "pages/paging_page.py", "pages/tradeoffs_page.py",
             "pages/attention_page.py", "pages/seed_demo_page.py", "pages/quiz_page.py", "pages/traces_page.py",
             "pages/measure_page.py"]
    for page in pages:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
        at.run()
        t0 = time.perf_counter()
        at.switch_page(page).run()
        first = time.perf_counter() - t0
        buttons = [b for b in at.button if b.key and b.key.endswith("step_next")]
        click = None
        if buttons:
            key = buttons[0].key
            click = min(_click(at, key) for _ in range(repeats))
        note = f"step click {click * 1e3:.0f} ms" if click is not None else "no step control"
        row(f"AppTest first render: {page}", f"{first * 1e3:.0f} ms", note + ("" if not at.exception else " ERROR"))


def _click(at, key: str) -> float:
    t0 = time.perf_counter()
    at.button(key=key).click().run()
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smaller sizes, one repeat")
    parser.add_argument("--no-pages", action="store_true", help="skip the AppTest page timings")
    args = parser.parse_args()
    repeats = 1 if args.quick else 3
    print(f"machine: {platform.machine()}, {platform.processor() or 'cpu'}, Python {platform.python_version()}, "
          f"{__import__('os').cpu_count()} cores")
    print("| benchmark | figure | notes |\n|---|---|---|")
    bench_teaching(repeats)
    bench_large(2_000 if args.quick else 20_000, 1 if args.quick else 2)
    bench_sweep(200 if args.quick else 1_000)
    bench_memory()
    bench_seed_toy(30, repeats)
    if not args.no_pages:
        bench_pages(3)


if __name__ == "__main__":
    main()
