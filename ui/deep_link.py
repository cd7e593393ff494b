"""Deep links on a fresh server: close the false "Page not found" that Streamlit shows before st.navigation runs.

Why: Streamlit 1.67 decides once per process whether an app uses the old pages/ folder (PagesManager.
uses_pages_directory, true because pages/ exists) and only st.navigation turns that off. So the very first script
run of a fresh server goes through the folder-based navigation (script_runner._mpa_v1), whose page names are the
file names; /kv is not among them, so the browser is sent "Page not found" — and then app.py's st.navigation
resolves /kv correctly and draws the KV page under the dialog. Later runs never take that path.
That first run also executes app.py as the folder navigation's own page, so a widget app.py draws before
st.navigation gets another id (Streamlit hashes the active page into it) than in every later run: the next run meets
a new widget at its default. The language radio keeps its value outside the widget for that (ui/widgets.py).
Invariant: the dialog is closed only in that first run, and only when st.navigation found the requested page.
"""

from __future__ import annotations

import streamlit as st

_JS = """
export default function () {
  const close = () => {
    for (const dialog of document.querySelectorAll('[role="dialog"]')) {
      if (!dialog.textContent.includes("Page not found")) continue;
      const button = dialog.querySelector('button[aria-label="Close"]');
      if (button) { button.click(); return true; }
    }
    return false;
  };
  let tries = 0;
  const timer = setInterval(() => { if (close() || ++tries > 60) clearInterval(timer); }, 50);
  return () => clearInterval(timer);
}
"""
_dismiss = st.components.v2.component("chunkviz_dismiss_page_not_found", js=_JS)


def folder_navigation_ran() -> bool:
    """Call before st.navigation: whether this run came through Streamlit's pages/-folder navigation."""
    from streamlit.runtime.pages_manager import PagesManager

    return bool(PagesManager.uses_pages_directory)


def fix_first_deep_link(came_through_folder: bool, page) -> None:
    """After st.navigation: close the false dialog when the requested page was found after all."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    wanted = ctx.pages_manager.intended_page_name if ctx else None
    if came_through_folder and wanted and page.url_path == wanted:
        _dismiss(key="deep_link_fix", height=0)
