"""User-controlled text (URL values, uploaded file names and contents, typed text) made inert for Markdown.

Invariant: md_escape(x) rendered by any Markdown-rendering Streamlit call (st.markdown, st.caption, st.info,
st.warning, st.error) shows the characters of x as they are: no link, image, tag, emoji or colour directive can
come from them. Every page passes such strings through here before they reach a Markdown text (issue 16).
"""

from __future__ import annotations

import re

# Every ASCII punctuation character may be backslash-escaped in CommonMark (spec §2.4), which Streamlit's
# react-markdown follows; escaping all of them also stops GFM autolinks (www\.x, https\://), Streamlit's
# :emoji: / :red[...] directives and $math$, and renders <tags> as text.
_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")


def md_escape(value: object) -> str:
    """`value` as text that Markdown shows literally, on one line (a newline could start a new block)."""
    text = " ".join(str(value).split())
    return _PUNCTUATION.sub(r"\\\1", text)
