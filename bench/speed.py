"""Speed of chunkviz, beside the reference Python loop and BLIS, and of parallel sweeps: one table from one run.

Usage: .venv/bin/python bench/speed.py [--quick] [--num-requests N] [--repeats R] [--rows default,caching-off,...]
[--only-processes] [--no-exact-100k] [--blis PATH]

Prints first the process table: named runs of the azure-conv-like workload (20,000 requests at 5.5 req/s, seed 0,
chunked prefill with a 2048-token budget, Llama-3-8B on H100) as whole `python -m chunkviz simulate --json`
processes, picked with --rows:

  default      the run as is (prefix caching on: the default for the chunked policy)
  caching-off  --no-enable-prefix-caching
  sglang       --policy sglang
  trtllm       --policy trtllm
  100k         the default run with 5x the requests at the same 5.5 req/s, i.e. a 5x longer run; its wall time over
               the default row's is printed as a linearity figure (ideal 5.0)

Each row is timed three ways: chunkviz (the fast path), the reference Python loop (the same flags plus
--no-fast-forward: every step simulated exactly; its JSON is asserted equal to the fast path's but for the
`fast_forwarded_steps` key), and, with --blis PATH, the BLIS simulator (github.com/inference-sim/inference-sim) replaying
the very requests chunkviz simulates, written as a BLIS workload file, with the equivalent settings (see blis_argv);
rows BLIS has no equivalent for say so. Each figure is wall time, CPU time (user + system) and peak RSS of that one
process (os.wait4): wall and CPU the median of --repeats runs, rows and simulators interleaved so a shared machine's
load hits them alike, peak RSS the largest seen. The 100k row's reference loop is slow (5x the default row's loop,
some 100 s on a 2-core x86 box), so it runs once only, whatever --repeats says, and --no-exact-100k skips it.

Then, unless --only-processes: the 20,000-request run in-process with fast forwarding and with --no-fast-forward and
the ratio, its steps/s, peak Python allocations; a 64-point sweep (16 budgets x 4 load scales) on 1 and 2 worker
processes and on a local Dask cluster (2 worker processes); a 10-minute window of the full Azure conversation trace.
The in-process figures are best of --repeats; the machine's load average is printed before and after, since the
machine may be shared. Speed is measured here, never asserted in tests.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from chunkviz.analysis.parallel import map_ordered  # noqa: E402
from chunkviz.cli.main import build_parser  # noqa: E402
from chunkviz.cli.sweep import grid, jobs_for, run_job  # noqa: E402
from chunkviz.config import ModelSpec, SchedulerConfig, SimConfig  # noqa: E402
from chunkviz.cost.catalogue import get_gpu, get_model  # noqa: E402
from chunkviz.request import Request  # noqa: E402
from chunkviz.simulator.engine import simulate  # noqa: E402
from chunkviz.workloads.generators import WorkloadSpec  # noqa: E402
from chunkviz.workloads.presets import make_workload  # noqa: E402
from tests.helpers import shared_missing, shared_path  # noqa: E402

AZURE_CONV = shared_path("traces/azure2023/AzureLLMInferenceTrace_conv.csv")  # $CHUNKVIZ_SHARED or ../shared
WORKLOAD = "azure-conv-like"
QPS = 5.5
SEED = 0  # the CLI's default --seed (WorkloadSpec.seed), so make_workload below builds the CLI's very requests
DEFAULT_NUM_REQUESTS = 20_000
RUN_FLAGS = ("--workload", WORKLOAD, "--qps", str(QPS), "--policy", "chunked", "--max-num-batched-tokens", "2048")
# The CLI's defaults, which RUN_FLAGS leave alone (--model, --gpu): what BLIS is told to model.
MODEL = "llama-3-8b"
GPU = "h100-sxm"


class BenchError(Exception):
    """A failure to report in one line (a missing or failing binary), not as a traceback."""


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
    reqs = row_requests(num_requests)
    cfg = SimConfig(get_model(MODEL), get_gpu(GPU), SchedulerConfig("chunked", 2048),
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


# ---- whole processes: chunkviz, the reference Python loop, BLIS ---------------------------------------------------


@dataclass(frozen=True)
class ProcessRow:
    """A named whole-process run: extra `simulate` flags, its request count as a multiple of the base run's."""

    name: str
    label: str
    flags: tuple[str, ...] = ()
    request_scale: int = 1
    no_blis: str | None = None  # why BLIS has no equivalent run; None: it has one


