"""The app's own command behind `python -m chunkviz export-html`: one lesson view as one self-contained HTML file
(component code, styles and data inline) that plays in a browser from file:// with no server and no network.

Invariant: the core builds the scenario and runs it; the file is drawn here, in the shell, by the views' streamlit-
free writers (ui/components/offline/writer.py). The core never imports this module: its `export-html` runs it as a
program of its own (chunkviz/cli/export_html.py, `python -m ui.components.offline.cli ARGS`). Bad input ends with
one line and exit 2 before anything is simulated or written; the file is written whole (a temporary file renamed
into place), so a failure never leaves half a file.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from chunkviz.analysis.scenario import DEFAULT_SCENARIO, Scenario, run_scenario
from chunkviz.cli.main import Parser, run_command
from chunkviz.cli.simulate import add_scenario_flags, given_workload_fields, scenario_from_args
from chunkviz.errors import InputError
from chunkviz.lessons.kv_view import KV_SCENARIOS, MAX_BLOCKS, MAX_REQUESTS, MIN_BLOCKS, MIN_REQUESTS, kv_scenario
from chunkviz.lessons.paging import ALGORITHMS, LFU_TIE_BREAKS, PRESETS, check_frames, parse_refs
from chunkviz.simulator.policies.registry import BASELINE_POLICY, POLICY_NAMES, policy_entry
from chunkviz.simulator.trace import Trace
from ui.components.offline.writer import view_html

# The views (writer.py's EXPORTS has the same keys; a test checks it).
VIEWS = ("timeline", "kv", "paging", "attention")
LANGS = ("en", "zh")
# Where a view's own page opens when a flag is not given (None in the parser means "not given"): the timeline on
# the app's default scenario, /kv on its teaching cache (ui/kv/parts.py kv_controls' defaults).
VIEW_DEFAULTS = {"timeline": {"workload": DEFAULT_SCENARIO.workload_preset,
                              "num_requests": DEFAULT_SCENARIO.workload.num_requests,
                              "num_gpu_blocks": None, "enable_prefix_caching": None},  # None: the engine's
                 "kv": {"workload": "shared-system-prompt", "num_requests": 16, "num_gpu_blocks": 128,
                        "block_size": 16, "enable_prefix_caching": True}}  # the /kv page's vLLM-sized blocks
# What kv_view.kv_scenario reads of the generator's flags (teaching_requests: count, rate and seed).
KV_VIEW_FIELDS = frozenset({"num_requests", "qps", "seed"})
# The attention page's ranges (pages/attention_page.py, ui/attention/parts.py HEAD_DIMS).
ATTENTION_TOKENS = (8, 512)
HEAD_DIMS = (8, 16, 32, 64, 128)


def _app_defaults() -> dict[str, Any]:
    """With no flags the file is what `/` opens on: the app's default scenario (chunkviz/analysis/scenario.py
    DEFAULT_SCENARIO, the sidebar's defaults), with the detail the views draw. The generator flags stay None (not
    given): cli/simulate.workload_from_args fills them from the same scenario and refuses one the preset ignores."""
    s = DEFAULT_SCENARIO.scheduler
    return {"workload": None, "num_requests": None, "num_gpu_blocks": None, "enable_prefix_caching": None,
            "max_num_batched_tokens": s.max_num_batched_tokens, "record_detail": True}


def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="python -m chunkviz export-html",
               description="write one lesson view as a self-contained offline HTML file")
    add_scenario_flags(p)
    p.add_argument("--view", choices=VIEWS, default="timeline", help="which lesson view the file plays")
    p.add_argument("--out", type=Path, required=True, help="the HTML file to write")
    p.add_argument("--lang", choices=LANGS, default="en", help="the language of every text in the file")
    p.add_argument("--compare", choices=(*POLICY_NAMES, "none"), default=BASELINE_POLICY,
                   help="timeline: the engine drawn above --policy's on the same workload (none: one engine)")
    p.add_argument("--no-prefix-caching", dest="enable_prefix_caching", action="store_false",
                   help="kv: turn prefix caching off (the kv view opens with it on, as /kv does)")
    _add_view_flags(p)
    p.set_defaults(func=run, command="export-html", **_app_defaults())
    return p


def _add_view_flags(p: argparse.ArgumentParser) -> None:
    """The paging and attention views' own settings (the paging subcommand's names; the attention page's)."""
    p.add_argument("--algorithm", choices=tuple(ALGORITHMS), default="fifo", help="paging: the rule selected")
    p.add_argument("--frames", type=int, default=3, help="paging: number of page frames")
    p.add_argument("--refs", help='paging: reference string, e.g. "1,2,3,4" (default: --preset\'s)')
    p.add_argument("--preset", choices=tuple(PRESETS), default="belady", help="paging: a built-in reference string")
    p.add_argument("--clock-ref-bit-on-load", type=int, choices=(1, 0), default=1)
    p.add_argument("--lfu-tie-break", choices=LFU_TIE_BREAKS, default="fifo")
    p.add_argument("--attention-tokens", type=int, default=64, help="attention: prompt tokens N, 8..512")
    p.add_argument("--attention-chunk", type=int, default=16, help="attention: chunk size in tokens, 1..N")
    p.add_argument("--head-dim", type=int, choices=HEAD_DIMS, default=64, help="attention: head dimension d")


