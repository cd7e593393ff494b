"""Command line: `python -m chunkviz SUBCOMMAND ...`; each subcommand lives in its own module of this package.

Invariant: every failure a user can cause ends with one line on stderr and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import NoReturn

from chunkviz.cli import export_html
from chunkviz.errors import InputError, SimulationLimitError

# Subcommand modules; each exposes register(subparsers) that sets `func` to a run(args) -> int.
SUBCOMMAND_MODULES: tuple[str, ...] = (
    "chunkviz.cli.simulate",
    "chunkviz.cli.cost",
    "chunkviz.cli.paging",
    "chunkviz.cli.seed_demo",
    "chunkviz.cli.traces",
    "chunkviz.cli.measure",
    "chunkviz.cli.sweep",
    "chunkviz.cli.capacity",
    "chunkviz.cli.export_html",
)


class Parser(argparse.ArgumentParser):
    """argparse that exits with status 2 and a one-line message (its default prints usage too)."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"chunkviz {self.prog.split()[-1]}: error: {message}\n")
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="python -m chunkviz", description="chunkviz: LLM serving scheduling simulator")
    subparsers = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    for name in SUBCOMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue  # a subcommand not built yet
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == [export_html.COMMAND]:  # the app's own command, run as a program of its own (no import of ui)
        return export_html.hand_off(argv[1:])
    return run_command(build_parser().parse_args(argv))


def run_command(args: argparse.Namespace) -> int:
    """Run a parsed subcommand; a failure the user caused is one line on stderr and exit 2."""
    try:
        return int(args.func(args))
    except (InputError, ValueError, SimulationLimitError, OSError) as exc:
        sys.stderr.write(f"chunkviz {args.command}: error: {exc}\n")
        return 2