NO_SGLANG_TRTLLM = "no equivalent: BLIS batches as vLLM does (schedulers fcfs, priority-fcfs, sjf; sim/bundle.go)"
PROCESS_ROWS = (
    ProcessRow("default", "default run (prefix caching on)"),
    # BLIS's KV cache always looks up and keeps full-block hashes (sim/kv/cache.go GetCachedBlocks; no flag turns it
    # off), so it has no run without prefix caching: printing its default run here would compare different work.
    ProcessRow("caching-off", "prefix caching off", ("--no-enable-prefix-caching",),
               no_blis="no equivalent: BLIS has no switch to turn prefix caching off"),
    ProcessRow("sglang", "sglang (radix cache on)", ("--policy", "sglang"), no_blis=NO_SGLANG_TRTLLM),
    ProcessRow("trtllm", "trtllm (prefix caching on)", ("--policy", "trtllm"), no_blis=NO_SGLANG_TRTLLM),
    ProcessRow("100k", "default run, 5x the requests", request_scale=5),
)
ROWS_BY_NAME = {r.name: r for r in PROCESS_ROWS}
LINEARITY_ROWS = ("100k", "default")  # (long run, base run): their wall-time ratio, ideal request_scale


def parse_rows(text: str) -> tuple[ProcessRow, ...]:
    """--rows: a comma list of row names, in the order given; an unknown name is a usage error."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in ROWS_BY_NAME]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"unknown row {', '.join(map(repr, unknown)) or '(none given)'}; "
                                         f"known rows: {', '.join(ROWS_BY_NAME)}")
    return tuple(ROWS_BY_NAME[n] for n in dict.fromkeys(names))


def row_num_requests(row: ProcessRow, base_num_requests: int) -> int:
    return row.request_scale * base_num_requests


def chunkviz_argv(row: ProcessRow, base_num_requests: int, exact: bool) -> list[str]:
    """`simulate --json` of the row; exact: the reference Python loop (--no-fast-forward)."""
    return [sys.executable, "-m", "chunkviz", "simulate", "--json", *RUN_FLAGS,
            "--num-requests", str(row_num_requests(row, base_num_requests)), *row.flags,
            *(["--no-fast-forward"] if exact else [])]


def row_requests(num_requests: int) -> tuple[Request, ...]:
    """The requests `simulate` builds from RUN_FLAGS (tests/test_bench_speed.py checks they are the CLI's)."""
    return make_workload(WORKLOAD, WorkloadSpec(num_requests=num_requests, qps=QPS, seed=SEED))


@dataclass(frozen=True)
class Timing:
    wall_s: float
    cpu_s: float
    peak_rss_mib: float


def timed_process(argv: list[str], what: str, cwd: Path = ROOT) -> tuple[Timing, bytes]:
    """(wall, CPU, peak RSS, stdout) of one child process, its own rusage (not the children's maximum)."""
    t0 = time.perf_counter()
    # Files, not pipes: the child never waits on this process to read.
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        try:
            proc = subprocess.Popen(argv, cwd=cwd, stdout=out, stderr=err)
        except OSError as exc:
            raise BenchError(f"{what}: cannot run {argv[0]}: {exc.strerror}") from None
        _, status, usage = os.wait4(proc.pid, 0)
        wall_s = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped by wait4: Popen must not wait again
        if proc.returncode != 0:
            err.seek(0)
            lines = err.read().decode(errors="replace").strip().splitlines()
            raise BenchError(f"{what} failed (exit status {proc.returncode}): "
                             f"{lines[-1].strip() if lines else 'no message on stderr'}")
        out.seek(0)
        stdout = out.read()
    # ru_maxrss is in KiB on Linux.
    return Timing(wall_s, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024), stdout


def chunkviz_json(stdout: bytes) -> dict:
    data = json.loads(stdout)
    data.pop("fast_forwarded_steps", None)  # the one key that tells the fast path and the exact loop apart
    return data


# BLIS, as read at github.com/inference-sim/inference-sim commit f90a1e3a6787da17c2cd463dab6fb2660b1b1760:
# `blis replay --trace-header H.yaml --trace-data D.csv` (cmd/replay.go) replays a TraceV2 file, "the exact request
# sequence captured in the trace": a YAML header (sim/workload/tracev2.go TraceHeader) and a CSV whose columns are
# traceV2Columns, read by position (parseTraceRecord). LoadTraceV2Requests (sim/workload/replay.go) gives each record
# input_tokens random prompt tokens (no prefix_group: nothing shared, as chunkviz's azure-conv-like prompts) and
# output_tokens output tokens, arriving at send_time_us, else arrival_time_us (microseconds, integers).
BLIS_TRACE_COLUMNS = (
    "request_id", "client_id", "tenant_id", "slo_class", "session_id", "round_index",
    "prefix_group", "prefix_length", "streaming", "input_tokens", "output_tokens",
    "text_tokens", "image_tokens", "audio_tokens", "video_tokens", "reason_ratio",
    "model", "deadline_us", "server_input_tokens",
    "arrival_time_us", "send_time_us", "first_chunk_time_us", "last_chunk_time_us",
    "num_chunks", "status", "error_message", "finish_reason",
)
BLIS_TRACE_VERSION = 3  # what `blis run --trace-output` writes (cmd/root.go)
BLIS_GPU = {"h100-sxm": "H100"}  # BLIS's hardware_config.json key for the H100 SXM (989.5 TFLOPS, 3.35 TB/s, 80 GiB)
BLIS_MODEL_NAME = "meta-llama/meta-llama-3-8b"  # a label only: --model-config-folder gives the shapes


def blis_trace_record(index: int, request: Request) -> list[str]:
    """One CSV row of BLIS's TraceV2 data: the request's arrival and token counts, nothing observed yet."""
    arrival_us = round(request.arrival_s * 1e6)  # BLIS's clock ticks are microseconds
    fields = {name: "" for name in BLIS_TRACE_COLUMNS}
    fields.update({name: "0" for name in ("round_index", "prefix_length", "text_tokens", "image_tokens",
                                          "audio_tokens", "video_tokens", "reason_ratio", "server_input_tokens",
                                          "first_chunk_time_us", "last_chunk_time_us", "num_chunks")})
    fields.update(request_id=str(index), streaming="true", input_tokens=str(request.prompt_tokens),
                  output_tokens=str(request.output_tokens),
                  deadline_us="0",  # 0: no client timeout (chunkviz has none)
                  arrival_time_us=str(arrival_us),
                  send_time_us=str(arrival_us),  # as `blis run` exports a generated trace: no network in between
                  status="ok")
    return [fields[name] for name in BLIS_TRACE_COLUMNS]


def write_blis_workload(requests: tuple[Request, ...], directory: Path) -> tuple[Path, Path]:
    """BLIS's workload file for `requests`: (header YAML, data CSV) paths, written under `directory`."""
    header_path, data_path = directory / f"blis-{len(requests)}.yaml", directory / f"blis-{len(requests)}.csv"
    header_path.write_text(
        f"# chunkviz bench/speed.py: {WORKLOAD}, {len(requests)} requests, {QPS} req/s, seed {SEED}\n"
        f"trace_version: {BLIS_TRACE_VERSION}\ntime_unit: microseconds\nmode: generated\nwarm_up_requests: 0\n")
    with data_path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(BLIS_TRACE_COLUMNS)
        writer.writerows(blis_trace_record(i, r) for i, r in enumerate(requests))
    return header_path, data_path


def write_blis_model_config(model: ModelSpec, directory: Path) -> Path:
    """A Hugging Face config.json of chunkviz's model, so BLIS's roofline sees the same shapes (no download)."""
    folder = directory / "blis-model"
    folder.mkdir(exist_ok=True)
    dtype = {2: "bfloat16", 4: "float32"}[model.bytes_per_param]
    # Shapes from chunkviz's catalogue; the rest as in meta-llama/Meta-Llama-3-8B's config.json (Llama-style keys).
    config = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_act": "silu",
              "num_hidden_layers": model.num_layers, "hidden_size": model.hidden_size,
              "num_attention_heads": model.num_heads, "num_key_value_heads": model.num_kv_heads,
              "intermediate_size": model.intermediate_size, "vocab_size": model.vocab_size,
              "max_position_embeddings": model.max_model_len_tokens, "torch_dtype": dtype,
              "tie_word_embeddings": False, "rms_norm_eps": 1e-5, "rope_theta": 500000.0}
    (folder / "config.json").write_text(json.dumps(config, indent=2))
    return folder


