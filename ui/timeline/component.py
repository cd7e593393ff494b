"""The timeline component: registered once at import; its JS draws and plays the data in the browser.

Invariant: the mount call sends the same data (same `version`) on reruns that do not change the scenario, so the
browser keeps its cursor and nothing is redrawn from the server.
"""

from __future__ import annotations

from pathlib import Path

from ui.component import register

NAME = "chunkviz_timeline"
_mount = register(NAME, Path(__file__).resolve().parent, "timeline")


def mount(data: dict, key: str) -> None:
    """Draw the timeline with `data` (ui/timeline/data.py builds it) under `key` (CSS class st-key-<key>)."""
    _mount(data=data, key=key, height="content")
