"""Real browser, every page in both languages: an English page shows no Chinese character, a 中文 page shows no
English word beyond the names the glossary keeps (`ui.glossary.is_kept_latin`: engine, model, GPU and knob
names, TTFT/TBT/SLO…, units).

The visible text is what a reader sees: text nodes of rendered elements (not display:none, not visibility:hidden,
with a box), inside open shadow roots (the timeline component), Plotly's SVG text (axis titles, ticks, legends),
widget placeholders and CSS `content` (the uploader's translated label is drawn that way). Canvas text (the
timeline's lane names) is not in the DOM; its words come from the same text tables `tests/ui/test_smoke.py` checks.
One shared server (conftest), one browser page reused across all 34 loads.
"""

from __future__ import annotations

import re

import pytest

from chunkviz.lessons.chapters import CHAPTERS
from tests.e2e.conftest import wait_for_app
from ui.glossary import LATIN_WORD, is_kept_latin

pytestmark = pytest.mark.e2e

PAGES = ["", "kv", "replacement", "tradeoffs", "attention", "article", "quiz", "traces", "measure",
         *[c.slug for c in CHAPTERS]]
# What a page draws on first load: a Plotly chart, or one of the browser-side elements (the chapters' slide, the
# KV, paging and attention stages).
DRAWN = ".main-svg, .st-key-stage canvas, .st-key-stage .cell, .st-key-kv_stage .cell, .st-key-attention_stage canvas"
CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef]")
WORD = LATIN_WORD

VISIBLE_TEXT_JS = """(lang) => {
  const out = [];
  const literal = (c) => c && c.startsWith('"') ? c.slice(1, -1) : '';
  const pseudo = (el) => {
    for (const p of ['::before', '::after']) {
      const cs = getComputedStyle(el, p);
      if (cs.display !== 'none' && cs.visibility === 'visible' && literal(cs.content)) out.push(literal(cs.content));
    }
  };
  const skip = (el) => ['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'TITLE'].includes(el.tagName)
    || el.dataset.testid === 'stIconMaterial'           // an icon drawn from a ligature ("upload"), not a word
    || el.classList.contains('st-key-lang')              // the language switch names each language in itself
    || (lang === 'zh' && ['CODE', 'PRE'].includes(el.tagName));  // code is shown as typed (flags, file names)
  const walk = (node, depth) => {
    if (depth > 200) return;  // bounded: Streamlit's tree is far shallower
    if (node.nodeType === Node.TEXT_NODE) {
      const p = node.parentElement;
      if (node.textContent.trim() && (!p || getComputedStyle(p).visibility === 'visible')) out.push(node.textContent.trim());
      return;
    }
    if (node.nodeType === Node.ELEMENT_NODE) {
      const cs = getComputedStyle(node);
      // display:none and opacity 0 (Plotly's mode bar until hovered) hide a whole subtree; visibility does not
      // (a child may set it back), so it is checked per text node and pseudo-element.
      if (skip(node) || cs.display === 'none' || cs.opacity === '0'
          || (cs.display !== 'contents' && node.getClientRects().length === 0)) return;
      pseudo(node);
      if (node.placeholder && !node.value) out.push(node.placeholder);
      if (node.shadowRoot) walk(node.shadowRoot, depth + 1);
    }
    for (const c of node.childNodes) walk(c, depth + 1);
  };
  walk(document.body, 0);
  return out;
}"""


def visible_text(page, lang: str) -> list[str]:
    return page.evaluate(VISIBLE_TEXT_JS, lang)


def _load(page, url: str, path: str, lang: str) -> None:
    page.goto(f"{url}/{path}?lang={lang}")
    wait_for_app(page, timeout_ms=90000)
    if path not in ("", "measure", "quiz"):  # these pages draw a chart or a browser-side stage on first load
        page.wait_for_selector(DRAWN, timeout=90000)
    if path == "":
        page.locator(".st-key-timeline canvas").wait_for(timeout=90000)
    page.wait_for_timeout(800)  # let Plotly finish its axes


def offenders(texts: list[str], lang: str) -> list[str]:
    """The visible strings that break the page's language (each with the offending part)."""
    bad = []
    if lang == "en":
        bad = [s for s in texts if CJK.search(s)]
    else:
        for s in texts:
            words = [w for w in WORD.findall(s) if not is_kept_latin(w)]
            if words:
                bad.append(f"{s!r} → {words}")
    return sorted(set(bad))


@pytest.fixture(scope="module")
def reader(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 1600})
    page = context.new_page()
    yield page
    context.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_page_speaks_one_language(reader, server_url, lang):
    report = {}
    for path in PAGES:
        _load(reader, server_url, path, lang)
        assert reader.get_by_test_id("stException").count() == 0, path
        texts = visible_text(reader, lang)
        assert len(texts) > 20, (path, texts)  # the walk saw the page (a broken walk would pass anything)
        bad = offenders(texts, lang)
        if bad:
            report[path or "/"] = bad
    assert not report, "\n".join(f"{p}: {b}" for p, b in report.items())


def test_the_check_flags_what_issue_22_found_and_passes_kept_names():
    """The rule itself, without a browser: the strings the issue saw fail, the glossary's names pass."""
    assert offenders(["首字延迟 p50 (ms)", "TTFT p50 (ms)"], "en") == ["首字延迟 p50 (ms)"]
    flagged = offenders(["View 7 more", "200MB per file • JSON", "query token", "+80.7 ms", "0 ms"], "zh")
    assert len(flagged) == 5
    assert offenders(["max_num_batched_tokens（分块引擎）", "预填充优先（vLLM V0）", "首字延迟 p99 R12", "+80.7 毫秒",
                      "Llama-3-8B · H100 · config.json"], "zh") == []


# Pages whose first load draws Plotly charts with a mode bar (the chapters hide theirs).
MODE_BAR_PAGES = ["kv", "replacement", "tradeoffs", "traces"]
# Each mode-bar button's hover tooltip (Plotly draws it as ::after, `content: attr(data-title)`), and whether the
# hovered one shows it.
TOOLTIPS_JS = """() => [...document.querySelectorAll('.modebar-btn')].map((b) => {
  const cs = getComputedStyle(b, '::after'), c = cs.content;
  return [c && c.startsWith('"') ? c.slice(1, -1) : '', b.matches(':hover') && cs.display !== 'none'];
})"""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_plotly_mode_bar_tooltips_speak_the_page_language(reader, server_url, lang):
    """Hovering a chart shows Plotly's mode bar; each button's tooltip reads in the page's language (on 中文, Plotly's
    zh-CN locale from ui/plotly_config.py, and Streamlit's own "Fullscreen" drawn in 中文 by ui/widgets.py's CSS)."""
    report = {}
    for path in MODE_BAR_PAGES:
        _load(reader, server_url, path, lang)
        chart = reader.get_by_test_id("stPlotlyChart").first
        chart.scroll_into_view_if_needed()
        chart.hover()
        button = chart.locator(".modebar-btn").first
        button.hover()
        reader.wait_for_timeout(300)
        tips = reader.evaluate(TOOLTIPS_JS)
        assert len(tips) >= 5 and all(text for text, _ in tips), (path, tips)  # every button has a tooltip
        assert any(shown for _, shown in tips), (path, tips)  # the hovered one shows it
        bad = offenders([text for text, _ in tips], lang)
        if bad:
            report[path] = bad
    assert not report, "\n".join(f"{p}: {b}" for p, b in report.items())