def blis_argv(binary: Path, workload: tuple[Path, Path], model_folder: Path, run: dict, model: ModelSpec) -> list[str]:
    """BLIS replaying the workload with chunkviz's settings of that run (`run`: chunkviz's JSON).

    Flags from BLIS's cmd/root.go registerSimConfigFlags and cmd/replay.go. The KV pool, batch limits and block size
    are the ones chunkviz used (its JSON), not BLIS's defaults (max-num-seqs 256, KV blocks from its own memory
    budget). --cache-signal-delay (default 50,000 us) makes the cluster loop copy every instance's KV-block hash map
    each 50 ms of simulated time (sim/cluster/snapshot.go RefreshCacheIfNeeded), a cost that buys nothing with one
    instance, so it is 0 (live lookups), as is --snapshot-refresh-interval (the other periodic snapshot, 50 ms).
    """
    header, data = workload
    return [str(binary), "replay", "--trace-header", str(header), "--trace-data", str(data),
            "--model", BLIS_MODEL_NAME, "--model-config-folder", str(model_folder),
            "--latency-model", "roofline", "--hardware", BLIS_GPU[GPU], "--tp", "1",
            "--max-num-batched-tokens", str(run["budget_tokens"]), "--max-num-seqs", str(run["max_num_seqs"]),
            "--block-size-in-tokens", str(run["block_size"]), "--total-kv-blocks", str(run["num_gpu_blocks"]),
            "--max-model-len", str(model.max_model_len_tokens),
            "--cache-signal-delay", "0", "--snapshot-refresh-interval", "0", "--log", "error"]


