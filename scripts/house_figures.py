"""The figures issue 14 asks for, measured on a checkout: lines per package, the largest module, functions over 40
lines, `# type: ignore` count, repeated code blocks and pages over 80 lines.

Usage: .venv/bin/python scripts/house_figures.py [ROOT]   (ROOT defaults to this checkout; pass another worktree,
e.g. one of the pre-restructure commit, to get the "before" column). Reads files only; imports nothing from them.

Invariant: every figure is computed from the text of the files under ROOT, so the same tree gives the same output.
"""

from __future__ import annotations

import ast
import hashlib
import io
import re
import shutil
import subprocess
import sys
import tokenize
from collections import Counter, defaultdict
from pathlib import Path

AREAS = ("chunkviz", "ui", "pages")   # the code a newcomer reads; tests, scripts and bench are left out
MAX_FUNCTION_LINES = 40               # house style: functions under 40 lines (shared/guides/style.md)
MAX_PAGE_LINES = 80                   # issue 14: pages at about 80 lines or fewer
WINDOW_LINES = 6                      # issue 14: "repeated code blocks (six or more lines of the same shape)"


def code_files(root: Path) -> list[Path]:
    files = [p for area in AREAS for p in sorted((root / area).rglob("*.py"))]
    return files + ([root / "app.py"] if (root / "app.py").exists() else [])


def count_lines(path: Path) -> int:
    return len(path.read_text().splitlines())


def package_of(root: Path, path: Path) -> str:
    """chunkviz/<sub>/... -> chunkviz.<sub>; a module directly in chunkviz/ -> chunkviz (top level)."""
    parts = path.relative_to(root).parts
    if parts[0] == "chunkviz":
        return f"chunkviz.{parts[1]}" if len(parts) > 2 else "chunkviz (top level)"
    return parts[0] if len(parts) > 1 else "(root)"


def lines_per_package(root: Path, files: list[Path]) -> dict[str, tuple[int, int]]:
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for path in files:
        entry = totals[package_of(root, path)]
        entry[0] += 1
        entry[1] += count_lines(path)
    return {name: (n, lines) for name, (n, lines) in sorted(totals.items())}


def long_functions(root: Path, files: list[Path]) -> list[tuple[int, str]]:
    """(lines, file:function) for every def longer than MAX_FUNCTION_LINES, counting its docstring, longest first."""
    found = []
    for path in files:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    found.append((length, f"{path.relative_to(root)}:{node.name}"))
    return sorted(found, reverse=True)


def type_ignores(root: Path, areas: tuple[str, ...]) -> int:
    paths = [p for a in areas for p in (root / a).rglob("*.py")] if areas else []
    return sum(p.read_text().count("# type: ignore") for p in paths)


def _shape_lines(path: Path) -> list[str]:
    """Code lines with names, strings and numbers replaced by placeholders; comments, blanks and imports dropped."""
    lines: dict[int, list[str]] = defaultdict(list)
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(path.read_text()).readline))
    except (tokenize.TokenError, SyntaxError):
        return []
    for tok in tokens:
        if tok.type == tokenize.NAME:
            text = tok.string if tok.string in KEYWORDS else "$"
        elif tok.type in (tokenize.STRING, tokenize.NUMBER):
            text = "#"
        elif tok.type == tokenize.OP:
            text = tok.string
        else:
            continue
        lines[tok.start[0]].append(text)
    shaped = [" ".join(parts) for _, parts in sorted(lines.items())]
    # Lone punctuation, pure data lines ("key": "text",), field declarations (name: type) and imports carry no
    # logic: a line counts only if it has a name or a keyword and is none of those, much as `duplicates` passes
    # over punctuation and import lines and marks declaration runs as boilerplate.
    return [s for s in shaped if re.search(r"[$A-Za-z]", s) and not s.startswith(("import ", "from ", "$ :"))]


KEYWORDS = frozenset(__import__("keyword").kwlist) | {"self"}


def repeated_blocks_own(files: list[Path]) -> int:
    """Distinct 6-line windows of the same shape that stand in two or more places, in one file or across files
    (own count, no external tool); a longer repeated block counts once per window it spans."""
    seen: Counter[str] = Counter()
    for path in files:
        shaped = _shape_lines(path)
        seen.update(hashlib.sha1("\n".join(shaped[i:i + WINDOW_LINES]).encode()).hexdigest()
                    for i in range(len(shaped) - WINDOW_LINES + 1))
    return sum(1 for n in seen.values() if n > 1)


def repeated_blocks_tool(root: Path) -> str | None:
    """The pair count of the `duplicates` command (a code-clone counter on PATH), None where it is not installed."""
    if shutil.which("duplicates") is None:
        return None
    out = subprocess.run(["duplicates", "--repo", str(root), "--most", "1", "--seconds", "120"],
                         capture_output=True, text=True, check=False).stdout
    first = out.splitlines()[0] if out else ""
    match = re.match(r"(\d+) pairs.*?\((\d+) files read\).*?(?:(\d+) of those marked boilerplate)?\)", first)
    if not match:
        return first or "no output"
    pairs, boiler = int(match.group(1)), int(match.group(3) or 0)
    return f"{pairs} pairs ({pairs - boiler} not boilerplate)"


def pages_over(root: Path) -> list[tuple[int, str]]:
    pages = sorted((root / "pages").glob("*.py"))
    return sorted(((count_lines(p), p.name) for p in pages if count_lines(p) > MAX_PAGE_LINES), reverse=True)


def report(root: Path) -> None:
    files = code_files(root)
    core = [p for p in files if p.relative_to(root).parts[0] == "chunkviz"]
    print(f"# house figures for {root}")
    print("lines per package (modules, lines):")
    for name, (n, lines) in lines_per_package(root, files).items():
        print(f"  {name:28} {n:3} modules {lines:6} lines")
    biggest = max(core, key=count_lines)
    print(f"core: {len(core)} modules, {sum(map(count_lines, core))} lines; largest module: "
          f"{biggest.relative_to(root)} ({count_lines(biggest)} lines)")
    longs = long_functions(root, files)
    print(f"functions over {MAX_FUNCTION_LINES} lines: {len(longs)} "
          f"(core {sum(1 for _, f in longs if f.startswith('chunkviz'))})")
    for length, name in longs:
        print(f"  {length:4}  {name}")
    print(f"'# type: ignore': core {type_ignores(root, ('chunkviz',))}, ui+pages {type_ignores(root, ('ui', 'pages'))}"
          f", tests {type_ignores(root, ('tests',))}")
    print(f"repeated {WINDOW_LINES}-line blocks (same shape): own count core {repeated_blocks_own(core)}, "
          f"core+ui+pages+app {repeated_blocks_own(files)}; "
          f"duplicates tool (whole tree): {repeated_blocks_tool(root) or 'not installed'}")
    over = pages_over(root)
    total_pages = len(list((root / "pages").glob("*.py")))
    print(f"pages over {MAX_PAGE_LINES} lines: {len(over)} of {total_pages}: "
          + ", ".join(f"{name} ({n})" for n, name in over))


if __name__ == "__main__":
    report(Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[1]).resolve())
