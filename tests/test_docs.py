"""The README and docs/ kept honest: a short front door with a committed picture, links and anchors that resolve,
backticked repository paths that exist, and every quoted command run or parsed (issue 38).

The convention for commands (docs/README.md states it for writers): every line of a fenced ```bash block is one of
the project's commands. A plain ```bash block is run: `python -m chunkviz …` through the CLI's main() in this process
(sizes capped, output files in a temporary folder) and `python -c "…"` exec'd here, each must succeed. A
```bash parse-only block holds commands that start servers, install things, need a cluster or PyTorch, or run for
minutes: a chunkviz command must pass the CLI's own argument parser, a Python script must exist, compile and list every
--flag it is given in its --help, a shell script must exist and pass `bash -n`. Inline code starting with
`python -m chunkviz ` must name a real subcommand and only its real flags.
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import re
import shlex
import subprocess
import sys
import unicodedata
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from chunkviz.cli.main import build_parser, main

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
PAGES = [README, *DOCS, ROOT / "CHANGELOG.md"]
COMMAND_PAGES = [README, *DOCS]
MAX_README_LINES = 200

FENCE = re.compile(r"^```(\S*)\s*(.*)$")
PYTHON = r"(?:\.venv/bin/)?python3?"
CHUNKVIZ = re.compile(rf"^{PYTHON} -m chunkviz(?: |$)")
PY_C = re.compile(rf"^{PYTHON} -c ")
PY_SCRIPT = re.compile(rf"^{PYTHON} ((?:scripts|bench)/[\w./-]+\.py)(?: |$)")
SH_SCRIPT = re.compile(r"^bash ((?:scripts|bench)/[\w./-]+\.sh)(?: |$)")
ENV_PREFIX = re.compile(r"^(?:[A-Z_][A-Z0-9_]*=\S*\s+)+")
# Caps that keep a run block's commands within the file's time budget; the flags and their values stay valid.
CAPS = {"--num-requests": 200, "--max-rounds": 1}
PARALLEL_SUBCOMMANDS = {"sweep", "capacity"}
OUTPUT_FLAGS = {"--out", "--trace-out"}


@dataclass(frozen=True)
class Command:
    page: str
    line_no: int
    mode: str  # "run" or "parse-only"
    text: str  # the command with continuations joined and the trailing comment removed

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line_no}: {self.text}"


def _strip_comment(line: str) -> str:
    """The command without its trailing `# …` comment (a # inside quotes stays)."""
    quoted = False
    for i, ch in enumerate(line):
        if ch in "\"'":
            quoted = not quoted
        elif ch == "#" and not quoted and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip()
    return line.strip()


def fenced_blocks(path: Path) -> list[tuple[str, str, int, list[str]]]:
    """(language, tags, first line number, lines) of every fenced block in a Markdown file."""
    blocks, lines, open_at = [], path.read_text(encoding="utf-8").splitlines(), None
    for no, line in enumerate(lines, 1):
        m = FENCE.match(line)
        if m and open_at is None:
            open_at, lang, tags, body = no, m.group(1), m.group(2), []
        elif line.startswith("```") and open_at is not None:
            blocks.append((lang, tags, open_at + 1, body))
            open_at = None
        elif open_at is not None:
            body.append(line)
    assert open_at is None, f"{path.name}: a fenced block opened at line {open_at} is never closed"
    return blocks


def commands(path: Path) -> list[Command]:
    """Every command of the file's ```bash blocks, continuations joined."""
    found = []
    for lang, tags, start, body in fenced_blocks(path):
        if lang != "bash":
            continue
        assert tags in ("", "parse-only"), f"{path.name}:{start - 1}: unknown block tag {tags!r}"
        mode = tags or "run"
        pending, first = "", None
        for offset, line in enumerate(body):
            if not line.strip():
                continue
            first = start + offset if not pending else first
            text = _strip_comment(line)
            if text.endswith("\\"):
                pending += text[:-1].strip() + " "
                continue
            found.append(Command(path.name, first, mode, (pending + text).strip()))
            pending = ""
        assert not pending, f"{path.name}: a continued command ends its block at line {start + len(body)}"
    return found


ALL_COMMANDS = [c for page in COMMAND_PAGES for c in commands(page)]


def _kind(text: str) -> str:
    bare = ENV_PREFIX.sub("", text)
    for kind, pattern in (("chunkviz", CHUNKVIZ), ("python-c", PY_C), ("py-script", PY_SCRIPT),
                          ("sh-script", SH_SCRIPT)):
        if pattern.match(bare):
            return kind
    return "unknown"


def _argv(text: str) -> list[str]:
    """The chunkviz arguments after `python -m chunkviz`."""
    words = shlex.split(ENV_PREFIX.sub("", text))
    return words[3:]


def _capped(argv: list[str], out_dir: Path) -> list[str]:
    """argv with the CAPS applied, output files moved into out_dir, and sweeps and searches on one worker."""
    argv = list(argv)
    for i, word in enumerate(argv[:-1]):
        if word in CAPS and int(argv[i + 1]) > CAPS[word]:
            argv[i + 1] = str(CAPS[word])
        if word in OUTPUT_FLAGS:
            argv[i + 1] = str(out_dir / Path(argv[i + 1]).name)
    if argv and argv[0] in PARALLEL_SUBCOMMANDS and "--scheduler-address" not in argv:
        argv = [a for i, a in enumerate(argv) if a != "--workers" and (i == 0 or argv[i - 1] != "--workers")]
        argv += ["--workers", "1"]
    return argv


def _subcommand_parser(name: str):
    """The parser that reads `name`'s flags: the core's, or for export-html the app's own command, which the core
    runs as a program of its own (chunkviz/cli/export_html.py)."""
    if name == "export-html":
        from ui.components.offline.cli import build_parser as export_parser

        return export_parser()
    return next(a for a in build_parser()._actions if a.dest == "command").choices[name]


def _parse(argv: list[str], where: str) -> None:
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            _subcommand_parser(argv[0]).parse_args(argv[1:]) if argv[:1] == ["export-html"] else \
                build_parser().parse_args(argv)
        except SystemExit as exc:
            pytest.fail(f"{where}\n  the CLI refuses it (exit {exc.code}): {err.getvalue().strip()}")


@cache
def _script_help(script: str) -> str:
    done = subprocess.run([sys.executable, script, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"{script} --help failed: {done.stderr.strip()[-300:]}"
    return done.stdout


def _check_script(text: str, where: str) -> None:
    bare = ENV_PREFIX.sub("", text)
    m = PY_SCRIPT.match(bare)
    if m:
        script = ROOT / m.group(1)
        assert script.is_file(), f"{where}\n  {m.group(1)} does not exist"
        source = script.read_text(encoding="utf-8")
        ast.parse(source, filename=str(script))
        flags = re.findall(r"(?:^|\s)(--[a-z][\w-]*)", bare[m.end():])
        if "argparse" in source:
            help_text = _script_help(m.group(1))
            missing = [f for f in flags if f not in help_text]
            assert not missing, f"{where}\n  not in {m.group(1)} --help: {missing}"
        else:
            assert not flags, f"{where}\n  {m.group(1)} takes no flags (it has no argparse)"
        return
    m = SH_SCRIPT.match(bare)
    script = ROOT / m.group(1)
    assert script.is_file(), f"{where}\n  {m.group(1)} does not exist"
    done = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, f"{where}\n  bash -n: {done.stderr.strip()}"


def test_readme_is_a_short_front_door():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_README_LINES, f"README.md has {len(lines)} lines, at most {MAX_README_LINES}"


def test_readme_shows_a_committed_image_of_the_app():
    text = README.read_text(encoding="utf-8")
    images = re.findall(r"!\[[^\]]*\]\(([^)\s]+\.png)\)", text)
    assert images, "README.md shows no PNG image"
    tracked = subprocess.run(["git", "ls-files", "docs/images"], cwd=ROOT, capture_output=True, text=True).stdout
    for image in images:
        path = ROOT / image
        assert path.is_file(), f"README.md shows {image}, which does not exist"
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", f"{image} is not a PNG"
        assert path.stat().st_size > 10_000, f"{image} is too small to be a screenshot"
        if tracked:  # in a git checkout, the picture must be committed, not just lying there
            assert image in tracked.split(), f"{image} is not committed (git ls-files docs/images)"


def _anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"`([^`]*)`", r"\1", heading.strip()).lower()
    kept = "".join(ch for ch in text if ch in " -_" or unicodedata.category(ch)[0] in "LN")
    return kept.replace(" ", "-")


@cache
def _anchors(path: Path) -> frozenset[str]:
    seen: dict[str, int] = {}
    found = set()
    in_fence = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_fence = not in_fence
        m = None if in_fence else re.match(r"^#{1,6}\s+(.*?)\s*#*$", line)
        if m:
            base = _anchor(m.group(1))
            n = seen.get(base, 0)
            found.add(base if n == 0 else f"{base}-{n}")
            seen[base] = n + 1
    return frozenset(found)


def _prose(path: Path) -> str:
    """The file without its fenced blocks (links and paths inside them are examples, not links)."""
    out, in_fence = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_fence = not in_fence
        elif not in_fence:
            out.append(line)
    return "\n".join(out)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_relative_link_resolves(page):
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", _prose(page)):
        if re.match(r"^[a-z]+:", target):
            continue  # http(s):, mailto: — not ours to check offline
        file_part, _, fragment = target.partition("#")
        dest = (page.parent / file_part).resolve() if file_part else page
        if not dest.exists():
            broken.append(f"{target} (no {dest.relative_to(ROOT) if dest.is_relative_to(ROOT) else dest})")
        elif fragment and dest.suffix == ".md" and fragment not in _anchors(dest):
            broken.append(f"{target} (no heading with anchor #{fragment} in {dest.name})")
    assert not broken, f"{page.name}: broken links:\n  " + "\n  ".join(broken)


REPO_PATH = re.compile(r"^(?:chunkviz|ui|pages|scripts|bench|tests|docs)/[\w./{},-]*$")


def _expand(path: str) -> list[str]:
    m = re.search(r"\{([^}]*)\}", path)
    if not m:
        return [path]
    return [p for alt in m.group(1).split(",") for p in _expand(path[:m.start()] + alt + path[m.end():])]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_backticked_repository_path_exists(page):
    missing = []
    for span in re.findall(r"`([^`\n]+)`", _prose(page)):
        if REPO_PATH.match(span):
            missing += [p for p in _expand(span) if not (ROOT / p).exists()]
    assert not missing, f"{page.name}: paths that do not exist: {sorted(set(missing))}"


def test_every_command_line_is_a_project_command():
    assert len(ALL_COMMANDS) >= 30, "the docs quote fewer commands than expected: is the fence parser broken?"
    unknown = [c.where for c in ALL_COMMANDS if _kind(c.text) == "unknown"]
    assert not unknown, "lines in ```bash blocks that are no project command:\n  " + "\n  ".join(unknown)
    in_run = [c.where for c in ALL_COMMANDS if c.mode == "run" and _kind(c.text) not in ("chunkviz", "python-c")]
    assert not in_run, "only chunkviz commands may be run; mark these blocks parse-only:\n  " + "\n  ".join(in_run)


def test_every_subcommand_is_documented_with_an_example():
    documented = {_argv(c.text)[0] for c in commands(ROOT / "docs" / "cli.md")
                  if _kind(c.text) == "chunkviz" and _argv(c.text)}
    subparsers = next(a for a in build_parser()._actions if a.dest == "command")
    assert set(subparsers.choices) <= documented, f"no example in docs/cli.md: {set(subparsers.choices) - documented}"


RUN = [c for c in ALL_COMMANDS if c.mode == "run" and _kind(c.text) in ("chunkviz", "python-c")]


@pytest.mark.parametrize("cmd", RUN, ids=lambda c: f"{c.page}:{c.line_no}")
def test_run_command(cmd, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    out, err = io.StringIO(), io.StringIO()
    if _kind(cmd.text) == "python-c":
        code = shlex.split(cmd.text)[2]
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            exec(compile(code, cmd.where, "exec"), {"__name__": "__docs__"})
        assert out.getvalue().strip(), f"{cmd.where}\n  printed nothing"
        return
    argv = _capped(_argv(cmd.text), tmp_path)
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as exc:
            rc = exc.code
    assert rc == 0, f"{cmd.where}\n  ran as {argv}\n  exit {rc}: {err.getvalue().strip()[-400:]}"
    for i, word in enumerate(argv[:-1]):
        if word in OUTPUT_FLAGS:
            assert Path(argv[i + 1]).stat().st_size > 0, f"{cmd.where}\n  wrote nothing to {argv[i + 1]}"
    if "--json" in argv:
        assert out.getvalue().lstrip().startswith("{"), f"{cmd.where}\n  --json printed no JSON object"


PARSE_ONLY = [c for c in ALL_COMMANDS if c.mode == "parse-only"]


@pytest.mark.parametrize("cmd", PARSE_ONLY, ids=lambda c: f"{c.page}:{c.line_no}")
def test_parse_only_command(cmd):
    kind = _kind(cmd.text)
    if kind == "chunkviz":
        _parse(_argv(cmd.text), cmd.where)
    elif kind == "python-c":
        compile(shlex.split(cmd.text)[2], cmd.where, "exec")
    else:
        _check_script(cmd.text, cmd.where)


INLINE = re.compile(rf"`({PYTHON} -m chunkviz [^`]+)`")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_inline_chunkviz_commands_name_real_flags(page):
    """Prose may name a subcommand without its required arguments (`python -m chunkviz measure`), so an inline span is
    checked for what it names: the subcommand exists and each --flag is one of that subcommand's options."""
    subparsers = next(a for a in build_parser()._actions if a.dest == "command").choices
    for text in INLINE.findall(_prose(page)):
        if "…" in text:  # `python -m chunkviz …` names the command line, it is no command
            continue
        argv = _argv(text)
        assert argv[0] in subparsers, f"{page.name}: `{text}`: no subcommand {argv[0]!r}"
        known = {s for action in _subcommand_parser(argv[0])._actions for s in action.option_strings}
        unknown = [w.split("=")[0] for w in argv[1:] if w.startswith("--") and w.split("=")[0] not in known]
        assert not unknown, f"{page.name}: `{text}`: {argv[0]} has no {unknown}"


def test_the_readme_keeps_the_two_commands_ci_runs():
    """CI runs the README's test command (.ci/run); both commands stay in the README exactly."""
    texts = {c.text for c in commands(README)}
    assert {"bash scripts/run-app.sh", "bash scripts/test.sh"} <= texts
    assert "bash scripts/test.sh" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def _json_of(argv: list[str]) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main(argv) == 0, f"{argv} failed"
    return json.loads(out.getvalue())


def test_the_default_scenario_spelled_out_is_the_bare_command():
    """docs/cli.md's two default-scenario commands print the same JSON (the check test_prefix_caching_default makes
    for the code, here for the page that states it)."""
    section = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8").split("## The default scenario", 1)[1]
    block = section.split("```bash\n", 1)[1].split("```", 1)[0]
    bare, spelled = commands_in(block)
    assert _json_of(bare) == _json_of(spelled)


def commands_in(block: str) -> list[list[str]]:
    """The chunkviz argv of each command in a bash block's text."""
    joined = re.sub(r"\\\n\s*", " ", block)
    return [_argv(_strip_comment(line)) for line in joined.splitlines() if line.strip()]


def _ms(summary: dict, key: str) -> str:
    return f"{summary[key] * 1000:,.1f} ms"


def test_engines_table_figures_equal_the_runs():
    """Every row of docs/engines.md's default-scenario table, run with its flags: stall steps and the four latency
    figures equal the page's at its printed precision."""
    text = (ROOT / "docs" / "engines.md").read_text(encoding="utf-8")
    table = text.split("## Each engine on the default scenario", 1)[1].split("\n\n")[2]
    rows = [r for r in table.splitlines()[2:] if r.startswith("|")]
    assert len(rows) >= 10, "the engines table lost its rows"
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        flags = "" if cells[1] == "(none)" else cells[1].strip("`")
        got = _json_of(["simulate", *shlex.split(flags), "--json"])
        printed = (str(got["num_stall_steps"]), _ms(got["tbt_s"], "p50"), _ms(got["tbt_s"], "p99"),
                   _ms(got["ttft_s"], "p50"), _ms(got["ttft_s"], "p99"))
        assert tuple(cells[4:9]) == printed, f"docs/engines.md row `{flags}`: page {cells[4:9]}, run {printed}"
