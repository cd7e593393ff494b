"""`python -m chunkviz export-html`: one lesson view as one self-contained HTML file (component code, styles and
data inline) that plays in a browser from file:// with no server and no network.

Invariant: the core builds the scenario and runs it; the file itself is the shell's (ui/offline.py, streamlit-free),
reached through the one lazy import in `_html` — the only edge from the core into ui/, allowed by name in
tests/test_ui_architecture.py. Bad input ends with one line and exit 2 before anything is written; the file is
written whole (a temporary file renamed into place), so a failure never leaves half a file.
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
from chunkviz.cli.simulate import add_scenario_flags, scenario_from_args
from chunkviz.errors import InputError
from chunkviz.simulator.engine import knob_notes, resolve_knobs
from chunkviz.simulator.kv.setup import num_gpu_blocks
from chunkviz.simulator.policies.registry import POLICY_NAMES, policy_entry
from chunkviz.simulator.trace import Trace

# The views whose stage is built (ui/offline.py's EXPORTS has the same keys; a test checks it).
VIEWS = ("timeline",)
LANGS = ("en", "zh")


def _app_defaults() -> dict[str, Any]:
    """With no flags the file is what `/` opens on: the app's default scenario (chunkviz/analysis/scenario.py
    DEFAULT_SCENARIO, the sidebar's defaults), with the detail the views draw."""
    w, s = DEFAULT_SCENARIO.workload, DEFAULT_SCENARIO.scheduler
    return {"workload": DEFAULT_SCENARIO.workload_preset, "num_requests": w.num_requests, "qps": w.qps,
            "arrival": w.arrival, "burstiness_cv": w.burstiness_cv, "prompt_tokens": w.prompt_tokens,
            "output_tokens": w.output_tokens, "length_dist": w.length_dist, "batch_fraction": w.batch_fraction,
            "seed": w.seed, "shared_prefix_tokens": w.shared_prefix_tokens, "n_samples": w.n_samples,
            "max_num_batched_tokens": s.max_num_batched_tokens, "record_detail": True}


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("export-html", help="write one lesson view as a self-contained offline HTML file")
    add_scenario_flags(p)
    p.add_argument("--view", choices=VIEWS, default="timeline", help="which lesson view the file plays")
    p.add_argument("--out", type=Path, required=True, help="the HTML file to write")
    p.add_argument("--lang", choices=LANGS, default="en", help="the language of every text in the file")
    p.add_argument("--compare", choices=(*POLICY_NAMES, "none"), default="monolithic",
                   help="timeline: the engine drawn above --policy's on the same workload (none: one engine)")
    p.set_defaults(func=run, **_app_defaults())


def check_out(path: Path) -> None:
    """--out must name a file in an existing, writable folder (checked before any simulation)."""
    parent = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise InputError(f"--out must be a file path, {str(path)!r} is a folder")
    if not parent.is_dir():
        raise InputError(f"--out: the folder {str(parent)!r} does not exist")
    if not os.access(parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise InputError(f"--out: {str(path)!r} cannot be written (no permission)")


def with_policy(scenario: Scenario, policy: str) -> Scenario:
    """`scenario` run by `policy`; the budget applies only to engines that chunk prompts (as the page's
    ui/timeline/lesson.py scenario_for does)."""
    budget = scenario.scheduler.max_num_batched_tokens
    return scenario.with_policy(policy, budget if policy_entry(policy).chunks(scenario.scheduler) else None)


def _run(scenario: Scenario) -> Trace:
    config = scenario.sim_config()
    blocks = num_gpu_blocks(config)
    for note in knob_notes(config, resolve_knobs(config, blocks), blocks):
        sys.stderr.write(f"chunkviz export-html: note: {note}\n")
    return run_scenario(scenario)


def runs_for(args: argparse.Namespace) -> list[tuple[str, Trace]]:
    """(policy, trace) per engine the view draws: --compare's first (if any), then --policy's."""
    scenario = scenario_from_args(args)
    policies = ([] if args.compare == "none" else [args.compare]) + [scenario.scheduler.policy]
    return [(p, _run(with_policy(scenario, p))) for p in policies]


def _html(view: str, runs: list[tuple[str, Trace]], lang: str) -> str:
    from ui.offline import view_html  # the one edge from the core into the shell (see the module docstring)

    return view_html(view, runs, lang, policy_names=True)


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
    runs = runs_for(args)
    size = write_whole(args.out, _html(args.view, runs, args.lang))
    engines = " vs ".join(p for p, _ in runs)
    sys.stdout.write(f"wrote {args.out} ({size:,} bytes): {args.view} view, {engines}, {args.lang}\n")
    return 0
