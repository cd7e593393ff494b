"""Real browser at 1280×720: the page-replacement and attention stages step, play and keep their cursor in the URL
without a server rerun, in both languages; screenshots at 1280×720 and 1366×768, light and dark."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import SCREENSHOTS, wait_for_app

pytestmark = pytest.mark.e2e
VIEW = {"width": 1280, "height": 720}
STAGES = {"replacement": (".st-key-paging_stage", "pr_step"), "attention": (".st-key-attention_stage", "am_step")}


@pytest.fixture()
def small(browser):
    context = browser.new_context(viewport=VIEW)
    p = context.new_page()
    yield p
    context.close()


def _open(page, server_url: str, path: str, query: str = ""):
    page.goto(f"{server_url}/{path}{query}")
    wait_for_app(page, timeout_ms=90000)
    key = STAGES[path][0]
    page.locator(f"{key} .cv.stage").wait_for(timeout=60000)
    page.locator(key).scroll_into_view_if_needed()
    return page.locator(f"{key} .cv.stage")


def _cursor(box) -> int:
    return int(box.get_attribute("data-cursor"))


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("path", ["replacement", "attention"])
def test_arrow_keys_move_the_cursor_redraw_and_stay_in_the_url(small, server_url, path, lang):
    key, param = STAGES[path]
    box = _open(small, server_url, path, f"?lang={lang}&{param}=1")
    bounds = small.locator(key).bounding_box()
    assert bounds["width"] >= 600 and bounds["x"] + bounds["width"] <= VIEW["width"], bounds
    readout = small.locator(f"{key} .readout")
    assert _cursor(box) == 1 and readout.is_visible()
    before, draws = readout.text_content(), int(box.get_attribute("data-draws"))
    small.locator(f"{key} .readout").click()  # focus this stage
    small.keyboard.press("ArrowRight")
    assert _cursor(box) == 2 and readout.text_content() != before
    assert int(box.get_attribute("data-draws")) > draws
    small.keyboard.press("ArrowRight")
    small.keyboard.press("ArrowLeft")
    assert _cursor(box) == 2
    small.wait_for_function(f"() => new URLSearchParams(location.search).get('{param}') === '2'", timeout=5000)
    small.keyboard.press("End")
    assert _cursor(box) == int(small.locator(f"{key} .scrub").get_attribute("max"))
    small.keyboard.press("Home")
    assert _cursor(box) == 0
    assert small.get_by_test_id("stApp").get_attribute("data-test-script-state") == "notRunning"


@pytest.mark.parametrize("path", ["replacement", "attention"])
def test_play_advances_and_pause_stops(small, server_url, path):
    key = STAGES[path][0]
    box = _open(small, server_url, path, "?lang=zh")
    small.locator(f"{key} select.speed").select_option("2")  # 5 steps/s
    play = small.locator(f"{key} button.play")
    play.click()
    small.wait_for_function("(el) => Number(el.dataset.cursor) >= 2", arg=box.element_handle(), timeout=5000)
    play.click()
    stopped = _cursor(box)
    small.wait_for_timeout(600)
    assert box.get_attribute("data-playing") == "0" and _cursor(box) == stopped
    assert int(box.get_attribute("data-dropped")) == 0


def test_a_link_reopens_the_cursor_it_kept(small, server_url):
    box = _open(small, server_url, "replacement", "?pr_step=3")
    small.locator(".st-key-paging_stage .readout").click()
    small.keyboard.press("ArrowRight")
    small.wait_for_function("() => location.search.includes('pr_step=4')", timeout=5000)
    url = small.url
    box = _open(small, server_url, "replacement", "?" + url.split("?", 1)[1])
    assert _cursor(box) == 4


def test_belady_bookmark_puts_three_and_four_frames_side_by_side(small, server_url):
    box = _open(small, server_url, "replacement", "?pr_step=0")
    small.locator(".st-key-paging_stage button.mark.belady").click()
    assert _cursor(box) == 8 and box.get_attribute("data-mode") == "belady"
    cards = small.locator(".st-key-paging_stage .card .title")
    assert cards.count() == 2 and "3 frames" in cards.nth(0).text_content() and "4 frames" in cards.nth(1).text_content()
    why = small.locator(".st-key-paging_stage .why").text_content()
    assert "with 4 frames it is a fault, with 3 frames a hit" in why and "9 vs 10" in why
    tall = box.bounding_box()["height"]
    small.locator(".st-key-paging_stage button.mark.all").click()
    assert small.locator(".st-key-paging_stage .card").count() == 5
    small.wait_for_timeout(200)
    assert box.bounding_box()["height"] < tall - 100  # back to one grid: the stage gives the room back


def test_the_paging_reason_names_the_rule_and_its_fact(small, server_url):
    box = _open(small, server_url, "replacement", "?pr_alg=lru&pr_step=10")
    assert _cursor(box) == 10
    lru = small.locator('.st-key-paging_stage .card[data-alg="lru"] .reason').text_content()
    assert "LRU: page 5 unused for 3 references (last used at reference 7)." in lru
    opt = small.locator('.st-key-paging_stage .card[data-alg="opt"] .reason').text_content()
    assert "OPT: page 1 is never used again." in opt


def test_attention_end_is_the_one_pass_check(small, server_url):
    box = _open(small, server_url, "attention", "?am_step=2")
    assert "Chunk 2 of 4: queries 16–31" in small.locator(".st-key-attention_stage .head").text_content()
    small.locator(".st-key-attention_stage button.mark.equal").click()
    assert _cursor(box) == 5
    info = small.locator(".st-key-attention_stage .info").text_content()
    assert "max |Δ| against one pass" in info and "the same as one pass" in info and "(+150%)" in info


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("size", [(1280, 720), (1366, 768)])
def test_screenshots(browser, server_url, size, lang, theme):
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    page = context.new_page()
    try:
        for path, query in (("replacement", "pr_step=8"), ("attention", "am_step=2")):
            _open(page, server_url, path, f"?lang={lang}&{query}&embed_options={theme}_theme")
            page.locator(STAGES[path][0]).evaluate("(el) => el.scrollIntoView({block: 'start'})")
            page.wait_for_timeout(300)
            screenshot_view(page, f"stage-{path}-{size[0]}x{size[1]}-{lang}-{theme}")
    finally:
        context.close()


def screenshot_view(page, name: str) -> None:
    """What a projector shows: the viewport with the stage at its top (not the full page)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=False)


