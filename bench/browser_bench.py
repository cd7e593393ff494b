"""Browser benchmark: from real Chromium, arrow key → last redraw on /, /kv, /replacement and /attention, and
playback of the timeline, the KV stage and the paging and attention stages (steps shown per second at 20 and 60
steps/s, frames per second, dropped steps).

Run: .venv/bin/python bench/browser_bench.py [--root DIR] [--repeats N] [--reduced-motion]
A step glides for 200 ms by design (issue 35: transitions, not jumps), so key → last redraw includes the glide;
`--reduced-motion` opens the pages as a browser asking for reduced motion, where each step is drawn once: that is the
figure to compare with revisions before the motion.
`--root /path/to/other/checkout` measures another revision's app (e.g. before the timeline component) with the
same method. Speed is measured here, never asserted in tests.

Method: a MutationObserver on the document and on every open shadow root records the time of the last DOM change;
after the key press the page must stay quiet for QUIET_MS (and Streamlit's script must be idle), and the figure is
last change − key press. The timeline component writes its cursor into data-* attributes on every redraw, so its
canvas redraws count as DOM changes too.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, _free_port, start_server  # noqa: E402

QUIET_MS = 700
OBSERVE_JS = """() => {
  window.__lastChange = performance.now();
  const watch = (node) => new MutationObserver(() => { window.__lastChange = performance.now(); })
      .observe(node, {subtree: true, childList: true, attributes: true, characterData: true});
  watch(document);
  document.querySelectorAll('*').forEach((e) => { if (e.shadowRoot) watch(e.shadowRoot); });
}"""
SETTLE_JS = """([t0, quiet]) => new Promise((resolve) => {
  const check = () => {
    const idle = document.querySelector('[data-testid="stApp"][data-test-script-state="notRunning"]');
    if (idle && performance.now() - window.__lastChange > quiet) resolve(window.__lastChange - t0);
    else setTimeout(check, 20);
  };
  setTimeout(check, 50);
})"""


def wait_idle(page) -> None:
    page.wait_for_timeout(250)
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=120000)
    page.wait_for_function("document.querySelectorAll('[data-testid=\"stSkeleton\"]').length === 0",
                           timeout=120000)


def press_and_settle(page, repeats: int) -> list[float]:
    """Press → `repeats` times on the focused element, timing each to the page's last DOM change."""
    page.evaluate(OBSERVE_JS)
    out = []
    for _ in range(repeats):  # bounded by --repeats
        t0 = page.evaluate("performance.now()")
        page.keyboard.press("ArrowRight")
        out.append(page.evaluate(SETTLE_JS, [t0, QUIET_MS]))
    return out


def key_to_redraw_ms(page, url: str, repeats: int, canvas: str = ".st-key-timeline canvas") -> list[float]:
    """Load `url`, focus the element (`canvas`, else the page), then press → `repeats` times, timing each to the
    last DOM change."""
    page.goto(url)
    wait_idle(page)
    page.wait_for_timeout(1500)
    target = page.locator(canvas)
    if target.count():
        target.click(position={"x": 5, "y": 5})
    else:
        page.get_by_test_id("stApp").click(position={"x": 5, "y": 5})
    return press_and_settle(page, repeats)


def playback(page, url: str, speed_index: int, seconds: float) -> dict[str, float]:
    """Play the timeline at data.speeds[speed_index] for `seconds`; steps shown, frames drawn, dropped steps."""
    page.goto(url)
    wait_idle(page)
    box = page.locator(".st-key-timeline .cv")
    page.locator(".st-key-timeline select.speed").select_option(str(speed_index))
    read = lambda: {k: float(box.get_attribute(f"data-{k}") or 0) for k in ("steps-shown", "draws", "dropped")}  # noqa: E731
    before = read()
    page.locator(".st-key-timeline button.play").click()
    page.wait_for_timeout(seconds * 1000)
    after = read()
    page.locator(".st-key-timeline button.play").click()
    return {"steps_per_s": (after["steps-shown"] - before["steps-shown"]) / seconds,
            "fps": (after["draws"] - before["draws"]) / seconds, "dropped": after["dropped"] - before["dropped"]}


KV_STAGE = ".st-key-kv_stage"


