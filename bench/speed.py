"""Speed of the fast path and of parallel sweeps, one table from one run (.venv/bin/python bench/speed.py [--quick]).

Prints: the 20,000-request azure-conv-like run (chunked, 2048-token budget, Llama-3-8B on H100) as whole
`simulate --json` processes, default, with --enable-prefix-caching, --policy trtllm and --policy sglang (each of the
last three on the fast and the exact path, their JSON asserted equal), each with wall time,
CPU time and peak RSS of that one process (os.wait4), medians of interleaved runs; the same run in-process with fast
forwarding and with --no-fast-forward and the ratio, its steps/s, peak Python allocations;
a 64-point sweep (16 budgets x 4 load scales) on 1 and 2 worker processes and on a local Dask cluster (2 worker
processes); a 10-minute window of the full Azure conversation trace. Every figure is wall-clock (perf_counter),
best of `--repeats`; the machine's load average is printed before and after, since the machine may be shared.
Speed is measured here, never asserted in tests.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from chunkviz.analysis.parallel import map_ordered  # noqa: E402
from chunkviz.cli.main import build_parser  # noqa: E402
from chunkviz.cli.sweep import grid, jobs_for, run_job  # noqa: E402
from chunkviz.config import SchedulerConfig, SimConfig  # noqa: E402
from chunkviz.cost.catalogue import get_gpu, get_model  # noqa: E402
from chunkviz.simulator.engine import simulate  # noqa: E402
from chunkviz.workloads.generators import WorkloadSpec  # noqa: E402
from chunkviz.workloads.presets import make_workload  # noqa: E402
from tests.helpers import shared_missing, shared_path  # noqa: E402

AZURE_CONV = shared_path("traces/azure2023/AzureLLMInferenceTrace_conv.csv")  # $CHUNKVIZ_SHARED or ../shared
RUN_20K = ["--workload", "azure-conv-like", "--num-requests", "20000", "--qps", "5.5", "--policy", "chunked",
           "--max-num-batched-tokens", "2048"]


CPU_S: dict[int, float] = {}  # id(fn) -> best CPU seconds of this process (less sensitive to a shared machine)


def best_of(fn, repeats: int) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        result = fn()
        best = min(best, time.perf_counter() - t0)
        CPU_S[id(fn)] = min(CPU_S.get(id(fn), float("inf")), time.process_time() - c0)
    return best, result


def row(name: str, figure: str, note: str = "") -> None:
    print(f"| {name:<52} | {figure:>12} | {note} |", flush=True)


def bench_20k(num_requests: int, repeats: int) -> None:
    reqs = make_workload("azure-conv-like", WorkloadSpec(num_requests=num_requests, qps=5.5, seed=0))
    cfg = SimConfig(get_model("llama-3-8b"), get_gpu("h100-sxm"), SchedulerConfig("chunked", 2048),
                    record_detail=False)
    run_fast = lambda: simulate(cfg, reqs)  # noqa: E731
    run_exact = lambda: simulate(cfg.__class__(**{**_fields(cfg), "fast_forward": False}), reqs)  # noqa: E731
    fast_s, fast = best_of(run_fast, repeats)
    exact_s, exact = best_of(run_exact, max(1, repeats - 1))
    assert fast == exact, "fast path and exact path disagree"
    fast_cpu, exact_cpu = CPU_S[id(run_fast)], CPU_S[id(run_exact)]
    row(f"{num_requests:,} requests, fast path (simulate only)", f"{fast_s:.2f} s",
        f"CPU {fast_cpu:.2f} s; {fast.num_steps:,} steps, {fast.num_steps / fast_s:,.0f} steps/s, "
        f"{fast.fast_forwarded_steps / fast.num_steps:.1%} fast-forwarded")
    row(f"{num_requests:,} requests, exact path (--no-fast-forward)", f"{exact_s:.2f} s",
        f"CPU {exact_cpu:.2f} s; {exact.num_steps / exact_s:,.0f} steps/s")
    row("  ratio exact / fast", f"{exact_s / fast_s:.1f}x", f"CPU ratio {exact_cpu / fast_cpu:.1f}x; "
        "same Trace (==), asserted")
    tracemalloc.start()
    simulate(cfg, reqs)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    row("  peak Python allocations, fast path", f"{peak / 2**20:.0f} MiB", "tracemalloc, while the trace is built")


def _fields(cfg: SimConfig) -> dict:
    return {name: getattr(cfg, name) for name in cfg.__dataclass_fields__}


def bench_process(num_requests: int) -> None:
    argv = [sys.executable, "-m", "chunkviz", "simulate", "--json", *RUN_20K]
    argv[argv.index("20000")] = str(num_requests)
    for label, extra in (("fast", []), ("exact", ["--no-fast-forward"])):
        t0 = time.perf_counter()
        subprocess.run(argv + extra, cwd=ROOT, check=True, capture_output=True)
        wall = time.perf_counter() - t0
        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        row(f"  whole `simulate --json` process ({label})", f"{wall:.2f} s", f"max RSS of children so far {rss:.0f} MiB")


# (label, extra flags) of the whole-process rows: what a user's default run costs, and with prefix caching on.
ENGINE_ROWS = (("default run", []), ("prefix caching on", ["--enable-prefix-caching"]),
               ("prefix caching, exact path", ["--enable-prefix-caching", "--no-fast-forward"]),
               # TensorRT-LLM (prompts over the budget are rejected, alike on both paths) and SGLang as shipped
               # (prefix caching on), each with its exact path: the fast path's steady stretches under their rules.
               ("trtllm", ["--policy", "trtllm"]), ("trtllm, exact path", ["--policy", "trtllm", "--no-fast-forward"]),
               ("sglang", ["--policy", "sglang"]), ("sglang, exact path", ["--policy", "sglang", "--no-fast-forward"]))
# Rows whose JSON must equal another row's (the fast path against the exact path).
SAME_AS = {"prefix caching on": "prefix caching, exact path", "trtllm": "trtllm, exact path",
           "sglang": "sglang, exact path"}


def _timed_process(argv: list[str]) -> tuple[float, float, float, dict]:
    """(wall s, CPU s, peak RSS MiB, JSON out) of one child process, its own rusage (not the children's maximum)."""
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as out:  # a file, not a pipe: the child never waits on this process to read
        proc = subprocess.Popen(argv, cwd=ROOT, stdout=out, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"{' '.join(argv)} failed with exit status {os.waitstatus_to_exitcode(status)}")
        out.seek(0)
        data = json.load(out)
    data.pop("fast_forwarded_steps", None)  # the one key that tells the paths apart
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, data  # ru_maxrss: KiB on Linux


def bench_engine_rows(num_requests: int, repeats: int) -> None:
    """Each row's process run `repeats` times, rows interleaved (a shared machine's load hits them alike)."""
    argv = [sys.executable, "-m", "chunkviz", "simulate", "--json", *RUN_20K]
    argv[argv.index("20000")] = str(num_requests)
    runs: dict[str, list[tuple[float, float, float]]] = {label: [] for label, _ in ENGINE_ROWS}
    outputs: dict[str, dict] = {}
    for _ in range(repeats):
        for label, extra in ENGINE_ROWS:
            *figures, outputs[label] = _timed_process(argv + extra)
            runs[label].append(tuple(figures))
    for fast, exact in SAME_AS.items():
        assert outputs[fast] == outputs[exact], f"{fast}: fast and exact paths disagree"
    for label, _ in ENGINE_ROWS:
        walls, cpus, rss = zip(*runs[label])
        row(f"{num_requests:,} requests, {label} (process)", f"{statistics.median(walls):.2f} s",
            f"CPU {statistics.median(cpus):.2f} s, peak RSS {max(rss):.0f} MiB; median of {repeats}"
            + ("; same JSON as the exact path, asserted" if label in SAME_AS else ""))


def sweep_jobs(num_requests: int) -> list:
    budgets = ",".join(str(int(64 * 2 ** (i / 2))) for i in range(16))
    args = build_parser().parse_args(["sweep", "--budgets", budgets, "--qps-scale", "0.5,1,2,4", "--workload",
                                      "long-among-chats", "--num-requests", str(num_requests), "--qps", "16",
                                      "--prompt-tokens", "300", "--output-tokens", "128"])
    return jobs_for(args, grid(args))


def bench_sweeps(num_requests: int) -> None:
    jobs = sweep_jobs(num_requests)
    one_s, rows1 = best_of(lambda: map_ordered(run_job, jobs, workers=1), 1)
    two_s, rows2 = best_of(lambda: map_ordered(run_job, jobs, workers=2), 1)
    assert rows1 == rows2
    row(f"{len(jobs)}-point sweep, {num_requests:,} requests each, 1 worker", f"{one_s:.2f} s",
        f"{one_s / len(jobs) * 1e3:.0f} ms/point")
    row(f"{len(jobs)}-point sweep, 2 worker processes", f"{two_s:.2f} s", f"speed-up {one_s / two_s:.2f}x")
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        row("sweep on a local Dask cluster", "skipped", "pip install distributed")
        return
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster.scheduler_address):
            warm = map_ordered(run_job, jobs[:2], scheduler_address=cluster.scheduler_address)  # imports on workers
            dask_s, rows3 = best_of(lambda: map_ordered(run_job, jobs, scheduler_address=cluster.scheduler_address),
                                    1)
    assert rows3 == rows1 and warm == rows1[:2]
    row(f"{len(jobs)}-point sweep, local Dask cluster (2 worker processes)", f"{dask_s:.2f} s",
        f"speed-up {one_s / dask_s:.2f}x over 1 worker; rows identical")


