"""The core stays pure: importing chunkviz (every module) loads neither streamlit nor torch."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import chunkviz

ROOT = Path(__file__).resolve().parents[1]


def test_importing_every_core_module_loads_no_ui_or_torch():
    names = [m.name for m in pkgutil.iter_modules(chunkviz.__path__, "chunkviz.")
             if m.name not in ("chunkviz.__main__",) and not m.name.startswith("chunkviz.measure")]
    code = ("import importlib, sys\n"
            f"for name in {names!r}: importlib.import_module(name)\n"
            "bad = [m for m in ('streamlit', 'torch', 'plotly') if m in sys.modules]\n"
            "print(','.join(bad))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "", f"core modules imported {out.stdout.strip()}"
    assert len(names) > 10


def test_core_sources_have_a_module_docstring():
    for path in sorted((ROOT / "chunkviz").glob("*.py")):
        text = path.read_text()
        assert text.lstrip().startswith('"""'), f"{path.name} has no module docstring"