def blis_completed(stdout: bytes) -> int | None:
    """completed_requests from BLIS's "=== Simulation Metrics ===" JSON on stdout (sim/metrics.go EmitOutput)."""
    match = re.search(rb'"completed_requests":\s*(\d+)', stdout)
    return int(match.group(1)) if match else None


def check_blis_binary(path: str) -> Path:
    binary = Path(path).expanduser().resolve()
    if not binary.is_file() or not os.access(binary, os.X_OK):
        raise BenchError(f"--blis {path}: no executable file there (build BLIS in its clone: go build -o blis main.go)")
    return binary


@dataclass
class RowRuns:
    """What one process row measured: per simulator, its timings, and chunkviz's JSON of each path."""

    row: ProcessRow
    num_requests: int
    timings: dict[str, list[Timing]]
    outputs: dict[str, dict]
    blis_completed: int | None = None


SIMULATORS = ("chunkviz", "loop", "blis")


class BlisRunner:
    """Runs BLIS on a row's requests: workload files written once per request count, in one temporary folder."""

    def __init__(self, binary: Path, directory: Path):
        self.binary, self.directory = binary, directory
        self.model = get_model(MODEL)
        self.model_folder = write_blis_model_config(self.model, directory)
        self.workloads: dict[int, tuple[Path, Path]] = {}

    def argv(self, num_requests: int, run: dict) -> list[str]:
        if num_requests not in self.workloads:
            self.workloads[num_requests] = write_blis_workload(row_requests(num_requests), self.directory)
        return blis_argv(self.binary, self.workloads[num_requests], self.model_folder, run, self.model)

    def run(self, num_requests: int, run: dict) -> tuple[Timing, bytes]:
        # From the binary's folder: BLIS finds defaults.yaml and hardware_config.json beside it (its clone's root).
        return timed_process(self.argv(num_requests, run), f"BLIS ({self.binary})", cwd=self.binary.parent)


