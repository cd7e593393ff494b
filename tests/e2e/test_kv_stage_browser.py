"""Real browser at 1280×720: the KV stage on /kv is visible with ≥ 16 px labels in both languages, the arrow keys
and play move its cursor in the browser (no rerun), and the URL keeps the cursor (kv_step, as old links had it)."""

from __future__ import annotations

import re

import pytest

from tests.e2e.conftest import SCREENSHOTS, wait_for_app

pytestmark = pytest.mark.e2e
STAGE = ".st-key-kv_stage"


def _context(browser, width: int = 1280, height: int = 720):
    return browser.new_context(viewport={"width": width, "height": height})


@pytest.fixture()
def small(browser):
    context = _context(browser)
    yield context.new_page()
    context.close()


def _open(page, server_url: str, query: str):
    page.goto(f"{server_url}/kv{query}")
    wait_for_app(page, timeout_ms=90000)
    box = page.locator(f"{STAGE} .kvs")
    box.wait_for(timeout=60000)
    box.evaluate("e => e.scrollIntoView({block: 'start'})")  # as a teacher scrolls: the stage's top on top
    page.wait_for_timeout(100)
    return box


def _cursor(box) -> int:
    return int(box.get_attribute("data-cursor"))


@pytest.mark.parametrize("lang, step_word", [("en", "Step"), ("zh", "第")])
def test_stage_is_readable_and_an_arrow_key_redraws_it_without_a_rerun(small, server_url, lang, step_word):
    box = _open(small, server_url, f"?lang={lang}&kv_step=10")
    assert _cursor(box) == 10 and box.is_visible()
    readout = small.locator(f"{STAGE} .readout")
    assert readout.text_content().startswith(f"{step_word} 11")  # steps shown counted from 1: "Step N of N"
    # Labels a room can read: the owner label, the ref count and the caption are at least 16 px.
    sizes = small.locator(f"{STAGE} .cell .o, {STAGE} .cell .r, {STAGE} .caption").evaluate_all(
        "els => els.map(e => parseFloat(getComputedStyle(e).fontSize))")
    assert sizes and min(sizes) >= 16, sizes
    cell = small.locator(f"{STAGE} .cell").first.bounding_box()
    assert cell["width"] >= 44 and cell["height"] >= 44, cell
    draws = int(box.get_attribute("data-draws"))
    small.locator(f"{STAGE} .cell").nth(40).click()
    for _ in range(3):
        small.keyboard.press("ArrowRight")
    assert _cursor(box) == 13 and int(box.get_attribute("data-draws")) >= draws + 3
    assert readout.text_content().startswith(f"{step_word} 14")
    small.keyboard.press("ArrowLeft")
    assert _cursor(box) == 12
    small.wait_for_function("() => location.search.includes('kv_step=12')", timeout=5000)
    assert small.get_by_test_id("stApp").get_attribute("data-test-script-state") == "notRunning"


def test_play_advances_pause_stops_and_the_link_keeps_the_cursor(small, server_url):
    box = _open(small, server_url, "?lang=zh")
    small.locator(f"{STAGE} select.speed").select_option("3")  # 60 steps/s
    play = small.locator(f"{STAGE} button.play")
    play.click()
    small.wait_for_timeout(700)
    assert box.get_attribute("data-playing") == "1" and _cursor(box) > 5
    play.click()
    stopped = _cursor(box)
    small.wait_for_timeout(500)
    assert box.get_attribute("data-playing") == "0" and _cursor(box) == stopped
    small.wait_for_function(f"() => location.search.includes('kv_step={stopped}')", timeout=5000)
    again = _open(small, server_url, re.sub(r"^[^?]*", "", small.url))  # reopen the link
    assert _cursor(again) == stopped


def test_bookmark_jumps_to_the_next_prefix_hit_and_says_so(small, server_url):
    box = _open(small, server_url, "")
    small.locator(f"{STAGE} button.mark").first.click()  # next prefix hit
    assert _cursor(box) > 0
    assert "prefix hit" in small.locator(f"{STAGE} .caption .first").text_content()
    badges = small.locator(f"{STAGE} .cell.changed .badge").all_text_contents()
    assert "↺" in badges  # the reused blocks are ringed with the prefix-hit badge


@pytest.mark.parametrize("width, height", [(1280, 720), (1366, 768)])
def test_screenshots_in_both_languages_and_themes(browser, server_url, width, height):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for lang in ("en", "zh"):
        for theme in ("light", "dark"):
            context = _context(browser, width, height)
            page = context.new_page()
            box = _open(page, server_url, f"?lang={lang}&embed_options={theme}_theme&kv_scn=parallel-sampling")
            page.locator(f"{STAGE} button.mark").nth(1).click()  # the first copy-on-write
            assert _cursor(box) > 0
            page.wait_for_timeout(200)
            page.screenshot(path=str(SCREENSHOTS / f"kv-stage-{lang}-{theme}-{width}x{height}.png"))
            context.close()


