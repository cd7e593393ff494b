"""AppTest helpers: open the app on a page with query parameters and a generous timeout."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")


def open_app(page: str | None = None, **query: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    if page is not None:
        at.switch_page(page).run()
    assert not at.exception, at.exception
    return at


def texts(at: AppTest) -> str:
    """Everything written as markdown, captions, titles and alerts, for simple assertions."""
    parts = [e.value for kind in (at.title, at.markdown, at.caption, at.info, at.warning, at.error, at.subheader)
             for e in kind]
    return "\n".join(str(p) for p in parts)
