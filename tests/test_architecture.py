"""The core stays pure and layered: importing any chunkviz module loads neither streamlit nor torch, every module
imports only from its own layer or the layers below it (the order in chunkviz/__init__.py), and no two modules
import each other, directly or round a longer circle. Type-only imports (under `if TYPE_CHECKING:`) and imports
inside functions count like any other: an annotation that names a module above is still an arrow up."""

from __future__ import annotations

import ast
import pkgutil
import re
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


def _module_files(core: Path) -> dict[str, Path]:
    """Dotted name -> file of every module under `core` (a package is named by its __init__.py)."""
    root = core.parent
    return {".".join(p.relative_to(root).with_suffix("").parts).removesuffix(".__init__"): p
            for p in sorted(core.rglob("*.py"))}


def _imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """The chunkviz modules a file imports anywhere in it (top level, functions, `if TYPE_CHECKING:`); `from P import
    m` names the module P.m when m is one, else P."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.update(f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules else node.module
                         for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name == "chunkviz" or name.startswith("chunkviz.")}


def import_graph(core: Path = CORE) -> dict[str, set[str]]:
    """Module -> the chunkviz modules it imports (itself left out)."""
    modules = _module_files(core)
    return {name: _imports(path, modules) - {name} for name, path in modules.items()}


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """Every arrow from a module to one in a higher layer (the package itself, chunkviz, is the top)."""
    return sorted(f"{a} imports {b}" for a, targets in graph.items() for b in targets
                  if b != "chunkviz" and _layer_of(b) > _layer_of(a))


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The circles: strongly connected groups of two or more modules (Tarjan's algorithm, iterative so that it is
    bounded by the number of arrows), each sorted, in sorted order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start] & graph.keys())))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            nxt = next(targets, None)
            if nxt is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while not group or group[-1] != node:
                        group.append(stack.pop())
                        on_stack.discard(group[-1])
                    if len(group) > 1:
                        circles.append(sorted(group))
            elif nxt not in index:
                index[nxt] = low[nxt] = len(index)
                stack.append(nxt)
                on_stack.add(nxt)
                work.append((nxt, iter(sorted(graph[nxt] & graph.keys()))))
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
    return sorted(circles)


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
    assert upward_imports(import_graph()) == []


def test_no_module_imports_itself_round_a_circle():
    assert import_cycles(import_graph()) == []


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / "chunkviz" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root / "chunkviz"


def test_the_checks_catch_a_type_only_arrow_up_and_a_circle(tmp_path):
    # The checks themselves can fail: a layer-0 module naming a simulator type under TYPE_CHECKING is an arrow up,
    # and two cost modules importing each other (one of them inside a function) are a circle.
    core = _write(tmp_path, {
        "__init__.py": "",
        "config.py": "import typing\nif typing.TYPE_CHECKING:\n    from chunkviz.simulator.trace import T\n",
        "simulator/__init__.py": "", "simulator/trace.py": "from chunkviz.config import X\n",
        "cost/__init__.py": "", "cost/a.py": "from chunkviz.cost import b\n",
        "cost/b.py": "def f():\n    from chunkviz.cost.a import g\n"})
    graph = import_graph(core)
    assert upward_imports(graph) == ["chunkviz.config imports chunkviz.simulator.trace"]
    assert import_cycles(graph) == [["chunkviz.config", "chunkviz.simulator.trace"],
                                    ["chunkviz.cost.a", "chunkviz.cost.b"]]


def test_core_sources_have_a_module_docstring():
    for path in sorted(CORE.rglob("*.py")):
        text = path.read_text()
        assert text.lstrip().startswith('"""'), f"{path.relative_to(ROOT)} has no module docstring"


# A path that only exists on the machine it was written on (shared data is ../shared or $CHUNKVIZ_SHARED instead).
MACHINE_PATH = re.compile(r"(?<![\w.~-])/(?:work|home|Users|root|mnt|tmp)/")
SOURCE_SUFFIXES = (".py", ".sh", ".md", ".toml", ".js", ".css", ".txt", ".cfg")


def test_no_source_names_an_absolute_path_of_a_machine():
    places = [ROOT / "chunkviz", ROOT / "ui", ROOT / "pages", ROOT / "tests", ROOT / "bench", ROOT / "scripts"]
    files = [p for place in places for p in sorted(place.rglob("*")) if p.suffix in SOURCE_SUFFIXES]
    files += [p for p in sorted(ROOT.glob("*")) if p.suffix in SOURCE_SUFFIXES]
    found = [f"{p.relative_to(ROOT)}:{n}" for p in files for n, line in enumerate(p.read_text().splitlines(), 1)
             if MACHINE_PATH.search(line)]
    assert found == []
    assert MACHINE_PATH.search("see " + "/work" + "/shared/x") and not MACHINE_PATH.search("../shared/x")
