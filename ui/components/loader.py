"""The loader of browser-side components (Streamlit components v2: inline HTML/JS/CSS, no build step).

A wing keeps its component's files beside its Python (`ui/<wing>/<stem>.js`, `.css`) and registers them once at
import with `register`. Invariant: one registration per component name per process, so a rerun never re-registers
and the browser keeps the element (and its cursor) while the data it was given does not change.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

Mount = Callable[..., object]


def read_asset(folder: Path, stem: str, suffix: str) -> str:
    """The text of `<folder>/<stem><suffix>` (also read by the offline HTML export)."""
    return (folder / f"{stem}{suffix}").read_text(encoding="utf-8")


def register(name: str, folder: Path, stem: str) -> Mount:
    """Register the component `name` from `<folder>/<stem>.js` and `.css`; returns Streamlit's mount function."""
    import streamlit as st  # here, not at the top: the offline writer reads assets without Streamlit

    return st.components.v2.component(name, html="", css=read_asset(folder, stem, ".css"),
                                      js=read_asset(folder, stem, ".js"))
