"""Bilingual text: every string the app shows is looked up by key in English or Chinese.

The texts are data: each text module — `ui/text_common.py` for the shared texts, `ui/<wing>/text.py` and
`ui/<wing>/text_*.py` for a page's own, `ui/components/<name>/text.py` for a shared component's — holds one dict
`TEXTS` of key → (English, 中文), and this module loads all of them on the first lookup (no module has to be
imported for its side effect).
Invariant: every key has both an English and a Chinese text; a missing key shows the key itself (and a test
fails), never an exception.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

LANGS = ("en", "zh")
LANG_LABELS = {"en": "English", "zh": "中文"}
_TEXTS: dict[str, tuple[str, str]] = {}


def _is_text(name: str) -> bool:
    return name == "text" or name.startswith("text_")


def text_modules() -> tuple[str, ...]:
    """Names of the modules whose TEXTS dicts make up the app's texts: the shared ones at ui/ top level, each wing's
    (`ui/<wing>/text*.py`) and each shared component's (`ui/components/<name>/text.py`)."""
    root = Path(__file__).resolve().parent
    names: list[str] = []
    stack = [(root, "ui")]
    while stack:  # bounded: the package tree under ui/
        folder, prefix = stack.pop()
        for m in pkgutil.iter_modules([str(folder)]):
            if m.ispkg:
                stack.append((folder / m.name, f"{prefix}.{m.name}"))
            elif _is_text(m.name):
                names.append(f"{prefix}.{m.name}")
    return tuple(sorted(names))


def _texts() -> dict[str, tuple[str, str]]:
    if not _TEXTS:
        loaded: dict[str, tuple[str, str]] = {}
        for name in text_modules():
            for key, pair in importlib.import_module(name).TEXTS.items():
                if key in loaded:
                    raise ValueError(f"text {key!r} is defined twice ({name})")
                if len(pair) != 2 or not all(isinstance(x, str) and x for x in pair):
                    raise ValueError(f"text {key!r} needs a non-empty English and Chinese string")
                loaded[key] = pair
        _TEXTS.update(loaded)
    return _TEXTS


def tr(key: str, lang: str, **fmt: object) -> str:
    """The text for `key` in `lang`, with str.format fields filled."""
    pair = _texts().get(key)
    if pair is None:
        return key
    text = pair[1] if lang == "zh" else pair[0]
    if lang == "zh":  # the core's English sentences passed in as fields (notes, reasons) are translated too
        fmt = {k: _zh_message(v) if k in MESSAGE_FIELDS and isinstance(v, str) else v for k, v in fmt.items()}
    text = text.format(**fmt) if fmt else text
    return zh_tidy(text) if lang == "zh" else text


# 中文 typography, applied to every filled 中文 text (a field such as an engine's name "分块预填充（vLLM V1）" lands
# beside the template's words): no space beside full-width punctuation ("（vLLM V1） 的", "。 后厨") or between two
# Chinese characters ("用 分块预填充" when the field starts with one), and an ASCII
# colon, semicolon, comma, ! or ? after a Chinese character or full-width bracket becomes its full-width form. A
# Markdown line break (two spaces before a newline) is kept.
_CJK = "\u3400-\u9fff"
_FULL_WIDTH = "\u3000-\u303f\uff00-\uffef"
_SPACE_BY_FULL_WIDTH = re.compile(f"(?<=[{_FULL_WIDTH}]) (?=\\S)|(?<=\\S) (?=[{_FULL_WIDTH}])"
                                  f"|(?<=[{_CJK}]) (?=[{_CJK}])")
_ASCII_AFTER_CJK = re.compile(f"(?<=[{_CJK}{_FULL_WIDTH}])([:;,!?]) ?")
_TO_FULL_WIDTH = {":": "：", ";": "；", ",": "，", "!": "！", "?": "？"}


def zh_tidy(text: str) -> str:
    """`text` with 中文 punctuation full-width after Chinese and no space beside full-width punctuation."""
    text = _ASCII_AFTER_CJK.sub(lambda m: _TO_FULL_WIDTH[m.group(1)], text)
    return _SPACE_BY_FULL_WIDTH.sub("", text)


MESSAGE_FIELDS = ("note", "reason", "error")


def _zh_message(message: str) -> str:
    from ui.engine_messages import to_chinese

    return to_chinese(message)


def all_keys() -> tuple[str, ...]:
    return tuple(_texts())


def pair_of(key: str) -> tuple[str, str] | None:
    """The (English, 中文) pair of a key, or None (the glossary and drawn-correctly tests read both at once)."""
    return _texts().get(key)


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
