"""The timeline view of the offline export (ui/components/offline/writer.py's EXPORTS["timeline"]): the shared
comparison element's
payload and file, as `/` mounts them.

Invariant: streamlit-free; everything here is ui/components/comparison/export.py's, so `/`, the chapters and the
exported file
draw the same payload.
"""

from ui.components.comparison.export import COMPONENT, START, build_payload, default_cursor_ms, html_for, offline_html

__all__ = ["COMPONENT", "START", "build_payload", "default_cursor_ms", "html_for", "offline_html"]
