"""Real browser, markup injection (issue 16): every page opened with Markdown and HTML payloads in every URL
parameter it publishes shows them as text; no link, image, frame or tag in the page came from them."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit

import pytest

from tests.e2e.conftest import screenshot, wait_for_app

pytestmark = pytest.mark.e2e

PAGES = ["", "kv", "replacement", "tradeoffs", "attention", "article", "quiz", "traces", "measure"]
EVIL = "evil.example"
PAYLOADS = (f"[click here](https://{EVIL}/a)", f"![x](https://{EVIL}/i.png)", f'<img src="https://{EVIL}/t.png">',
            f'<b id="injected">x</b> www.{EVIL}')
SIDEBAR_KEYS = ("preset", "model", "gpu", "n", "qps", "seed")
# Any element pointing at the payloads' address, or carrying the payload's own tag: none may exist.
FOUND_JS = """(evil) => {
  const hits = [];
  for (const el of document.querySelectorAll('a, img, iframe, script, source, link, video, audio, object, embed')) {
    for (const name of ['href', 'src', 'srcset', 'data']) {
      const v = el.getAttribute(name);
      if (v && v.includes(evil)) hits.push(el.tagName + ' ' + name + '=' + v);
    }
  }
  if (document.getElementById('injected')) hits.push('element #injected');
  return hits;
}"""


def _open(page, server_url: str, path: str, query: dict[str, str]) -> None:
    page.goto(f"{server_url}/{path}?{urlencode(query)}")
    wait_for_app(page, timeout_ms=60000)


def _published_keys(page) -> list[str]:
    return sorted({key for key, _ in parse_qsl(urlsplit(page.url).query)} - {"lang"})


@pytest.mark.parametrize("path", PAGES)
def test_payloads_in_every_url_parameter_stay_text(page, server_url, path):
    _open(page, server_url, path, {key: PAYLOADS[i % len(PAYLOADS)] for i, key in enumerate(SIDEBAR_KEYS)})
    keys = sorted(set(_published_keys(page)) | set(SIDEBAR_KEYS))  # this page's own keys, read from its URL
    _open(page, server_url, path, {key: PAYLOADS[i % len(PAYLOADS)] for i, key in enumerate(keys)})
    assert page.get_by_test_id("stException").count() == 0
    assert page.evaluate(FOUND_JS, EVIL) == []
    alerts = " ".join(page.get_by_test_id("stAlert").all_inner_texts()).replace("\u2060", "")  # word joiners
    assert "[click here](https://" in alerts  # shown as characters
    screenshot(page, f"injection-{path or 'timeline'}")