def bench_azure_window() -> None:
    if not AZURE_CONV.exists():
        row("Azure conversation trace, 10-minute window", "skipped", shared_missing(AZURE_CONV))
        return
    argv = [sys.executable, "-m", "chunkviz", "simulate", "--json", "--trace", str(AZURE_CONV), "--time-window",
            "0:600", "--policy", "chunked", "--max-num-batched-tokens", "2048"]
    for label, extra in (("fast", []), ("exact", ["--no-fast-forward"])):
        t0 = time.perf_counter()
        out = subprocess.run(argv + extra, cwd=ROOT, check=True, capture_output=True, text=True).stdout
        wall = time.perf_counter() - t0
        import json
        data = json.loads(out)
        row(f"Azure conv trace 0-600 s, whole process ({label})", f"{wall:.2f} s",
            f"{data['num_requests']:,} requests, {data['num_steps']:,} steps, "
            f"{data['fast_forwarded_steps']:,} fast-forwarded")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="2,000 requests and 200-request sweep points")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    n_large, n_sweep = (2_000, 200) if args.quick else (20_000, 1_000)
    print(f"machine: {platform.machine()}, Python {platform.python_version()}, {os.cpu_count()} cores, "
          f"load average before {os.getloadavg()[0]:.2f}")
    print("| benchmark | figure | notes |\n|---|---|---|")
    bench_engine_rows(n_large, args.repeats)
    bench_process(n_large)
    bench_20k(n_large, args.repeats)
    bench_sweeps(n_sweep)
    bench_azure_window()
    print(f"load average after {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
