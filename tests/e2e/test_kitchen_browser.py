"""Real browser, lecture mode, 1280×720: chapter 1 draws its kitchen (comparison.js drawKitchen) and what it draws is
the run's. At the reveal (the cursor at the end of the banquet order's step) and with the cursor scrubbed into the
middle of that step, the kitchen it reports (data-kitchen) has R4's whole prompt on the stove and one dish, R4's first
token, the fridge
at that step's blocks in use out of the pool, the four tables before R4 frozen for as long as the trace says, each
table's dishes equal to its tokens emitted by the cursor ("1 dish", not "1 dishes"); the kitchen ↔ engine map is one
line on the slide; and after the answer the stage and the question (its verdict included) lie inside the window.
Screenshots go to test-artifacts/screenshots/kitchen/."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from chunkviz.analysis.scenario import run_scenario
from chunkviz.lessons.chapters import chapter, find_bookmark, scenario_for
from chunkviz.lessons.predictions import prediction
from tests.e2e.conftest import ROOT, wait_for_app
from ui.i18n import tr

pytestmark = pytest.mark.e2e
SHOTS = Path(os.environ.get("CHUNKVIZ_KITCHEN_SHOTS", ROOT / "test-artifacts" / "screenshots" / "kitchen"))
VIEW = {"width": 1280, "height": 720}
BOX = ".st-key-stage .cv"


def _boxes(page) -> dict:
    """The stage, the question and the map line (inside the component's shadow root: Playwright's locators pierce
    it) as [left, top, right, bottom], and whether the map line is cut."""
    def r(selector: str) -> list[float]:
        b = page.locator(selector).first.bounding_box()
        return [b["x"], b["y"], b["x"] + b["width"], b["y"] + b["height"]]
    kmap = page.locator(f"{BOX} .kmap").first
    return {"stage": r(".st-key-stage"), "predict": r(".st-key-predict"), "map": r(f"{BOX} .kmap"),
            "map_cut": kmap.evaluate("(m) => m.scrollWidth > m.clientWidth + 1"), "map_text": kmap.text_content()}


@pytest.fixture(scope="module")
def trace():
    ch = chapter(1)
    return run_scenario(scenario_for(ch, ch.policies[0]))


def _n(lang: str, key: str, **f) -> str:
    return tr(f"chx.kit.{key}", lang, **f)


def _dishes(lang: str, n: int) -> str:
    return _n(lang, "dish_one") if n == 1 else _n(lang, "dish_none") if n == 0 else _n(lang, "dishes", n=f"{n:,}")


def _check_kitchen(k: dict, trace, cursor_ms: float, lang: str) -> None:
    """The kitchen reported at `cursor_ms`, inside the banquet order's step, against the trace."""
    mark = find_bookmark(trace, "long_prefill")
    step = trace.steps[mark.step_index]
    assert k["step"] == step.step and k["busy"], k
    # R4's whole prompt on the stove; its first token is the step's one dish, none for the other tables.
    assert k["cook"] == [[mark.request_id, mark.prompt_tokens]] and k["plated"] == [mark.request_id], k
    assert k["used"] == step.num_used_blocks and k["total"] == trace.num_gpu_blocks, k
    lines = k["lines"]
    assert lines["stove"][1] == _n(lang, "cook", who=f"R{mark.request_id}", p=f"{mark.prompt_tokens:,}")
    assert lines["stove"][2] == _n(lang, "plus_one") + _n(lang, "for", who=f"R{mark.request_id}")
    pct = round(1000 * step.num_used_blocks / trace.num_gpu_blocks) / 10
    assert lines["fridge"][0] == _n(lang, "fridge", pct=f"{pct:.1f}")
    assert lines["fridge"][1] == _n(lang, "blocks", used=f"{step.num_used_blocks:,}", total=f"{trace.num_gpu_blocks:,}")
    stalled = {r for e in step.events if e.kind == "DecodeStalled" for r in e.request_ids}
    req = {r.request_id: r for r in trace.requests}
    for t, shown in zip(k["tables"], lines["tables"]):
        r = req[t["r"]]
        tok_ms = [x * 1e3 for x in r.token_times_s[0]]
        dishes = sum(1 for x in tok_ms if x <= cursor_ms + 1e-3)  # data-cursor-ms has 3 decimals
        assert t["dishes"] == dishes and shown[1] == _dishes(lang, dishes), (t, shown)
        assert shown[0] == _n(lang, "ticket", r=r.request_id, p=f"{r.prompt_tokens:,}")
        if r.request_id in stalled:
            since_ms = cursor_ms - tok_ms[dishes - 1]
            assert t["state"] == "frozen" and shown[2] == _n(lang, "st_frozen", ms=f"{since_ms:,.0f}")
        elif r.request_id == mark.request_id:
            assert t["state"] == "cooking", t
    assert sum(t["blocks"] for t in k["tables"]) == step.num_used_blocks


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_kitchen_draws_the_banquet_order_as_the_trace_runs_it(projector, server_url, trace, lang):
    SHOTS.mkdir(parents=True, exist_ok=True)
    projector.goto(f"{server_url}/{chapter(1).slug}?present=1&lang={lang}")
    wait_for_app(projector, timeout_ms=90000)
    box = projector.locator(BOX).first
    projector.locator(f"{BOX} .kitchen canvas").wait_for(timeout=90000)
    # At the question: R4 has arrived and waits, nothing of it on the stove yet.
    k = json.loads(box.get_attribute("data-kitchen"))[0]
    r4 = next(t for t in k["tables"] if t["r"] == find_bookmark(trace, "long_prefill").request_id)
    assert r4["state"] == "waiting" and k["cook"] == [], k
    box.focus()
    projector.keyboard.press("PageDown")  # the reveal: the cursor at the end of the banquet order's step
    cursor = float(box.get_attribute("data-cursor-ms"))
    _check_kitchen(json.loads(box.get_attribute("data-kitchen"))[0], trace, cursor, lang)
    projector.screenshot(path=str(SHOTS / f"ch1-{lang}-long-order.png"))
    mark = find_bookmark(trace, "long_prefill")
    middle = (mark.start_s + mark.end_s) / 2 * 1e3  # scrubbed into the middle of the step: still cooking
    box.locator(".scrub").evaluate("(e, v) => { e.value = v; e.dispatchEvent(new Event('input')); }", middle)
    cursor = float(box.get_attribute("data-cursor-ms"))
    assert abs(cursor - middle) < 0.01, (cursor, middle)
    _check_kitchen(json.loads(box.get_attribute("data-kitchen"))[0], trace, cursor, lang)
    m = _boxes(projector)
    assert m["map_text"] == tr("chx.kit.map", lang) and not m["map_cut"], m
    p = prediction(1)
    projector.locator(".st-key-predict [data-testid='stRadioOption']").nth(p.option_ids.index(p.correct_option)).click()
    wait_for_app(projector, timeout_ms=90000)
    projector.get_by_test_id("stAlertContentSuccess").first.wait_for(timeout=90000)
    projector.wait_for_timeout(500)  # the stage fits itself a frame or two after the rerun
    m = _boxes(projector)
    for key in ("stage", "predict", "map"):
        b = m[key]
        assert b[0] >= 0 and b[1] >= 0 and b[2] <= VIEW["width"] and b[3] <= VIEW["height"], (key, m)
    projector.screenshot(path=str(SHOTS / f"ch1-{lang}-answered.png"))