def kv_stage_figures(page, base: str, repeats: int, seconds: float) -> None:
    """The KV stage on /kv (ui/components/kv_stage/kv_stage.js): arrow key → last redraw with the focus in the stage,
    then playback at
    20 and 60 steps/s from step 0 (steps shown per second, frames drawn, dropped steps). Prints one line each; on a
    checkout without the stage it says so (its /kv line above is the per-step rerun)."""
    page.goto(base + "/kv?kv_step=0")
    wait_idle(page)
    try:
        page.locator(f"{KV_STAGE} .kvs").wait_for(timeout=15000)  # the element mounts after the script is idle
    except Exception:  # playwright's TimeoutError: an older checkout has no stage
        print("KV stage: none on this checkout")
        return
    page.locator(f"{KV_STAGE} .cell").nth(40).click()
    times = press_and_settle(page, repeats)
    print(f"KV stage arrow key -> last redraw    {summary(times)}")
    box = page.locator(f"{KV_STAGE} .kvs")
    for index, rate in ((2, 20), (3, 60)):  # ui/components/kv_stage/export.py SPEEDS
        page.locator(f"{KV_STAGE} button[aria-label]").first.click()  # Home: step 0
        page.locator(f"{KV_STAGE} select.speed").select_option(str(index))
        read = lambda: {k: float(box.get_attribute(f"data-{k}") or 0)  # noqa: E731
                        for k in ("steps-shown", "draws", "dropped", "draw-ms")}
        before = read()
        page.locator(f"{KV_STAGE} button.play").click()
        page.wait_for_timeout(seconds * 1000)
        after = read()
        if box.get_attribute("data-playing") == "1":
            page.locator(f"{KV_STAGE} button.play").click()
        shown = after["steps-shown"] - before["steps-shown"]
        print(f"KV stage playback at {rate} steps/s   steps shown {shown / seconds:.1f}/s, "
              f"{(after['draws'] - before['draws']) / seconds:.1f} frames/s, dropped steps "
              f"{after['dropped'] - before['dropped']:.0f}, mean draw "
              f"{(after['draw-ms'] - before['draw-ms']) / max(after['draws'] - before['draws'], 1):.1f} ms")


# The paging and attention stages (ui/components/stage_player/stage_player.js): the same arrow-key method, on the
# stage when the revision has
# one (the cursor lives in data-cursor), else on the old server-side step buttons (shortcut="Right").
STAGE_PAGES = (("/replacement", "?pr_step=3", ".st-key-paging_stage"),
               ("/attention", "?am_n=512&am_chunk=16&am_step=1", ".st-key-attention_stage"))
