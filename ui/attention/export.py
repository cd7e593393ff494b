"""The attention view of the offline export (ui/components/offline/writer.py's EXPORTS["attention"]): the shared
attention stage's
payload and file, as /attention mounts them.

Invariant: streamlit-free; everything here is ui/components/attention_stage/export.py's, so /attention, chapter 3 and
the
exported file draw the same payload.
"""

from ui.components.attention_stage.export import (COLOURS, COMPONENT, KEY, START, URL_PARAM, caption, html_for,
                                                  offline_html, payload)

__all__ = ["COLOURS", "COMPONENT", "KEY", "START", "URL_PARAM", "caption", "html_for", "offline_html", "payload"]
