"""Bilingual text: every string the app shows is looked up by key in English or Chinese.

Invariant: every registered key has both an English and a Chinese text; a missing key shows the key itself (and a
test fails), never an exception.
"""

from __future__ import annotations

LANGS = ("en", "zh")
LANG_LABELS = {"en": "English", "zh": "中文"}
_TEXTS: dict[str, tuple[str, str]] = {}


def register(texts: dict[str, tuple[str, str]]) -> None:
    """Add (English, Chinese) pairs; called once per text module at import."""
    for key, pair in texts.items():
        if len(pair) != 2 or not all(isinstance(x, str) and x for x in pair):
            raise ValueError(f"text {key!r} needs a non-empty English and Chinese string")
        _TEXTS[key] = pair


def tr(key: str, lang: str, **fmt: object) -> str:
    """The text for `key` in `lang`, with str.format fields filled."""
    pair = _TEXTS.get(key)
    if pair is None:
        return key
    text = pair[1] if lang == "zh" else pair[0]
    return text.format(**fmt) if fmt else text


def all_keys() -> tuple[str, ...]:
    return tuple(_TEXTS)


def current_lang() -> str:
    import streamlit as st

    lang = st.session_state.get("lang", "en")
    return lang if lang in LANGS else "en"


def t(key: str, **fmt: object) -> str:
    """tr() in the language chosen in the sidebar."""
    return tr(key, current_lang(), **fmt)


def labeler(prefix: str):
    """A format_func for option widgets, bound to the current language now.

    AppTest (and Streamlit internals) may call format_func outside the script thread, where session state is not
    available, so the language must not be looked up lazily.
    """
    lang = current_lang()
    return lambda value: tr(f"{prefix}{value}", lang)