# Long enough to play for seconds at 60 steps/s: 400 references (a fixed pseudo-random string) and 512 chunks.
PLAY_REFS = ",".join(str((k * 7 + k // 5) % 9) for k in range(400))
STAGE_PLAY = (("/replacement", f"?pr_refs={PLAY_REFS}&pr_step=0", ".st-key-paging_stage"),
              ("/attention", "?am_n=512&am_chunk=1&am_step=0", ".st-key-attention_stage"))
STAGE_SPEEDS = ((3, "20 steps/s"), (4, "60 steps/s"))  # stage_player/mount.py SPEEDS_STEPS_PER_S


def has_stage(page, key: str) -> bool:
    """Whether the page draws the stage `key` (waits up to 15 s for it: a loaded machine mounts it late)."""
    try:
        page.locator(f"{key} .cv.stage").wait_for(timeout=15000)
    except Exception:  # noqa: BLE001 (Playwright's TimeoutError: an older revision has no stage)
        return False
    return True


def stage_key_to_redraw_ms(page, url: str, key: str, repeats: int) -> list[float] | None:
    """Arrow key -> last DOM change on a stage (focused by a click on its readout); None if the page has none."""
    page.goto(url)
    wait_idle(page)
    if not has_stage(page, key):
        return None
    page.wait_for_timeout(1500)
    page.locator(f"{key} .readout").click()
    return press_and_settle(page, repeats)


def stage_playback(page, url: str, key: str, speed_index: int, seconds: float) -> dict[str, float] | None:
    """Play a stage at speeds[speed_index] for `seconds`: positions shown per second, frames drawn, dropped."""
    page.goto(url)
    wait_idle(page)
    if not has_stage(page, key):
        return None
    page.wait_for_timeout(1500)  # the page's Plotly charts finish drawing first (steady state, as for the keys)
    box = page.locator(f"{key} .cv.stage")
    page.locator(f"{key} select.speed").select_option(str(speed_index))
    read = lambda: {k: float(box.get_attribute(f"data-{k}") or 0) for k in ("steps-shown", "draws", "dropped")}  # noqa: E731
    before = read()
    page.locator(f"{key} button.play").click()
    page.wait_for_timeout(seconds * 1000)
    after = read()
    page.locator(f"{key} button.play").click()
    return {"steps_per_s": (after["steps-shown"] - before["steps-shown"]) / seconds,
            "fps": (after["draws"] - before["draws"]) / seconds, "dropped": after["dropped"] - before["dropped"]}


def stage_benchmarks(page, base: str, repeats: int, play_seconds: float) -> None:
    """Print arrow key -> last redraw and playback figures for /replacement and /attention."""
    for path, query, key in STAGE_PAGES:
        values = stage_key_to_redraw_ms(page, base + path + query, key, repeats)
        if values is None:  # an older revision: the page's own step buttons (a server rerun per step)
            values = key_to_redraw_ms(page, base + path + query, repeats)
        print(f"arrow key -> last redraw on {path:<13} {summary(values)}")
    for path, query, key in STAGE_PLAY:
        for index, name in STAGE_SPEEDS:
            r = stage_playback(page, base + path + query, key, index, play_seconds)
            if r is None:
                print(f"playback on {path:<13} at {name}: no stage (the page plays at most 4 steps/s on the server)")
                continue
            print(f"playback on {path:<13} at {name:<11} steps shown {r['steps_per_s']:.1f}/s, {r['fps']:.1f} "
                  f"frames/s, dropped steps {r['dropped']:.0f}")


def summary(values: list[float]) -> str:
    return f"p50 {statistics.median(values):.0f} ms, max {max(values):.0f} ms (n={len(values)})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="checkout whose app is measured")
    parser.add_argument("--repeats", type=int, default=8)
    parser.add_argument("--play-seconds", type=float, default=4.0)
    parser.add_argument("--reduced-motion", action="store_true",
                        help="prefers-reduced-motion: reduce (each step drawn once, no 200 ms glide)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    port = _free_port()
    root = args.root.resolve()
    venv = root / ".venv" / "bin" / "python"  # a worktree without its own venv runs with this interpreter
    proc = start_server(port, root, str(venv) if venv.exists() else sys.executable)
    base = f"http://127.0.0.1:{port}"
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            motion = "reduce" if args.reduced_motion else "no-preference"
            page = browser.new_page(viewport={"width": 1280, "height": 720}, reduced_motion=motion)
            page.goto(base)
            wait_idle(page)  # registers the pages on a fresh server
            print(f"app: {args.root.resolve()}  (Chromium {browser.version}, 1280x720, reduced motion: {motion})")
            for path, query in (("/", "?t_ms=2000&step=200"), ("/kv", "")):
                print(f"arrow key -> last redraw on {path:<13} {summary(key_to_redraw_ms(page, base + path + query, args.repeats))}")
            # The chapters' slides: the shared comparison element inside the element keyed `stage`; from t = 0, so the
            # steps measured lie before the question's hold (ui/chapters/lanes.py).
            for slug in ("ch2-long-prefill", "ch3-chunking", "ch4-paged-kv"):
                times = key_to_redraw_ms(page, f"{base}/{slug}?t_ms=0", args.repeats, ".st-key-stage canvas")
                print(f"arrow key -> last redraw on /{slug:<12} {summary(times)}")
            page.goto(base + "/")
            wait_idle(page)
            try:  # the element mounts after the script is idle: wait for it, not just count it once
                page.locator(".st-key-timeline canvas").first.wait_for(timeout=15000)
            except Exception:  # playwright's TimeoutError: a checkout without the component
                print("timeline playback: no timeline component on this checkout")
            if page.locator(".st-key-timeline canvas").count():
                for index, name in ((3, "20 steps/s"), (4, "60 steps/s"), (2, "1x real time")):
                    r = playback(page, f"{base}/?t_ms=0", index, args.play_seconds)
                    # In simulated-time mode the cursor moves by time, so several 8 ms steps pass within one
                    # frame (all of them drawn, as bars up to the cursor); "dropped" applies to steps mode only.
                    tail = (f"dropped steps {r['dropped']:.0f}" if "steps" in name
                            else "(steps pass by time; every bar is drawn)")
                    print(f"playback at {name:<13} steps shown {r['steps_per_s']:.1f}/s, {r['fps']:.1f} frames/s, "
                          f"{tail}")
            kv_stage_figures(page, base, args.repeats, args.play_seconds)
            stage_benchmarks(page, base, args.repeats, args.play_seconds)  # /replacement and /attention
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=20)


if __name__ == "__main__":
    main()
