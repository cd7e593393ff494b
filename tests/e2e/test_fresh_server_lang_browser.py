"""Real browser on a freshly started server (never warmed): a `?lang=zh` deep link opened by the very first visitor
stays 中文 on the runs that follow.

Why a bare server of its own: a fresh Streamlit process runs its first script run through the pages/-folder
navigation (ui/deep_link.py), where the language radio drawn before st.navigation gets another widget id than on
every later run; the next run then met a new radio on its first option and rewrote the URL to lang=en. The shared
server (conftest) is warmed on `/` first, so no other test sees that first run. One server per case: the first run
happens once per process.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from tests.e2e.conftest import _free_port, start_server, stop_server, wait_for_app
from tests.e2e.test_language_browser import CJK, offenders, visible_text
from tests.e2e.test_reveal_fits_browser import _answer
from ui.i18n import tr

pytestmark = pytest.mark.e2e


@pytest.fixture()
def fresh_url():
    """A bare app server: started, healthy, and no script run yet (no warm-up visit)."""
    port = _free_port()
    proc = start_server(port)
    yield f"http://127.0.0.1:{port}"
    stop_server(proc)


@pytest.fixture()
def reader(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 1600})
    yield context.new_page()
    context.close()


def _lang_in_url(page) -> list[str]:
    return parse_qs(urlsplit(page.url).query).get("lang", [])


def _follow_link(page, nav_key: str) -> None:
    """Go to another page through the sidebar (a rerun; st.navigation drops the query string between pages)."""
    label = tr(nav_key, "zh")  # exact: chapter 4's label contains the KV page's name
    page.get_by_test_id("stSidebarNavLink").filter(has=page.get_by_text(label, exact=True)).click()
    page.wait_for_timeout(250)
    wait_for_app(page, timeout_ms=90000)


def _assert_chinese(page, where: str) -> None:
    assert _lang_in_url(page) == ["zh"], (where, page.url)
    checked = page.locator(".st-key-lang [data-testid='stRadioOption']:has(input:checked)")
    assert checked.count() == 1 and checked.inner_text().strip() == "中文", where
    texts = visible_text(page, "zh")
    assert len(texts) > 20, (where, texts)
    assert not offenders(texts, "zh"), (where, offenders(texts, "zh"))


@pytest.mark.parametrize("path, number", [("ch1-kitchen?present=1&lang=zh", 1), ("ch4-paged-kv?lang=zh", 4)])
def test_first_visitor_answering_a_chapter_keeps_chinese(fresh_url, reader, path, number):
    reader.goto(f"{fresh_url}/{path}")
    wait_for_app(reader, timeout_ms=120000)
    _assert_chinese(reader, "loaded")
    _answer(reader, number)
    verdict = reader.get_by_test_id("stAlertContentSuccess").first.inner_text()
    assert CJK.search(verdict), verdict  # the verdict itself is drawn in 中文
    _assert_chinese(reader, "answered")


@pytest.mark.parametrize("path, nav_key, target", [("kv?lang=zh", "nav.timeline", "/"), ("?lang=zh", "nav.kv", "/kv")])
def test_first_visitor_moving_on_from_a_reference_page_keeps_chinese(fresh_url, reader, path, nav_key, target):
    reader.goto(f"{fresh_url}/{path}")
    wait_for_app(reader, timeout_ms=120000)
    _assert_chinese(reader, "loaded")
    _follow_link(reader, nav_key)
    assert urlsplit(reader.url).path == target, reader.url
    _assert_chinese(reader, "moved on")


def test_first_visitor_can_still_switch_to_english(fresh_url, reader):
    """The kept language follows the radio: the first click on English (the first rerun) turns the page English."""
    reader.goto(f"{fresh_url}/kv?lang=zh")
    wait_for_app(reader, timeout_ms=120000)
    reader.locator(".st-key-lang [data-testid='stRadioOption']").filter(has_text="English").click()
    reader.wait_for_timeout(250)
    wait_for_app(reader, timeout_ms=90000)
    assert _lang_in_url(reader) == ["en"], reader.url
    texts = visible_text(reader, "en")
    assert len(texts) > 20 and not offenders(texts, "en"), offenders(texts, "en")
