"""Every Plotly chart gets ui/plotly_config.py's config (so a 中文 page's mode bar reads in 中文), and that config's
dictionary is 中文 the language test accepts. tests/e2e/test_language_browser.py hovers the mode bars themselves."""

from __future__ import annotations

import ast
from pathlib import Path

from ui.glossary import LATIN_WORD, is_kept_latin
from ui.plotly_config import ZH_CN

ROOT = Path(__file__).resolve().parents[2]


def _plotly_calls(path: Path) -> list[ast.Call]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and n.func.attr == "plotly_chart"]


def test_every_plotly_chart_passes_the_language_config():
    calls = {f"{p.relative_to(ROOT)}:{c.lineno}": c for folder in ("ui", "pages") for p in (ROOT / folder).rglob("*.py")
             for c in _plotly_calls(p)}
    assert len(calls) >= 15  # the walk found the pages' charts
    missing = [where for where, c in calls.items()
               if not any(k.arg == "config" and isinstance(k.value, ast.Call) and getattr(k.value.func, "id", "")
                          == "chart_config" for k in c.keywords)]
    assert missing == []


def test_the_dictionary_is_chinese_but_for_kept_names():
    assert {"Zoom", "Pan", "Autoscale", "Reset axes", "Download plot as a PNG"} <= set(ZH_CN)
    leftover = {v: [w for w in LATIN_WORD.findall(v) if not is_kept_latin(w)] for v in ZH_CN.values()}
    assert {v: w for v, w in leftover.items() if w} == {}