def check_out(path: Path) -> None:
    """--out must name a file in an existing folder this process can create files in (checked before any
    simulation, by creating and removing a probe file there: permission bits alone pass root everywhere, even in
    /proc, where nothing can be created)."""
    parent = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise InputError(f"--out must be a file path, {str(path)!r} is a folder")
    if not parent.is_dir():
        raise InputError(f"--out: the folder {str(parent)!r} does not exist")
    if path.exists() and not path.is_file():
        raise InputError(f"--out: {str(path)!r} is not a regular file")
    if not os.access(parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise InputError(f"--out: {str(path)!r} cannot be written (no permission)")
    try:
        fd, probe = tempfile.mkstemp(prefix=".export-", suffix=".probe", dir=parent)
    except OSError as exc:
        raise InputError(f"--out: {str(path)!r} cannot be written: the folder {str(parent)!r} does not accept new "
                         "files") from exc
    os.close(fd)
    os.unlink(probe)


def with_policy(scenario: Scenario, policy: str) -> Scenario:
    """`scenario` run by `policy`; the budget applies only to engines that chunk prompts (as the page's
    ui/timeline/lesson.py scenario_for does)."""
    budget = scenario.scheduler.max_num_batched_tokens
    return scenario.with_policy(policy, budget if policy_entry(policy).chunks(scenario.scheduler) else None)


def _run(scenario: Scenario) -> Trace:
    if scenario.deployment is not None:  # a view draws one engine on one GPU; a deployment has several
        raise InputError("export-html draws one engine on one GPU: --deployment and its flags are for simulate, "
                         "sweep and capacity")
    trace = run_scenario(scenario)
    for note in trace.knob_notes:  # resolved once, by the run itself (Trace.knob_notes)
        sys.stderr.write(f"chunkviz export-html: note: {note}\n")
    return trace


def runs_for(args: argparse.Namespace) -> list[tuple[str, Trace]]:
    """(policy, trace) per engine the timeline draws: --compare's first (if any), then --policy's."""
    scenario = scenario_from_args(args)
    policies = ([] if args.compare == "none" else [args.compare]) + [scenario.scheduler.policy]
    return [(p, _run(with_policy(scenario, p))) for p in policies]


def _in_range(flag: str, value: int, low: int, high: int, why: str) -> int:
    if not low <= value <= high:
        raise InputError(f"{flag} must be an integer from {low} to {high} ({why}), got {value}")
    return value


def kv_inputs(args: argparse.Namespace) -> dict[str, Any]:
    """The /kv page's teaching scenario (chunkviz/lessons/kv_view.py kv_scenario) from the flags, and its run."""
    if args.workload not in KV_SCENARIOS:
        raise InputError(f"--workload must be one of {', '.join(KV_SCENARIOS)} for --view kv, got {args.workload!r}")
    _refuse_generator_flags(args, KV_VIEW_FIELDS, "--view kv draws the /kv page's teaching requests, which read "
                                                  "only --num-requests, --qps and --seed")
    _in_range("--num-requests", args.num_requests, MIN_REQUESTS, MAX_REQUESTS, "the /kv page's range")
    _in_range("--num-gpu-blocks", args.num_gpu_blocks, MIN_BLOCKS, MAX_BLOCKS, "the /kv page's range")
    base = scenario_from_args(args)
    scenario = kv_scenario(base, args.workload, args.num_requests, base.cache)
    return {"scenario": scenario, "trace": _run(scenario)}


def paging_inputs(args: argparse.Namespace) -> dict[str, Any]:
    try:
        refs = parse_refs(args.refs) if args.refs is not None else PRESETS[args.preset]
    except InputError as exc:
        raise InputError(f"--refs: {exc}") from None
    return {"refs": refs, "frames": check_frames(args.frames, "--frames"), "alg": args.algorithm,
            "bit": args.clock_ref_bit_on_load == 1, "tie": args.lfu_tie_break}


def attention_inputs(args: argparse.Namespace) -> dict[str, Any]:
    n = _in_range("--attention-tokens", args.attention_tokens, *ATTENTION_TOKENS, "the /attention page's range")
    chunk = _in_range("--attention-chunk", args.attention_chunk, 1, n, "at most --attention-tokens")
    return {"num_tokens": n, "chunk_tokens": chunk, "head_dim": args.head_dim}


def _refuse_generator_flags(args: argparse.Namespace, read: frozenset[str], why: str) -> None:
    """A workload flag the view does not read is refused (an ignored flag would be silently wrong output)."""
    unused = sorted(given_workload_fields(args) - read)
    if unused:
        flags = ", ".join("--" + f.replace("_", "-") for f in unused)
        raise InputError(f"{flags}: {why}; drop {'it' if len(unused) == 1 else 'them'}")


def view_inputs(args: argparse.Namespace) -> dict[str, Any]:
    """What the view's offline_html takes, computed by the core (every bad value refused before any output)."""
    if args.view in ("paging", "attention"):
        _refuse_generator_flags(args, frozenset(), f"--view {args.view} runs no workload")
    for name, value in VIEW_DEFAULTS.get(args.view, VIEW_DEFAULTS["timeline"]).items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    if args.view == "timeline":
        return {"runs": runs_for(args), "policy_names": True}
    if args.view == "kv":
        return kv_inputs(args)
    return paging_inputs(args) if args.view == "paging" else attention_inputs(args)


def write_whole(path: Path, text: str) -> int:
    """Write `text` to `path` through a temporary file in the same folder; returns the bytes written."""
    body = text.encode("utf-8")
    fd, tmp = tempfile.mkstemp(prefix=".export-", suffix=".html", dir=path.parent if str(path.parent) else ".")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(body)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)  # mkstemp makes it private; the file is for sharing, as open() would make it
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return len(body)


def run(args: argparse.Namespace) -> int:
    check_out(args.out)
    inputs = view_inputs(args)
    size = write_whole(args.out, view_html(args.view, args.lang, **inputs))
    what = " vs ".join(p for p, _ in inputs["runs"]) if args.view == "timeline" else args.view
    sys.stdout.write(f"wrote {args.out} ({size:,} bytes): {args.view} view, {what}, {args.lang}\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    """The command's one-line errors and exit codes are the core CLI's (chunkviz.cli.main.run_command)."""
    return run_command(build_parser().parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