def test_a_long_string_slides_its_window_with_the_cursor(small, server_url):
    refs = [(k * 7 + k // 5) % 9 for k in range(60)]
    _open(small, server_url, "replacement", f"?pr_refs={','.join(map(str, refs))}&pr_step=50")
    now = small.locator(".st-key-paging_stage .ref.now")
    assert now.is_visible() and now.text_content() == str(refs[49])
    assert now.get_attribute("title") == "reference 50"
    small.locator(".st-key-paging_stage .readout").click()
    small.keyboard.press("ArrowRight")
    assert now.get_attribute("title") == "reference 51" and now.text_content() == str(refs[50])


def test_without_an_anomaly_the_bookmark_loads_beladys_string(small, server_url):
    _open(small, server_url, "replacement", "?pr_preset=textbook")
    small.locator(".st-key-paging_stage button.mark.belady-load").click()  # a trigger: one server rerun
    small.locator(".st-key-paging_stage button.mark.belady").wait_for(timeout=30000)
    assert small.locator(".st-key-pr_refs input").input_value() == "1,2,3,4,1,2,5,1,2,3,4,5"


# The query axis's upright label keeps its distance from the row ticks, however wide they are ("512"): the boxes the
# stage reports are ≥ 16 px apart, and the canvas between them is really empty (nothing drawn: alpha 0).
_AXIS = """(e) => { const c = e.querySelector('canvas'), k = c.width / c.clientWidth;
  const q = JSON.parse(e.dataset.axisQuery), ticks = JSON.parse(e.dataset.axisTicks);
  const x0 = Math.ceil(q[2] + 1), x1 = Math.floor(Math.min(...ticks.map((t) => t[0])) - 1);
  const y0 = Math.round(ticks[0][1]), y1 = Math.round(ticks[ticks.length - 1][3]);
  const px = c.getContext('2d').getImageData(Math.round(x0 * k), Math.round(y0 * k), Math.max(Math.round((x1 - x0) * k), 1),
                                             Math.round((y1 - y0) * k)).data;
  let inked = 0; for (let i = 3; i < px.length; i += 4) if (px[i] > 0) inked++;
  return {q, ticks, inked, band: [x0, x1]}; }"""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_query_axis_label_keeps_clear_of_its_ticks(small, server_url, lang):
    box = _open(small, server_url, "attention", f"?am_n=512&am_chunk=64&lang={lang}")
    m = box.evaluate(_AXIS)
    q, ticks = m["q"], m["ticks"]
    assert [t for t in ticks if t[2] - t[0] > 20], m  # "128" … "512": three-digit ticks (they crowded the label)
    assert q[0] >= 0 and all(t[0] - q[2] >= 16 for t in ticks), m
    axis_mid = (ticks[0][3] + ticks[-1][3]) / 2
    assert abs((q[1] + q[3]) / 2 - axis_mid) < 20, m  # centred on the axis, not hanging from its end
    assert m["band"][1] - m["band"][0] >= 14 and m["inked"] == 0, m
    small.screenshot(path=str(SCREENSHOTS / f"attention-axis-512-{lang}.png"))