def measure_row(runs: RowRuns, base_num_requests: int, first: bool, exact: bool, blis: BlisRunner | None) -> None:
    """One round of a row: chunkviz, then the reference loop (when `exact`), then BLIS (when it has an equivalent)."""
    row = runs.row
    timing, out = timed_process(chunkviz_argv(row, base_num_requests, exact=False), f"chunkviz ({row.name})")
    runs.timings["chunkviz"].append(timing)
    runs.outputs.setdefault("chunkviz", chunkviz_json(out))
    if exact:
        timing, out = timed_process(chunkviz_argv(row, base_num_requests, exact=True), f"loop ({row.name})")
        runs.timings["loop"].append(timing)
        runs.outputs.setdefault("loop", chunkviz_json(out))
    if blis is not None and row.no_blis is None:
        timing, out = blis.run(runs.num_requests, runs.outputs["chunkviz"])
        runs.timings["blis"].append(timing)
        if first:
            runs.blis_completed = blis_completed(out)


def exact_runs_this_round(row: ProcessRow, first: bool, exact_100k: bool) -> bool:
    """The 100k row's reference loop runs once (first round), or never with --no-exact-100k; others every round."""
    if row.request_scale == 1:
        return True
    return exact_100k and first


def measure_rows(rows: tuple[ProcessRow, ...], base_num_requests: int, repeats: int, blis: BlisRunner | None,
                 exact_100k: bool) -> list[RowRuns]:
    """Every row `repeats` times, rows interleaved (a shared machine's load hits them alike)."""
    all_runs = [RowRuns(r, row_num_requests(r, base_num_requests), {s: [] for s in SIMULATORS}, {}) for r in rows]
    for i in range(repeats):
        for runs in all_runs:
            measure_row(runs, base_num_requests, i == 0, exact_runs_this_round(runs.row, i == 0, exact_100k), blis)
    for runs in all_runs:
        if "loop" in runs.outputs:
            assert runs.outputs["chunkviz"] == runs.outputs["loop"], f"{runs.row.name}: fast path and loop disagree"
    return all_runs


def summary(timings: list[Timing]) -> Timing:
    """Median wall and CPU, largest peak RSS."""
    return Timing(statistics.median(t.wall_s for t in timings), statistics.median(t.cpu_s for t in timings),
                  max(t.peak_rss_mib for t in timings))


def cell(timings: list[Timing]) -> str:
    if not timings:
        return "-"
    t = summary(timings)
    return f"{t.wall_s:.2f} s / {t.cpu_s:.2f} s / {t.peak_rss_mib:.0f} MiB"


def ratio_cell(timings: list[Timing], base: list[Timing]) -> str:
    """Wall, CPU and peak-RSS ratio of `timings` to chunkviz's (x > 1: slower / larger than chunkviz)."""
    if not timings:
        return "-"
    t, b = summary(timings), summary(base)
    return f"{t.wall_s / b.wall_s:.2f}x / {t.cpu_s / b.cpu_s:.2f}x / {t.peak_rss_mib / b.peak_rss_mib:.2f}x"


def blis_cell(runs: RowRuns, blis: BlisRunner | None) -> str:
    if runs.row.no_blis is not None:
        return runs.row.no_blis if blis is not None else "-"
    return cell(runs.timings["blis"])


def loop_note(runs: RowRuns) -> str:
    if "loop" not in runs.outputs:
        return "loop skipped (--no-exact-100k)"
    count = len(runs.timings["loop"])
    return f"same JSON as chunkviz, asserted; loop {'once' if count == 1 else f'median of {count}'}"


