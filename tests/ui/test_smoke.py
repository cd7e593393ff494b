"""Every page renders in both languages without an exception, and no text key leaks untranslated."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.ui.apptest_helpers import open_app, texts
from ui import i18n

PAGES = ["pages/timeline_page.py", "pages/kv_cache_page.py", "pages/paging_page.py", "pages/tradeoffs_page.py",
         "pages/attention_page.py", "pages/seed_demo_page.py", "pages/quiz_page.py", "pages/traces_page.py",
         "pages/measure_page.py"]
KEY_LIKE = re.compile(r"^[a-z]{2,5}\.[a-z_.]+$")


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("page", PAGES)
def test_page_renders(page, lang):
    at = open_app(page, lang=lang)
    assert not at.exception
    assert at.title, "every page has a title"
    shown = texts(at)
    leaked = [line for line in shown.splitlines() if KEY_LIKE.match(line.strip()) and line.strip() in i18n.all_keys()]
    assert not leaked, leaked
    if lang == "zh":
        assert re.search(r"[\u4e00-\u9fff]", at.title[0].value), "the title is Chinese"


def test_every_text_has_both_languages():
    # loads every text table (ui/text_*.py, ui/<wing>/text*.py) on first use; nothing is imported for its side effect
    keys = i18n.all_keys()
    assert len(keys) > 200
    for key in keys:
        en, zh = i18n.tr(key, "en"), i18n.tr(key, "zh")
        assert en and zh and en != key
        if len(re.findall(r"\b[a-z]{3,}\b", en)) >= 4:  # a sentence, not a unit or a technical term
            assert re.search(r"[\u4e00-\u9fff]", zh), f"{key} has no Chinese text: {zh!r}"


def _fields(text: str) -> set[str]:
    import string

    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_english_and_chinese_texts_have_the_same_placeholders():
    mismatched = [key for key in i18n.all_keys() if _fields(i18n.tr(key, "en")) != _fields(i18n.tr(key, "zh"))]
    assert mismatched == []


def test_no_module_imports_a_text_table_for_its_side_effect():
    root = Path(__file__).resolve().parents[2]
    offenders = [str(p) for folder in ("app.py", "pages", "ui", "tests") for p in
                 ([root / folder] if folder.endswith(".py") else (root / folder).rglob("*.py"))
                 if re.search(r"import ui\.(\w+\.)?text(_\w+)?\s+# noqa: F401|"
                              r"from ui(\.\w+)? import text(_\w+)?\s+# noqa: F401", p.read_text())]
    assert offenders == []


def test_every_wing_has_its_texts_loaded():
    """The loader finds the shared tables and each wing's own (a wing's table left out would show raw keys)."""
    names = i18n.text_modules()
    assert {"ui.text_common", "ui.kv.text", "ui.paging.text", "ui.timeline.text", "ui.chapters.text",
            "ui.measure.text_fit"} <= set(names)
    assert i18n.tr("kv.title", "en") != "kv.title" and i18n.tr("pr.title", "zh") != "pr.title"
