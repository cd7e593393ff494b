"""The timeline component: registered once at import; its JS draws and plays the data in the browser.

Invariant: the mount call sends the same data (same `version`) on reruns that do not change the scenario, so the
browser keeps its cursor and nothing is redrawn from the server.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

_DIR = Path(__file__).resolve().parent
NAME = "chunkviz_timeline"

_mount = st.components.v2.component(
    NAME, html="", css=(_DIR / "timeline.css").read_text(encoding="utf-8"),
    js=(_DIR / "timeline.js").read_text(encoding="utf-8"))


def mount(data: dict, key: str) -> None:
    """Draw the timeline with `data` (ui/timeline_data.py builds it) under `key` (CSS class st-key-<key>)."""
    _mount(data=data, key=key, height="content")
