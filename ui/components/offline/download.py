"""The "Download this view" button every stepped lesson page shows: the offline HTML file of the view it mounts.

Invariant: the file is written only when the button is clicked (a callable, so stepping never pays for it), from
the payload the page mounted; the label comes from the text tables in the page's language.
"""

from __future__ import annotations

from typing import Callable

import streamlit as st

from ui.i18n import t


def download_view(make_html: Callable[[], str], file_stem: str, key: str) -> None:
    """A download button for `<file_stem>.html`, built by `make_html` on click; the element key is `key`."""
    st.download_button(t("dl.view"), data=lambda: make_html().encode("utf-8"), file_name=f"{file_stem}.html",
                       mime="text/html", key=key, on_click="ignore", help=t("dl.view_help"))
