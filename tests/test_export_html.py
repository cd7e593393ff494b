"""A lesson as one HTML file: ui/components/offline/writer.py's page (self-contained, data round-trips, no external
URL, no
Streamlit) and the CLI `export-html` (the app's default scenario with no flags; bad input → one line, exit 2,
nothing written)."""

from __future__ import annotations

import json
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from chunkviz.analysis.scenario import DEFAULT_SCENARIO, run_scenario
from chunkviz.cli.main import main
from ui.components.offline.cli import main as export_main
from ui.components.offline.writer import EXPORTS, Component, StartParam, page_html, view_html

ROOT = Path(__file__).resolve().parents[1]


class _Page(HTMLParser):
    """Every tag's attributes and every <script>'s text, as a browser's parser splits them."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.scripts: list[tuple[dict, str]] = []
        self._open: dict | None = None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "script":
            self._open, self._text = dict(attrs), ""

    def handle_data(self, data):
        if self._open is not None:
            self._text += data

    def handle_endtag(self, tag):
        if tag == "script" and self._open is not None:
            self.scripts.append((self._open, self._text))
            self._open = None


def parse(text: str) -> _Page:
    page = _Page()
    page.feed(text)
    page.close()
    return page


def json_script(page: _Page, element_id: str) -> dict:
    (found,) = [text for attrs, text in page.scripts if attrs.get("id") == element_id]
    return json.loads(found)


def assert_self_contained(text: str) -> None:
    """No external URL and nothing fetched: no src/href attribute, no http(s):// anywhere, no @import."""
    page = parse(text)
    assert [(t, a) for t, a in page.tags if {"src", "href"} & set(a)] == []
    assert "http://" not in text and "https://" not in text and "@import" not in text


@pytest.fixture()
def hostile_component(tmp_path: Path) -> Component:
    """A component whose JS and CSS hold text that would end a <script> element if pasted raw."""
    (tmp_path / "probe.js").write_text('const s = "</script><!-- <script>";\nexport default function (c) {}\n',
                                       encoding="utf-8")
    (tmp_path / "probe.css").write_text('.x::after { content: "</style></script>"; }\n', encoding="utf-8")
    return Component(((tmp_path, "probe"),), "chunkviz_probe", "probe_key")


def test_the_page_carries_the_component_and_data_intact(hostile_component):
    data = {"note": "</script><script>alert(1)</script>", "zh": "预填充 & 解码", "n": [1, 2.5, None]}
    text = page_html(hostile_component, data, "zh", "A <b>title</b>", "cap", StartParam("step", "step0"))
    page = parse(text)
    assert len(page.scripts) == 3  # assets, data, the mounting module: nothing broke out of them
    assert json_script(page, "cv-data") == data
    assets = json_script(page, "cv-assets")
    folder = hostile_component.parts[0][0]
    assert assets["js"] == (folder / "probe.js").read_text(encoding="utf-8")
    assert assets["css"] == (folder / "probe.css").read_text(encoding="utf-8")
    assert assets["key"] == "probe_key" and assets["start"] == {"param": "step", "field": "step0"}
    assert '<html lang="zh-CN">' in text and "<title>A &lt;b&gt;title&lt;/b&gt;</title>" in text
    assert 'class="st-key-probe_key"' in text
    assert_self_contained(text)


def test_the_page_is_deterministic(hostile_component):
    data = {"b": 1, "a": [3, 2]}
    assert page_html(hostile_component, data, "en", "t") == page_html(hostile_component, dict(data), "en", "t")


@pytest.fixture(scope="module")
def default_runs():
    """The runs `/` opens on: prefill-first (monolithic) above chunked at the default budget."""
    s = DEFAULT_SCENARIO
    return [("monolithic", run_scenario(s.with_policy("monolithic", None))),
            ("chunked", run_scenario(s.with_policy("chunked", s.scheduler.max_num_batched_tokens)))]


