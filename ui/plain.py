"""User-controlled text (URL values, uploaded file names and contents, typed text) made inert for Markdown.

Invariant: md_escape(x) rendered by any Markdown-rendering Streamlit call (st.markdown, st.caption, st.info,
st.warning, st.error) shows the characters of x as they are (plus invisible word joiners): no link, autolink,
image, tag, icon, emoji, colour directive, formula or block can come from them. Every page passes such strings
through here before they reach a Markdown text (issue 16).
"""

from __future__ import annotations

import re

# The characters that open inline markup in CommonMark + GFM + Streamlit: raw HTML and <autolinks> (<), emphasis
# and strikethrough (*, ~), code spans (`), $math$, the backslash itself, and the "](" that joins a link's (or an
# image's) text to its address: with it escaped no [text](url) or ![alt](src) can form, and no reference link can
# either (its definition would need a line of its own). Each may be backslash-escaped (CommonMark spec §2.4);
# other characters are left as they are, so messages stay readable and searchable in the source.
_MARKUP = re.compile(r"([\\<*~`$]|\](?=\())")
# A value at the start of a line could open a block (heading, list, quote, table); its first character is escaped.
_BLOCK_START = re.compile(r"^(\d+(?=[.)](?:\s|$))|(?=[#>+\-=|]))(.)")
# GFM's autolink literals (https://x, www.x, a@b.c) are found in text after escapes are resolved (remark-gfm's
# mdast-util-gfm-autolink-literal; a browser test saw "https\:\/\/" still linked), and Streamlit's :emoji: and
# :material/icon: codes are colon-delimited, so an invisible WORD JOINER (U+2060) after ':' and '@' and between
# 'www' and '.' breaks those patterns without changing what is shown.
_ANCHOR = re.compile(r"([:@])|(?i:(www)(?=\.))")
WORD_JOINER = "\u2060"


def md_escape(value: object) -> str:
    """`value` as text that Markdown shows literally, on one line (a newline could start a new block)."""
    text = " ".join(str(value).split())
    text = _ANCHOR.sub(lambda m: (m.group(1) or m.group(2)) + WORD_JOINER, text)
    text = _MARKUP.sub(r"\\\1", text)
    return _BLOCK_START.sub(r"\1\\\2", text)