# Linked highlighting and transitions (issue 35), on chapter 4's slide at its copy-on-write bookmark: the requests a
# view names are the block tables of the run at that step (trace.steps[i].snapshot.block_tables), read here from the
# run itself, not from the page.
CH4 = ".st-key-stage .kvs"
_LINKED = """(e) => ({focus: e.dataset.focusR, pinned: e.dataset.pinned, grid: +e.dataset.hlGrid,
  tables: +e.dataset.hlTables, list: +e.dataset.hlList, shown: e.dataset.focus,
  on: [...e.querySelectorAll('.cell.on')].map((c) => +c.dataset.b).sort((a, b) => a - b),
  dim: e.querySelectorAll('.cell.dim').length, cells: e.querySelectorAll('.cell').length,
  onTables: [...e.querySelectorAll('.fcol.on, .trow.on')].map((c) => c.dataset.rs),
  opacity: [...e.querySelectorAll('.cell')].map((c) => +getComputedStyle(c).opacity)})"""


def _ch4_run():
    from chunkviz.analysis.scenario import run_scenario
    from chunkviz.lessons.chapters import CHAPTERS, scenario_for
    from chunkviz.lessons.kv_stage_data import stage_columns

    ch = next(c for c in CHAPTERS if c.number == 4)
    trace = run_scenario(scenario_for(ch, ch.policies[0]))
    return ch, trace, stage_columns(trace)["jumps"]["cow"][0]


def _blocks_of(trace, step: int, r: int) -> list[int]:
    tables = trace.steps[step].snapshot.block_tables
    return sorted({b for rid, _, ids in tables if rid == r for b in ids})


def _open_ch4_at_cow(page, server_url: str, lang: str = "en"):
    ch, trace, cow = _ch4_run()
    page.goto(f"{server_url}/{ch.slug}?present=1&lang={lang}")
    wait_for_app(page, timeout_ms=90000)
    box = page.locator(CH4).first
    box.locator(".cell").first.wait_for(timeout=60000)
    box.locator("button.mark").nth(1).click()  # the copy-on-write bookmark
    assert _cursor(box) == cow
    return trace, cow, box


