"""User-controlled text (URL values, uploaded file names and contents, typed text) made inert for Markdown.

Invariant: md_escape(x) rendered by any Markdown-rendering Streamlit call (st.markdown, st.caption, st.info,
st.warning, st.error) shows the characters of x as they are (plus invisible word joiners): no link, autolink,
image, tag, emoji or colour directive can come from them. Every page passes such strings through here before
they reach a Markdown text (issue 16).
"""

from __future__ import annotations

import re

# Every ASCII punctuation character may be backslash-escaped in CommonMark (spec §2.4), which Streamlit's
# react-markdown follows; escaping all of them stops links, images, emphasis, Streamlit's :emoji: / :red[...]
# directives and $math$, and renders <tags> as text.
_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
# GFM's autolink literals (https://x, www.x, a@b.c) are found in text after escapes are resolved (remark-gfm's
# mdast-util-gfm-autolink-literal; a browser test saw "https\:\/\/" still linked), so an invisible WORD JOINER
# (U+2060) after ':' and '@' and between 'www' and '.' breaks those patterns without changing what is shown.
_AUTOLINK_ANCHOR = re.compile(r"([:@])|(?i:(www)(?=\.))")
WORD_JOINER = "\u2060"


def md_escape(value: object) -> str:
    """`value` as text that Markdown shows literally, on one line (a newline could start a new block)."""
    text = " ".join(str(value).split())
    text = _AUTOLINK_ANCHOR.sub(lambda m: (m.group(1) or m.group(2)) + WORD_JOINER, text)
    return _PUNCTUATION.sub(r"\\\1", text)
