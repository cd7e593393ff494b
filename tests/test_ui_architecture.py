"""The front end's house: one wing per page inside ui/, the shared modules beside them, no wing importing another.

Invariant checked: every import in ui/ and pages/ (module level, inside functions and under TYPE_CHECKING alike)
is of the core, of a shared module at ui/ top level, or of the importer's own wing; a shared module imports no
wing; a page imports at most one wing; no module in the core imports ui — except one named edge: the CLI's
`export-html` (chunkviz/cli/export_html.py) hands the offline file to the shell's streamlit-free ui/offline.py,
through an import inside a function and of nothing else. ui/offline.py is the one shared module that reaches
wings, and only their streamlit-free `export` modules, by name through its EXPORTS table.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
UI = ROOT / "ui"


def wings() -> set[str]:
    return {p.name for p in UI.iterdir() if p.is_dir() and (p / "__init__.py").exists()}


def imported_modules(path: Path) -> list[str]:
    """Every module an import statement in `path` names (``from ui import kv`` counts as ``ui.kv``)."""
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
            names += [f"{node.module}.{a.name}" for a in node.names]
    return names


def wing_of(module: str, known: set[str]) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "ui" and parts[1] in known else None


def offending_imports(path: Path, own_wing: str | None, known: set[str]) -> list[str]:
    return sorted({m for m in imported_modules(path) if wing_of(m, known) not in (None, own_wing)})


def test_the_wings_are_the_pages():
    assert wings() >= {"timeline", "kv", "paging", "tradeoffs", "attention", "article", "quiz", "traces", "measure",
                       "chapters"}


def test_no_wing_imports_another_wing():
    known = wings()
    bad = {str(p.relative_to(ROOT)): offending_imports(p, p.parent.name, known)
           for w in known for p in (UI / w).rglob("*.py")}
    assert {k: v for k, v in bad.items() if v} == {}


def test_shared_modules_import_no_wing():
    known = wings()
    bad = {p.name: offending_imports(p, None, known) for p in UI.glob("*.py")}
    assert {k: v for k, v in bad.items() if v} == {}


def test_a_page_imports_at_most_one_wing():
    known = wings()
    per_page = {p.name: sorted({wing_of(m, known) for m in imported_modules(p)} - {None})
                for p in (ROOT / "pages").glob("*.py")}
    assert {k: v for k, v in per_page.items() if len(v) > 1} == {}


# The one edge from the core into the shell: (importer, the only modules it may import from ui).
CORE_TO_SHELL = ("chunkviz/cli/export_html.py", {"ui.offline", "ui.offline.view_html"})


def _is_shell(module: str) -> bool:
    return module == "ui" or module.startswith("ui.") or module.startswith("streamlit")


def test_the_core_never_imports_the_shell():
    """No core module imports ui or streamlit, except export_html.py → ui.offline (and only that)."""
    allowed_path, allowed = CORE_TO_SHELL
    bad = {str(p.relative_to(ROOT)): sorted(m for m in imported_modules(p) if _is_shell(m))
           for p in (ROOT / "chunkviz").rglob("*.py")}
    bad = {k: v for k, v in bad.items() if v and not (k == allowed_path and set(v) <= allowed)}
    assert bad == {}


def test_the_core_reaches_the_shell_only_inside_a_function():
    """export_html.py's import of ui.offline is lazy: importing the CLI loads no ui (nor streamlit)."""
    tree = ast.parse((ROOT / CORE_TO_SHELL[0]).read_text(encoding="utf-8"))
    top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert not [n for n in top if isinstance(n, ast.ImportFrom) and _is_shell(n.module or "")]
    code = "import sys, chunkviz.cli.main as m; m.build_parser(); print(sorted(k for k in sys.modules if k == 'ui' " \
           "or k.startswith(('ui.', 'streamlit'))))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"


def test_the_offline_writer_reaches_only_export_modules_without_streamlit():
    """ui/offline.py's EXPORTS name wings' `export` modules only; importing them all loads no streamlit."""
    from ui.offline import EXPORTS

    known = wings()
    assert EXPORTS and all(m.split(".")[0] == "ui" and m.split(".")[1] in known and m.split(".")[2:] == ["export"]
                           for m in EXPORTS.values())
    code = (f"import importlib, sys\nfor m in {sorted(EXPORTS.values())!r}: importlib.import_module(m)\n"
            "print([k for k in sys.modules if k.startswith('streamlit')])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"
    for module in EXPORTS.values():  # an export module imports no other wing (the general rule, restated)
        path = ROOT / (module.replace(".", "/") + ".py")
        assert offending_imports(path, module.split(".")[1], known) == []


def test_the_cli_offers_exactly_the_exported_views():
    from chunkviz.cli.export_html import VIEWS
    from ui.offline import EXPORTS

    assert VIEWS == tuple(EXPORTS)


def test_the_check_sees_a_wing_importing_a_wing(tmp_path):
    """The checker itself: a module of the kv wing importing the paging wing (inside a function) is caught."""
    bad = tmp_path / "parts.py"
    bad.write_text("def f():\n    from ui.paging import charts\n    import ui.quiz.text\n", encoding="utf-8")
    assert offending_imports(bad, "kv", {"kv", "paging", "quiz"}) == ["ui.paging", "ui.paging.charts", "ui.quiz.text"]
    typed = tmp_path / "typed.py"
    typed.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ui import kv\n", encoding="utf-8")
    assert offending_imports(typed, None, {"kv"}) == ["ui.kv"]
