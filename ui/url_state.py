"""Shareable links: widget values live in the URL as plain ids (?lang=zh&pa=sglang&step=120).

Invariant: a URL value is read once per session and key, validated, and either applied before the widget is drawn
or reported as ignored with a reason; after drawing, the URL is rewritten from the widget's value.

Streamlit's own `bind="query-params"` writes the *formatted label* of choice widgets into the URL, which would
make a link depend on the language it was shared in, so choices are kept in the URL by id here.
"""

from __future__ import annotations

import math
from typing import Callable, Sequence

import streamlit as st

_SEEDED = "_url_seeded"
_ERRORS = "_url_errors"


def seed(key: str, default: object, parse: Callable[[str], object]) -> None:
    """Before drawing a widget: take its value from the URL once, else keep the session's value or the default."""
    seeded: set[str] = st.session_state.setdefault(_SEEDED, set())
    if key not in seeded:
        seeded.add(key)
        raw = st.query_params.get(key)
        if raw is not None:
            try:
                st.session_state[key] = parse(raw)
            except ValueError as exc:
                st.session_state.setdefault(_ERRORS, []).append(f"{key}={raw[:40]!r}: {exc}")
    st.session_state.setdefault(key, default)


def publish(key: str) -> None:
    """After drawing: mirror the widget's value into the URL."""
    value = st.session_state.get(key)
    text = str(value)
    if st.query_params.get(key) != text:
        st.query_params[key] = text


def report_error(message: str) -> None:
    """A URL value that was read outside seed() and ignored; app.py shows it with the others."""
    st.session_state.setdefault(_ERRORS, []).append(message)


def take_errors() -> list[str]:
    return st.session_state.pop(_ERRORS, [])


def choice_parser(options: Sequence[str]) -> Callable[[str], str]:
    def parse(raw: str) -> str:
        if raw not in options:
            raise ValueError(f"must be one of {', '.join(map(str, options))}")
        return raw
    return parse


def int_parser(lo: int, hi: int) -> Callable[[str], int]:
    def parse(raw: str) -> int:
        try:
            value = int(raw)
        except ValueError:
            raise ValueError("must be a whole number") from None
        if not lo <= value <= hi:
            raise ValueError(f"must be between {lo} and {hi}")
        return value
    return parse


def float_parser(lo: float, hi: float) -> Callable[[str], float]:
    def parse(raw: str) -> float:
        try:
            value = float(raw)
        except ValueError:
            raise ValueError("must be a number") from None
        if not math.isfinite(value) or not lo <= value <= hi:
            raise ValueError(f"must be a number between {lo} and {hi}")
        return value
    return parse


def _copy(source: str, target: str) -> None:
    st.session_state[target] = st.session_state[source]


def widget_key(key: str) -> str:
    """The selectbox key for the current language: `key` in English, `key_zh` in Chinese.

    The browser keeps a selectbox's displayed label across reruns, so after a language switch it would still show
    the old language; a per-language widget (fed from one canonical value) is redrawn with the new labels.
    """
    from ui.i18n import current_lang

    return key if current_lang() == "en" else f"{key}_{current_lang()}"


def choice(container, label: str, options: Sequence[str], key: str, default: str, format_func=str) -> str:
    """A selectbox whose value is kept in the URL by id, and survives language switches."""
    canonical = f"_value_{key}"
    seeded: set[str] = st.session_state.setdefault(_SEEDED, set())
    if key not in seeded:  # the URL is read once, into the canonical value
        seed(key, default, choice_parser(options))
        st.session_state[canonical] = st.session_state.pop(key)
    st.session_state.setdefault(canonical, default)
    wkey = widget_key(key)
    st.session_state[wkey] = st.session_state[canonical]
    container.selectbox(label, options, key=wkey, format_func=format_func, on_change=_copy, args=(wkey, canonical))
    value = st.session_state[canonical]
    if st.query_params.get(key) != value:
        st.query_params[key] = value
    return value


def stepped_choice(container, label: str, options: Sequence[int], key: str, default: int) -> int:
    """A select_slider over numbers, kept in the URL."""
    def parse(raw: str) -> int:
        value = int_parser(min(options), max(options))(raw)
        if value not in options:
            raise ValueError(f"must be one of {', '.join(map(str, options))}")
        return value
    seed(key, default, parse)
    value = container.select_slider(label, options, key=key)
    publish(key)
    return value


def number(container, label: str, lo, hi, default, step, key: str, help: str | None = None):
    """A number_input kept in the URL; ints stay ints."""
    parse = int_parser(lo, hi) if isinstance(default, int) else float_parser(lo, hi)
    seed(key, default, parse)
    value = container.number_input(label, lo, hi, step=step, key=key, help=help)
    publish(key)
    return value