def test_the_timeline_file_holds_the_payload_the_page_mounts(default_runs):
    from ui.i18n import tr
    from ui.timeline.export import build_payload, default_cursor_ms

    for lang in ("en", "zh"):
        text = view_html("timeline", lang, runs=default_runs, policy_names=True)
        labelled = [(tr(f"policy.{p}", lang), t) for p, t in default_runs]
        mounted = {**build_payload(labelled, lang, False), "t0_ms": default_cursor_ms([t for _, t in default_runs])}
        assert json_script(parse(text), "cv-data") == json.loads(json.dumps(mounted))
        assets = json_script(parse(text), "cv-assets")
        assert "export default function" in assets["js"] and assets["start"]["param"] == "t_ms"
        assert_self_contained(text)


def test_an_unknown_view_is_refused(default_runs):
    with pytest.raises(ValueError, match="--view must be one of"):
        view_html("nope", "en", runs=default_runs)


def test_the_offline_writer_and_exports_load_no_streamlit():
    code = ("import sys, ui.components.offline.writer\n"
            f"for m in {sorted(EXPORTS.values())!r}: __import__(m)\n"
            "print([k for k in sys.modules if k.startswith('streamlit')])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"


def test_cli_writes_the_app_default_lesson(tmp_path, capsys, default_runs):
    out = tmp_path / "lesson.html"
    assert export_main(["--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert text == view_html("timeline", "en", runs=default_runs, policy_names=True)  # no flags: what `/` opens on
    assert f"({len(text.encode()):,} bytes)" in capsys.readouterr().out


def test_cli_one_engine_in_chinese(tmp_path):
    out = tmp_path / "one.html"
    assert export_main(["--out", str(out), "--compare", "none", "--lang", "zh", "--policy", "sarathi",
                 "--num-requests", "12"]) == 0
    data = json_script(parse(out.read_text(encoding="utf-8")), "cv-data")
    assert [e["tag"] for e in data["engines"]] == ["A"] and '<html lang="zh-CN">' in out.read_text(encoding="utf-8")


def test_a_stage_file_joins_the_player_and_the_stage_and_hides_server_only_controls():
    """The paging stage is the shared player (stage_player.js) then ui/paging/stage.js (as it is registered), plus
    the offline CSS."""
    from ui.components.stage_player import mount as stage_component
    from ui.paging.export import COMPONENT

    wing = ROOT / "ui" / "paging"
    assets = json_script(parse(view_html("paging", "en", refs=(1, 2, 3, 1), frames=2, alg="lru")), "cv-assets")
    assert assets["js"] == stage_component.assets(wing, ".js")
    assert assets["css"] == stage_component.assets(wing, ".css") + "\n" + COMPONENT.offline_css
    assert ".belady-load" in COMPONENT.offline_css and "belady-load" in assets["js"]  # the class the stage sets


def test_cli_kv_default_is_the_kv_page_default(tmp_path):
    """No flags: /kv's teaching scenario as the page opens (ui/kv/parts.py kv_controls' defaults)."""
    from chunkviz.config import CacheConfig
    from chunkviz.lessons.kv_view import kv_scenario

    out = tmp_path / "kv.html"
    assert export_main(["--view", "kv", "--out", str(out)]) == 0
    cache = CacheConfig(block_size=16, num_gpu_blocks=128, enable_prefix_caching=True, eviction="lru",
                        allocation="incremental")
    scenario = kv_scenario(DEFAULT_SCENARIO, "shared-system-prompt", 16, cache)
    assert out.read_text(encoding="utf-8") == view_html("kv", "en", scenario=scenario, trace=run_scenario(scenario))
    off = tmp_path / "kv-off.html"
    assert export_main(["--view", "kv", "--out", str(off), "--no-prefix-caching"]) == 0
    assert json_script(parse(off.read_text(encoding="utf-8")), "cv-data") != \
        json_script(parse(out.read_text(encoding="utf-8")), "cv-data")


def test_cli_paging_and_attention_views(tmp_path):
    paging, attention = tmp_path / "p.html", tmp_path / "a.html"
    assert export_main(["--view", "paging", "--refs", "1 2 3 4 1 2 5 1 2 3 4 5", "--frames", "3",
                 "--out", str(paging), "--lang", "zh"]) == 0
    data = json_script(parse(paging.read_text(encoding="utf-8")), "cv-data")
    assert data["refs"] == [1, 2, 3, 4, 1, 2, 5, 1, 2, 3, 4, 5] and data["num_frames"] == 3 and data["anomaly"]
    assert export_main(["--view", "attention", "--attention-tokens", "32", "--attention-chunk", "8",
                 "--head-dim", "16", "--out", str(attention)]) == 0
    text = attention.read_text(encoding="utf-8")
    assert json_script(parse(text), "cv-assets")["key"] == "attention_stage"
    assert_self_contained(text)


@pytest.mark.parametrize("argv, message", [
    (["--view", "nope"], "argument --view: invalid choice"),
    (["--view", "kv", "--workload", "synthetic"], "--workload must be one of"),
    (["--view", "kv", "--num-requests", "100"], "--num-requests must be an integer from 12 to 24"),
    (["--view", "kv", "--num-gpu-blocks", "4"], "--num-gpu-blocks must be an integer from 48 to 512"),
    (["--view", "paging", "--refs", "1,x"], "--refs: page #2"),
    (["--view", "paging", "--frames", "0"], "--frames must be an integer from 1 to 64"),
    (["--view", "attention", "--attention-chunk", "100"], "--attention-chunk must be an integer from 1 to 64"),
    (["--view", "attention", "--attention-tokens", "4"], "--attention-tokens must be an integer from 8 to 512"),
    (["--view", "attention", "--head-dim", "7"], "argument --head-dim: invalid choice"),
    (["--lang", "fr"], "argument --lang: invalid choice"),
    (["--qps", "-3"], "qps must be in"),
    (["--num-requests", "many"], "argument --num-requests: invalid int value"),
    (["--compare", "fifo"], "argument --compare: invalid choice"),
    (["--deployment", "disagg"], "export-html draws one engine on one GPU"),
    # generator flags the file's workload would not read (issue 36: no silent flags)
    (["--length-dist", "fixed"], "--length-dist: the workload preset 'long-among-chats' does not use it"),
    (["--view", "kv", "--prompt-tokens", "64"], "--prompt-tokens: --view kv draws the /kv page's teaching requests"),
    (["--view", "paging", "--qps", "3"], "--qps: --view paging runs no workload"),
])
def test_cli_bad_flags_exit_2_and_write_nothing(tmp_path, capsys, argv, message):
    out = tmp_path / "x.html"
    try:
        code = export_main(["--out", str(out), *argv])
    except SystemExit as exc:  # argparse's own refusals
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2 and message in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_cli_bad_out_exits_2(tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("x", encoding="utf-8")
    for out, message in ((tmp_path / "missing" / "x.html", "does not exist"), (tmp_path, "is a folder"),
                         (blocker / "x.html", "does not exist")):
        assert export_main(["--out", str(out), "--num-requests", "4"]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1 and err.startswith("chunkviz export-html: error: --out")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]


def test_out_in_a_folder_that_refuses_files_is_named_before_any_run(capfd):
    """As root every permission bit passes, yet /proc accepts no new file: the refusal names --out and comes before
    the simulation (through the core's command, which hands off to the app's)."""
    assert main(["export-html", "--out", "/proc/version"]) == 2
    err = capfd.readouterr().err
    assert err.count("\n") == 1 and err.startswith("chunkviz export-html: error: --out: '/proc/version' cannot be "
                                                   "written") and ".export-" not in err


def test_the_core_command_passes_the_apps_exit_code_and_message(tmp_path, capfd):
    assert main(["export-html", "--out", str(tmp_path / "x.html"), "--frames", "x"]) == 2
    err = capfd.readouterr().err
    assert err.strip() == "chunkviz export-html: error: argument --frames: invalid int value: 'x'"
    assert list(tmp_path.iterdir()) == []