def _idle(page, box) -> None:
    """Wait until the step's tween is over (data-animating gone), at most 2 s."""
    page.wait_for_function("(e) => !e.dataset.animating", arg=box.element_handle(), timeout=2000)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_request_is_highlighted_in_the_grid_and_its_tables_by_pointer_and_keyboard(small, server_url, lang):
    trace, cow, box = _open_ch4_at_cow(small, server_url, lang)
    _idle(small, box)
    m = box.evaluate(_LINKED)
    assert m["focus"] == "" and m["grid"] == 0 and m["dim"] == 0 and set(m["opacity"]) == {1}, m
    # Hover one of R3's cells: R3's blocks are "on" in the grid, every other cell dimmed, its name in the list on.
    r3 = _blocks_of(trace, cow, 3)
    assert r3, "R3 holds blocks at the copy-on-write"
    visible = box.locator(".cell.used").filter(has_text="R3").first
    visible.hover()
    m = box.evaluate(_LINKED)
    assert m["focus"] == "3" and m["on"] == r3 and m["grid"] == len(r3), m
    assert m["dim"] == m["cells"] - len(r3) and m["list"] == 1, m
    on_px = {m["opacity"][b] for b in r3}
    off_px = {o for b, o in enumerate(m["opacity"]) if b not in set(r3)}
    assert on_px == {1} and max(off_px) < 0.5, (on_px, off_px)  # the rest is drawn dimmed
    # The pixels agree: the first free cell's fill is closer to the page's background once dimmed.
    free = box.locator(".cell.empty").first
    dimmed = _mean_rgb(free.screenshot())
    small.mouse.move(640, 715)  # off the stage: the hover ends
    m = box.evaluate(_LINKED)
    assert m["focus"] == "" and m["dim"] == 0, m
    plain = _mean_rgb(free.screenshot())
    assert sum(abs(a - b) for a, b in zip(dimmed, plain)) > 6, (dimmed, plain)
    # A tap on a name in "other tables" pins that request: its block table takes the panel, its cells stay on.
    box.locator(".others .seq[data-rs='1']").click()
    small.mouse.move(640, 715)
    m = box.evaluate(_LINKED)
    r1 = _blocks_of(trace, cow, 1)
    assert m["pinned"] == m["focus"] == "1" and m["shown"] == "1.0" and m["onTables"] == ["1"], m
    assert m["on"] == r1 and m["tables"] == 1 and m["list"] == 1, m
    small.keyboard.press("Escape")  # the name tapped holds the keyboard focus: Escape lets go
    m = box.evaluate(_LINKED)
    assert m["pinned"] == m["focus"] == "" and m["grid"] == m["tables"] == m["list"] == m["dim"] == 0, m
    assert m["shown"] == "5.0 5.1", m  # the story's request (R5's two samples) is back in the table panel
    # Keyboard: focus R5 sample 0's name (Tab reaches it), Enter pins R5 in the grid and both sample tables.
    box.locator(".fcol .seq").first.focus()
    small.keyboard.press("Enter")
    m = box.evaluate(_LINKED)
    r5 = _blocks_of(trace, cow, 5)
    assert m["pinned"] == m["focus"] == "5" and m["on"] == r5 and m["tables"] == 2, m
    assert box.locator(".fcol .seq").first.get_attribute("aria-pressed") == "true"
    small.keyboard.press(" ")  # Space on the same name lets go (and does not start playing)
    m = box.evaluate(_LINKED)
    assert m["pinned"] == "" and box.get_attribute("data-playing") == "0" and _cursor(box) == cow, m
    small.keyboard.press("ArrowDown")  # ↓ pins the first request holding blocks, ↓ again the next
    first = box.evaluate(_LINKED)["pinned"]
    small.keyboard.press("ArrowDown")
    second = box.evaluate(_LINKED)["pinned"]
    live = sorted({rid for rid, _, _ in trace.steps[cow].snapshot.block_tables})
    assert [first, second] == [str(live[0]), str(live[1])], (first, second, live)
    small.keyboard.press("Escape")
    assert box.evaluate(_LINKED)["pinned"] == ""
    if lang == "en":
        box.locator(".cell.used").filter(has_text="R5").first.hover()
        small.screenshot(path=str(SCREENSHOTS / "kv-stage-ch4-linked-r5.png"))


def _mean_rgb(png: bytes) -> tuple[float, ...]:
    import io

    from PIL import Image, ImageStat

    return tuple(ImageStat.Stat(Image.open(io.BytesIO(png)).convert("RGB")).mean)


def test_kv_page_rows_and_cells_share_one_highlight(small, server_url):
    """/kv: hovering a table row's name marks that request's rows and every block of it in the grid."""
    box = _open(small, server_url, "?kv_scn=parallel-sampling&kv_step=2")
    name = box.locator(".trow .seq").first
    r = int(name.get_attribute("data-rs"))
    name.hover()
    m = box.evaluate(_LINKED)
    rows = box.locator(".trow").evaluate_all("rs => rs.map((x) => x.dataset.rs)")
    assert m["focus"] == str(r) and m["tables"] == rows.count(str(r)) and m["list"] == rows.count(str(r)), m
    on_rows = box.locator(".trow.on .map").evaluate_all("ms => ms.map((x) => +x.dataset.b)")
    assert m["on"] == sorted(set(on_rows)) and m["grid"] == len(set(on_rows)) > 0, m
    box.focus()  # the keyboard in the stage, the pointer still on the name: Escape clears the hover too
    small.keyboard.press("Escape")
    assert box.evaluate(_LINKED)["focus"] == ""


