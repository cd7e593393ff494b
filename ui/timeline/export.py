"""The timeline view of the offline export (ui/offline.py's EXPORTS["timeline"]): the shared comparison element's
payload and file, as `/` mounts them.

Invariant: streamlit-free; everything here is ui/comparison_export.py's, so `/`, the chapters and the exported file
draw the same payload.
"""

from ui.comparison_export import COMPONENT, START, build_payload, default_cursor_ms, html_for, offline_html

__all__ = ["COMPONENT", "START", "build_payload", "default_cursor_ms", "html_for", "offline_html"]
