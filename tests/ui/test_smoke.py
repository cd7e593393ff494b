"""Every page renders in both languages without an exception, and no text key leaks untranslated."""

from __future__ import annotations

import re

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
    import importlib
    import pkgutil

    import ui

    for module in pkgutil.iter_modules(ui.__path__, "ui."):
        if module.name.startswith("ui.text_"):
            importlib.import_module(module.name)
    keys = i18n.all_keys()
    assert len(keys) > 200
    for key in keys:
        en, zh = i18n.tr(key, "en"), i18n.tr(key, "zh")
        assert en and zh and en != key
        if len(re.findall(r"\b[a-z]{3,}\b", en)) >= 4:  # a sentence, not a unit or a technical term
            assert re.search(r"[\u4e00-\u9fff]", zh), f"{key} has no Chinese text: {zh!r}"