# Starts a jump and reports, in the same task (before any frame), whether a tween runs; then the next step at once,
# and whether the first jump's animations were cancelled (none queued behind the new target).
_JUMP = """(e) => { const root = e.getRootNode(); e.querySelectorAll('button.mark')[1].click();
  const first = root.getAnimations(), animating = e.dataset.animating || "";
  e.querySelectorAll('.bar button')[3].click();  // ▶: the next step
  return {animating, first: first.length, cancelled: first.every((a) => a.playState === "idle"),
          after: e.dataset.animating || "", ms: e.dataset.motionMs, cursor: +e.dataset.cursor}; }"""


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_a_step_tweens_for_200_ms_unless_reduced_motion_and_ends_on_the_plain_frame(small, server_url, motion):
    small.emulate_media(reduced_motion=motion)
    ch, trace, cow = _ch4_run()
    small.goto(f"{server_url}/{ch.slug}?present=1&lang=en")
    wait_for_app(small, timeout_ms=90000)
    box = small.locator(CH4).first
    box.locator(".cell").first.wait_for(timeout=60000)
    small.mouse.move(640, 715)
    m = box.evaluate(_JUMP)
    assert m["cursor"] == cow + 1, m
    if motion == "reduce":
        assert m["ms"] == "0" and m["animating"] == m["after"] == "" and m["first"] == 0, m
    else:
        assert m["ms"] == "200" and m["animating"] == "1" and m["first"] > 0 and m["cancelled"], m
        _idle(small, box)  # ends by itself
    assert box.evaluate("(e) => e.getRootNode().getAnimations().length") == 0
    # Onto the copy-on-write from the step before: the new block starts on the shared one (a transform), then rests.
    box.focus()
    small.keyboard.press("ArrowLeft")
    small.keyboard.press("ArrowLeft")
    _idle(small, box)
    shift = box.evaluate("""(e) => { e.querySelectorAll('.bar button')[3].click();  // ▶
      const [from, to] = e.dataset.cow.split('>'), cell = e.querySelector(`.cell[data-b="${to}"]`);
      return getComputedStyle(cell).transform; }""")
    assert _cursor(box) == cow and (shift == "none") == (motion == "reduce"), shift
    if motion != "reduce":
        _idle(small, box)
    grid = box.locator(".gridscroll").screenshot()
    # The same step reached the same way with the other setting: the same pixels once the tween is over.
    small.emulate_media(reduced_motion="reduce" if motion != "reduce" else "no-preference")
    box.focus()
    small.keyboard.press("ArrowLeft")
    small.keyboard.press("ArrowRight")
    _idle(small, box)
    assert box.evaluate("(e) => e.getRootNode().getAnimations().length") == 0
    assert box.locator(".gridscroll").screenshot() == grid  # the tween's last frame is the plain drawing


# A changed block's badge (its kind's glyph) stays on its own cell, at most in the gap around it: it covers no other
# cell, and not its own cell's text ("R0×3"). On a slide the 16 px badge did overhang the next cell by 5 px.
_BADGES = """(e) => { const R = (n) => n.getBoundingClientRect(), gap = parseFloat(getComputedStyle(e.querySelector('.grid')).columnGap);
  const sc = R(e.querySelector('.gridscroll')), cells = [...e.querySelectorAll('.cell')], rects = cells.map(R), bad = [];
  const textRight = (span) => { if (!span.textContent) return -1e9; const g = document.createRange(); g.selectNodeContents(span);
                                 return g.getBoundingClientRect().right; };
  let seen = 0;
  cells.forEach((c, i) => {
    const cr = rects[i]; if (!c.classList.contains('changed') || cr.bottom < sc.top || cr.top > sc.bottom) return;
    const b = R(c.querySelector('.badge')); seen++;
    if (b.left < cr.left - gap - 0.5 || b.right > cr.right + gap + 0.5 || b.top < cr.top - gap - 0.5 || b.bottom > cr.bottom + gap + 0.5)
      bad.push(['outside its cell and gap', c.dataset.b, c.textContent]);
    rects.forEach((o, j) => { if (j !== i && b.left < o.right - 0.5 && o.left < b.right - 0.5 && b.top < o.bottom - 0.5 && o.top < b.bottom - 0.5)
      bad.push(['over cell ' + cells[j].dataset.b, c.dataset.b, c.textContent]); });
    for (const s of c.querySelectorAll('.o, .r, .q')) {
      const t = R(s); if (textRight(s) > b.left + 0.5 && t.top < b.bottom && b.top < t.bottom) bad.push(['over its text', c.dataset.b, c.textContent]);
    }
  });
  return {seen, bad: bad.slice(0, 6), gap}; }"""


@pytest.mark.parametrize("path, stage", [("kv?", ".st-key-kv_stage"), ("ch4-paged-kv?present=1&", ".st-key-stage")])
def test_a_changed_blocks_badge_stays_on_its_own_cell(small, server_url, path, stage):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    small.goto(f"{server_url}/{path}lang=en")
    wait_for_app(small, timeout_ms=90000)
    box = small.locator(f"{stage} .kvs")
    box.wait_for(timeout=60000)
    box.locator("button.mark").first.click()  # the next prefix hit: rows of "R0×N" cells, each with its badge
    small.wait_for_timeout(400)  # the step's 200 ms tween has ended: the cells are where they stay
    m = box.evaluate(_BADGES)
    assert m["seen"] >= 8 and not m["bad"], m
    if path.startswith("kv"):  # the stage scrolled into view for the picture
        box.evaluate("e => e.scrollIntoView({block: 'start'})")
    small.screenshot(path=str(SCREENSHOTS / f"kv-badges-{stage.split('-')[-1]}.png"))
