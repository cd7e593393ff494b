"""The front end's house: one wing per page inside ui/, the shared modules beside them, no wing importing another.

Invariant checked: every import in ui/ and pages/ (module level, inside functions and under TYPE_CHECKING alike)
is of the core, of a shared module at ui/ top level, or of the importer's own wing; a shared module imports no
wing; a page imports at most one wing; no module in the core imports ui.
"""

from __future__ import annotations

import ast
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


def test_the_core_never_imports_the_shell():
    bad = [str(p.relative_to(ROOT)) for p in (ROOT / "chunkviz").rglob("*.py")
           if any(m == "ui" or m.startswith("ui.") or m.startswith("streamlit") for m in imported_modules(p))]
    assert bad == []


def test_the_check_sees_a_wing_importing_a_wing(tmp_path):
    """The checker itself: a module of the kv wing importing the paging wing (inside a function) is caught."""
    bad = tmp_path / "parts.py"
    bad.write_text("def f():\n    from ui.paging import charts\n    import ui.quiz.text\n", encoding="utf-8")
    assert offending_imports(bad, "kv", {"kv", "paging", "quiz"}) == ["ui.paging", "ui.paging.charts", "ui.quiz.text"]
    typed = tmp_path / "typed.py"
    typed.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ui import kv\n", encoding="utf-8")
    assert offending_imports(typed, None, {"kv"}) == ["ui.kv"]
