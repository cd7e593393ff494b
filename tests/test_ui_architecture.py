"""The front end's house: one wing per page inside ui/, the shared services beside them at ui/ top level (at most 15
modules), each shared browser component a room of its own in ui/components/, no wing importing another.

Invariant checked: every import in ui/ and pages/ (module level, inside functions and under TYPE_CHECKING alike)
is of the core, of a shared service, of a component room, or of the importer's own wing; shared services and rooms
import no wing; a page imports at most one wing; no module in the core imports ui or streamlit, without exception
(`python -m chunkviz export-html` runs the app's command as a program of its own). The offline writer
(ui/components/offline/writer.py) is the one shared module that reaches wings, and only their streamlit-free
`export` modules, by name through its EXPORTS table.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
UI = ROOT / "ui"


COMPONENTS = UI / "components"
MAX_SHARED_MODULES = 15


def wings() -> set[str]:
    """The pages' wings: every package at ui/ top level but the components' house."""
    return {p.name for p in UI.iterdir() if p.is_dir() and (p / "__init__.py").exists() and p != COMPONENTS}


def rooms() -> set[str]:
    return {p.name for p in COMPONENTS.iterdir() if p.is_dir() and (p / "__init__.py").exists()}


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
    shared = [*UI.glob("*.py"), *COMPONENTS.rglob("*.py")]
    bad = {str(p.relative_to(ROOT)): offending_imports(p, None, known) for p in shared}
    assert {k: v for k, v in bad.items() if v} == {}


def test_ui_top_level_holds_at_most_15_shared_modules():
    assert len(list(UI.glob("*.py"))) <= MAX_SHARED_MODULES, sorted(p.name for p in UI.glob("*.py"))
    assert not list(UI.glob("*.js")) and not list(UI.glob("*.css"))  # a component's files live in its room


def test_each_component_is_a_room_with_its_files():
    """Every room holds its component whole: a docstring stating what it holds, and the .js/.css it mounts."""
    assert rooms() >= {"comparison", "kv_stage", "attention_stage", "stage_player", "offline"}
    for room in rooms():
        folder = COMPONENTS / room
        assert ast.get_docstring(ast.parse((folder / "__init__.py").read_text(encoding="utf-8"))), room
        if room != "offline":  # the offline writer has no element of its own
            assert (folder / f"{room}.js").is_file() and (folder / f"{room}.css").is_file(), room


def test_a_page_imports_at_most_one_wing():
    known = wings()
    per_page = {p.name: sorted({wing_of(m, known) for m in imported_modules(p)} - {None})
                for p in (ROOT / "pages").glob("*.py")}
    assert {k: v for k, v in per_page.items() if len(v) > 1} == {}


def _is_shell(module: str) -> bool:
    return module == "ui" or module.startswith("ui.") or module.startswith("streamlit")


def test_the_core_never_imports_the_shell():
    """No core module imports ui or streamlit: no exception."""
    bad = {str(p.relative_to(ROOT)): sorted(m for m in imported_modules(p) if _is_shell(m))
           for p in (ROOT / "chunkviz").rglob("*.py")}
    assert {k: v for k, v in bad.items() if v} == {}


def test_running_the_cli_loads_no_shell():
    """Building the whole CLI (export-html included) loads no module of ui nor streamlit."""
    code = "import sys, chunkviz.cli.main as m; m.build_parser(); print(sorted(k for k in sys.modules if k == 'ui' " \
           "or k.startswith(('ui.', 'streamlit'))))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"


def test_export_html_without_the_app_says_what_it_needs(tmp_path):
    """The core copied alone (no ui/ beside it): export-html exits 2 with one line naming ui/, writes nothing, and
    the core's own commands still run."""
    shutil.copytree(ROOT / "chunkviz", tmp_path / "chunkviz", ignore=shutil.ignore_patterns("__pycache__"))
    out_file = tmp_path / "view.html"
    run = subprocess.run([sys.executable, "-m", "chunkviz", "export-html", "--out", str(out_file)], cwd=tmp_path,
                         capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"})
    assert run.returncode == 2 and not out_file.exists()
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "needs the app's ui/ folder" in lines[0] and "Traceback" not in run.stderr
    ok = subprocess.run([sys.executable, "-m", "chunkviz", "cost", "--prefill-tokens", "512"], cwd=tmp_path,
                        capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"})
    assert ok.returncode == 0, ok.stderr


def test_export_html_in_a_full_checkout_runs_the_apps_command(tmp_path):
    out_file = tmp_path / "paging.html"
    run = subprocess.run([sys.executable, "-m", "chunkviz", "export-html", "--view", "paging", "--out", str(out_file)],
                         cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0 and out_file.stat().st_size > 10_000 and "paging view" in run.stdout


def test_the_offline_writer_reaches_only_export_modules_without_streamlit():
    """The writer's EXPORTS name wings' `export` modules only; importing them all loads no streamlit."""
    from ui.components.offline.writer import EXPORTS

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
    from ui.components.offline.cli import VIEWS
    from ui.components.offline.writer import EXPORTS

    assert VIEWS == tuple(EXPORTS)


def test_the_check_sees_a_wing_importing_a_wing(tmp_path):
    """The checker itself: a module of the kv wing importing the paging wing (inside a function) is caught."""
    bad = tmp_path / "parts.py"
    bad.write_text("def f():\n    from ui.paging import charts\n    import ui.quiz.text\n", encoding="utf-8")
    assert offending_imports(bad, "kv", {"kv", "paging", "quiz"}) == ["ui.paging", "ui.paging.charts", "ui.quiz.text"]
    typed = tmp_path / "typed.py"
    typed.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ui import kv\n", encoding="utf-8")
    assert offending_imports(typed, None, {"kv"}) == ["ui.kv"]


def _where_to_add_paths() -> list[str]:
    """Every path the ARCHITECTURE.md "Where do I add…" table names (backticked, with a slash, no placeholder)."""
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    table = text[text.index("## Where do I add"):]
    table = table[:table.index("\n\n", table.index("| --- |"))]
    tokens = re.findall(r"`([^`]+)`", table)
    return [tok for tok in tokens if "/" in tok and "<" not in tok and re.fullmatch(r"[\w./-]+", tok)]


def _exists(token: str) -> bool:
    """A folder (`a/b/`), a file (`a/b.py`), or a module's attribute (`replacement/rules.RULES` → rules.py), under the
    root or under chunkviz/ (the table names core paths both ways)."""
    candidates = [token]
    stem, dot, attr = token.rpartition(".")
    if dot and attr not in {"py", "js", "css", "md", "json", "sh"}:
        candidates.append(f"{stem}.py")
    return any((base / c).exists() for base in (ROOT, ROOT / "chunkviz") for c in candidates)


def test_the_where_to_add_table_names_paths_that_exist():
    paths = _where_to_add_paths()
    assert len(paths) >= 8  # the parser does read the table
    assert [p for p in paths if not _exists(p)] == []
    assert not _exists("ui/no_such_room/") and not _exists("replacement/nope.RULES")
