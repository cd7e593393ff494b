"""A lesson as one HTML file: a browser-side component (its ES module and CSS), the data it was mounted with, and a
tiny host page that mounts it the way Streamlit's components v2 does — opened from file://, with no server and no
network.

Invariant: streamlit-free and deterministic (same component and data → the same bytes); the page names no external
URL and loads nothing: the component's JS, its CSS and the data travel inside the file as one JSON blob, and the
JS runs as a module imported from a Blob URL (an inline module cannot `export default`, and Chromium refuses module
scripts fetched from file://). This is the one shared module that reaches into wings, and only into their
streamlit-free `export` modules, by name through `EXPORTS` (as ui/i18n.py finds their `text` modules); checked by
tests/test_ui_architecture.py.
"""

from __future__ import annotations

import html
import importlib
import json
from dataclasses import dataclass
from pathlib import Path

from ui.components.loader import read_asset

# view → the wing module whose `offline_html(runs, lang, **options)` writes that view's file. A view whose stage
# is not built yet is not listed (the CLI's --view offers exactly these).
EXPORTS: dict[str, str] = {"timeline": "ui.timeline.export", "kv": "ui.kv.export", "paging": "ui.paging.export",
                           "attention": "ui.attention.export"}


@dataclass(frozen=True, slots=True)
class Component:
    """Where a component's files are (`<folder>/<stem>.js`, `.css` per part, joined in order: a stage is the shared
    player then the wing's stage, as ui/components/stage_player/mount.py registers it), its name and the key it is
    mounted under.
    `offline_css` is added after the component's CSS (e.g. to hide a control that needs the server)."""

    parts: tuple[tuple[Path, str], ...]
    name: str
    key: str
    offline_css: str = ""

    def asset(self, suffix: str) -> str:
        return "\n".join(read_asset(folder, stem, suffix) for folder, stem in self.parts)


@dataclass(frozen=True, slots=True)
class StartParam:
    """The URL parameter the component writes its cursor into, and the data field the app fills from it."""

    param: str
    field: str


def _script_json(value: object) -> str:
    """JSON safe inside <script>: '<', '>' and '&' escaped as \\u00XX, so no text can close the element."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


# Streamlit's light and dark theme colours (its defaults), which the components read as --st-* variables.
_PAGE_CSS = """
:root { --st-text-color: #31333f; --st-background-color: #ffffff; --st-secondary-background-color: #f0f2f6;
  --st-primary-color: #ff4b4b; --st-font: "Source Sans Pro", "Noto Sans CJK SC", "Microsoft YaHei", sans-serif;
  color-scheme: light dark; }
@media (prefers-color-scheme: dark) { :root { --st-text-color: #fafafa; --st-background-color: #0e1117;
  --st-secondary-background-color: #262730; } }
body { margin: 0; background: var(--st-background-color); color: var(--st-text-color); font-family: var(--st-font); }
main { max-width: 1200px; margin: 0 auto; padding: 14px 24px 24px; }
h1 { font-size: 1.5rem; margin: 0 0 2px; }
.caption { opacity: .75; margin: 0 0 10px; font-size: .95rem; }
.error { color: #d33c3c; white-space: pre-wrap; }
"""

# Mounts the component as Streamlit does: the default export gets the data, a shadow root holding the CSS, and
# state/trigger setters that keep the values here (nothing to send them to). A link's cursor parameter (the
# component writes it into the URL) is read back, as the app's server does.
_SHIM = """
const assets = JSON.parse(document.getElementById("cv-assets").textContent);
const data = JSON.parse(document.getElementById("cv-data").textContent);
const host = document.getElementById("cv-host");
try {
  const start = assets.start, raw = start && new URLSearchParams(window.location.search).get(start.param);
  if (raw !== null && raw !== undefined && raw !== "" && Number.isFinite(Number(raw)) && Number(raw) >= 0)
    data[start.field] = Number(raw);
  const root = host.attachShadow({ mode: "open" });
  const style = document.createElement("style"); style.textContent = assets.css; root.appendChild(style);
  const url = URL.createObjectURL(new Blob([assets.js], { type: "text/javascript" }));
  const mod = await import(url);
  const values = (window.__cvOffline = { state: {}, triggers: {} });
  mod.default({ name: assets.name, key: assets.key, data, parentElement: root,
                setStateValue: (k, v) => { values.state[k] = v; },
                setTriggerValue: (k, v) => { values.triggers[k] = v; } });
} catch (err) {
  host.className = "error"; host.textContent = String(err && err.stack || err);
}
"""


def page_html(component: Component, data: dict, lang: str, title: str, caption: str = "",
              start: StartParam | None = None) -> str:
    """One self-contained page that mounts `component` with `data` (exactly what the app mounts)."""
    css = component.asset(".css") + ("\n" + component.offline_css if component.offline_css else "")
    assets = {"name": component.name, "key": component.key, "js": component.asset(".js"), "css": css,
              "start": None if start is None else {"param": start.param, "field": start.field}}
    lang_attr = "zh-CN" if lang == "zh" else "en"
    return "\n".join([
        "<!DOCTYPE html>", f'<html lang="{lang_attr}">', "<head>", '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{html.escape(title)}</title>", f"<style>{_PAGE_CSS}</style>", "</head>", "<body>", "<main>",
        f"<h1>{html.escape(title)}</h1>", f'<p class="caption">{html.escape(caption)}</p>' if caption else "",
        f'<div id="cv-host" class="st-key-{html.escape(component.key)}"></div>', "</main>",
        f'<script type="application/json" id="cv-assets">{_script_json(assets)}</script>',
        f'<script type="application/json" id="cv-data">{_script_json(data)}</script>',
        f'<script type="module">{_SHIM}</script>', "</body>", "</html>", ""])


def view_html(view: str, lang: str, **inputs: object) -> str:
    """The offline file of `view` (a key of EXPORTS) in `lang`; `inputs` are that wing's `offline_html` arguments
    (the timeline's runs, the KV stage's trace, the paging stage's reference string, the attention demo's sizes)."""
    if view not in EXPORTS:
        raise ValueError(f"--view must be one of {', '.join(EXPORTS)}, got {view!r}")
    return importlib.import_module(EXPORTS[view]).offline_html(lang, **inputs)
