"""The core stays pure and layered: importing any chunkviz module loads neither streamlit nor torch, and every
module imports only from its own layer or the layers below it (the order in chunkviz/__init__.py)."""

from __future__ import annotations

import ast
import pkgutil
import subprocess
import sys
from pathlib import Path

import chunkviz

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "chunkviz"

# Layer of each top-level name under chunkviz; a module may import a layer <= its own.
LAYERS = {"errors": 0, "inputs": 0, "config": 0, "request": 0, "replacement": 0, "cost": 1, "workloads": 2, "simulator": 3,
          "analysis": 4, "lessons": 5, "measure": 6, "cli": 7, "__main__": 8, "__init__": 8}


def _all_modules() -> list[str]:
    return [m.name for m in pkgutil.walk_packages(chunkviz.__path__, "chunkviz.")]


def _layer_of(dotted: str) -> int:
    parts = dotted.split(".")
    return LAYERS[parts[1]] if len(parts) > 1 else LAYERS["__init__"]


def _runtime_nodes(tree: ast.AST):
    """Every node except those under `if TYPE_CHECKING:` (annotations only, no import at run time)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            continue
        yield node
        yield from _runtime_nodes(node)


def _imports(path: Path) -> list[str]:
    found = []
    for node in _runtime_nodes(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
        elif isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
    return [name for name in found if name == "chunkviz" or name.startswith("chunkviz.")]


def test_walk_finds_every_subpackage():
    names = _all_modules()
    for package in ("cost", "workloads", "simulator", "simulator.kv", "analysis", "lessons", "cli", "measure"):
        assert f"chunkviz.{package}" in names
    assert len(names) > 50


def test_importing_every_core_module_loads_no_ui_or_torch():
    names = [n for n in _all_modules() if n != "chunkviz.__main__" and not n.startswith("chunkviz.measure.")]
    code = ("import importlib, sys\n"
            f"for name in {names!r}: importlib.import_module(name)\n"
            "bad = [m for m in ('streamlit', 'torch', 'plotly') if m in sys.modules]\n"
            "print(','.join(bad))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "", f"core modules imported {out.stdout.strip()}"


def test_every_module_imports_only_its_own_layer_or_below():
    offences = []
    for path in sorted(CORE.rglob("*.py")):
        dotted = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        own = _layer_of(dotted)
        for imported in _imports(path):
            if imported != "chunkviz" and _layer_of(imported) > own:
                offences.append(f"{dotted} imports {imported}")
    assert offences == []


def test_core_sources_have_a_module_docstring():
    for path in sorted(CORE.rglob("*.py")):
        text = path.read_text()
        assert text.lstrip().startswith('"""'), f"{path.relative_to(ROOT)} has no module docstring"
