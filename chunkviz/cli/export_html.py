"""`python -m chunkviz export-html`: one lesson view as one self-contained offline HTML file — a command of the app,
which draws the views, handed to it as a program of its own.

Invariant: the core imports nothing of the shell. The views' scripts, styles and texts are the app's
(ui/components/), so this module runs the app's command `python -m ui.components.offline.cli ARGS` in a child
process with the same interpreter, working folder, streams and exit code; where the app's folder is missing (the
core used on its own), it says so in one line and exits 2, before anything runs.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

COMMAND = "export-html"
# The app's command, as a module run by `python -m` from the checkout's root (the folder holding chunkviz/).
SHELL_MODULE = "ui.components.offline.cli"
ROOT = Path(__file__).resolve().parents[2]


def shell_command_file(root: Path = ROOT) -> Path:
    return root.joinpath(*SHELL_MODULE.split(".")).with_suffix(".py")


def register(subparsers: Any) -> None:
    """Listed in `python -m chunkviz --help`; its arguments are the app's command's (`export-html --help`)."""
    subparsers.add_parser(COMMAND, add_help=False,
                          help="write one lesson view as a self-contained offline HTML file (the app's command: "
                               "needs ui/ beside chunkviz/; see `export-html --help`)")


def hand_off(argv: list[str]) -> int:
    """Run the app's export command with `argv`; its exit code is ours."""
    if not shell_command_file().is_file():
        sys.stderr.write(f"chunkviz {COMMAND}: error: this command draws the app's views and needs the app's ui/ "
                         f"folder beside chunkviz/ (not found: {shell_command_file()}); run it from a full checkout\n")
        return 2
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    sys.stdout.flush()
    sys.stderr.flush()
    return subprocess.run([sys.executable, "-m", SHELL_MODULE, *argv], env=env, check=False).returncode