def print_process_table(all_runs: list[RowRuns], repeats: int, blis: BlisRunner | None) -> None:
    print(f"| run | chunkviz | reference Python loop (--no-fast-forward) | loop / chunkviz | BLIS | BLIS / chunkviz "
          f"| notes |\n|---|---|---|---|---|---|---|")
    for runs in all_runs:
        base = runs.timings["chunkviz"]
        notes = [loop_note(runs)]
        if runs.blis_completed is not None:
            notes.append(f"BLIS completed {runs.blis_completed:,} of {runs.num_requests:,}")
        print(f"| {runs.num_requests:,} requests, {runs.row.label} | {cell(base)} | {cell(runs.timings['loop'])} "
              f"| {ratio_cell(runs.timings['loop'], base)} | {blis_cell(runs, blis)} "
              f"| {ratio_cell(runs.timings['blis'], base)} | {'; '.join(notes)} |", flush=True)
    print(f"each cell: wall / CPU / peak RSS of the whole process (ratios likewise); wall and CPU the median of "
          f"{repeats}, peak RSS the largest")
    print_linearity(all_runs)
    if blis is not None:
        print_blis_command(all_runs, blis)


def print_blis_command(all_runs: list[RowRuns], blis: BlisRunner) -> None:
    """BLIS's command line for the first row it ran (its temporary files are gone after the run)."""
    for runs in all_runs:
        if runs.timings["blis"]:
            print("BLIS command, first row: " + " ".join(blis.argv(runs.num_requests, runs.outputs["chunkviz"])))
            return


def print_linearity(all_runs: list[RowRuns]) -> None:
    by_name = {r.row.name: r for r in all_runs}
    long_name, base_name = LINEARITY_ROWS
    if long_name in by_name and base_name in by_name:
        long, base = by_name[long_name], by_name[base_name]
        for sim in SIMULATORS:
            if long.timings[sim] and base.timings[sim]:
                ratio = summary(long.timings[sim]).wall_s / summary(base.timings[sim]).wall_s
                print(f"linearity, {sim}: wall {long.num_requests:,} / {base.num_requests:,} requests = {ratio:.2f} "
                      f"(ideal {long.row.request_scale:.1f})")


def bench_process_rows(rows: tuple[ProcessRow, ...], base_num_requests: int, repeats: int, blis_path: str | None,
                       exact_100k: bool) -> None:
    binary = check_blis_binary(blis_path) if blis_path else None
    with tempfile.TemporaryDirectory(prefix="chunkviz-blis-") as tmp:
        blis = BlisRunner(binary, Path(tmp)) if binary else None
        all_runs = measure_rows(rows, base_num_requests, repeats, blis, exact_100k)
        print_process_table(all_runs, repeats, blis)


# ---- in-process and parallel sweeps ---------------------------------------------------------------------------------


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


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="2,000 requests and 200-request sweep points")
    parser.add_argument("--num-requests", type=int, default=None,
                        help=f"requests of the base run (default {DEFAULT_NUM_REQUESTS:,}; 2,000 with --quick); "
                             "the 100k row runs 5x as many")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rows", type=parse_rows, default=PROCESS_ROWS,
                        help=f"process rows, a comma list of: {', '.join(ROWS_BY_NAME)} (default: all)")
    parser.add_argument("--only-processes", action="store_true",
                        help="print the process table only (no in-process, sweep or Azure-window rows)")
    parser.add_argument("--no-exact-100k", dest="exact_100k", action="store_false",
                        help="skip the 100k row's reference Python loop (it runs once otherwise)")
    parser.add_argument("--blis", metavar="PATH", default=None,
                        help="a BLIS binary (github.com/inference-sim/inference-sim, built in its clone): time it "
                             "on the same requests beside chunkviz")
    args = parser.parse_args(argv)
    if args.num_requests is not None and args.num_requests < 1 or args.repeats < 1:
        parser.error("--num-requests and --repeats must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    n_large = args.num_requests or (2_000 if args.quick else DEFAULT_NUM_REQUESTS)
    n_sweep = 200 if args.quick else 1_000
    print(f"machine: {platform.machine()}, Python {platform.python_version()}, {os.cpu_count()} cores, "
          f"load average before {os.getloadavg()[0]:.2f}")
    try:
        bench_process_rows(args.rows, n_large, args.repeats, args.blis, args.exact_100k)
    except BenchError as exc:
        print(f"bench/speed.py: {exc}", file=sys.stderr)
        return 1
    if not args.only_processes:
        print("\n| benchmark | figure | notes |\n|---|---|---|")
        bench_20k(n_large, args.repeats)
        bench_sweeps(n_sweep)
        bench_azure_window()
    print(f"load average after {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
