"""Every stepped lesson page (/, /kv, /replacement, /attention, the chapters) offers "Download this view" (the
offline HTML file), labelled in the page's language."""

from __future__ import annotations

import pytest

from chunkviz.lessons.chapters import chapter
from tests.ui.apptest_helpers import open_app
from ui.chapters.common import page_file
from ui.i18n import tr


def _download(at, key: str):
    (button,) = [b for b in at.get("download_button") if b.proto.id.endswith(f"-{key}")]
    return button.proto


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_timeline_page_offers_its_view(lang):
    proto = _download(open_app(lang=lang), "dl_view")
    assert proto.label == tr("dl.view", lang) and proto.help == tr("dl.view_help", lang)
    assert proto.deferred_file_id  # built on click only, so stepping never pays for the file


def test_lecture_mode_keeps_it_in_the_downloads():
    at = open_app(present="1")
    assert _download(at, "dl_view").label == tr("dl.view", "en")
    (downloads,) = [e for e in at.expander if e.label == tr("tl.downloads", "en")]
    assert [b for b in downloads.get("download_button") if b.proto.id.endswith("-dl_view")]


@pytest.mark.parametrize("page, key, lang", [("pages/kv_cache_page.py", "kv_dl_view", "en"),
                                            ("pages/paging_page.py", "pr_dl_view", "zh"),
                                            ("pages/attention_page.py", "am_dl_view", "en")])
def test_every_stage_page_offers_its_view(page, key, lang):
    assert _download(open_app(page, lang=lang), key).label == tr("dl.view", lang)


@pytest.mark.parametrize("number", range(1, 10))
def test_every_chapter_offers_its_view(number):
    at = open_app(page_file(chapter(number)))
    assert _download(at, f"c{number}_dl_view").label == tr("dl.view", "en")


def test_a_chapter_labels_it_in_chinese():
    at = open_app(page_file(chapter(2)), lang="zh")
    assert _download(at, "c2_dl_view").label == tr("dl.view", "zh")
