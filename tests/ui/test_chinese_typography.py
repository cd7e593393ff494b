"""中文 typography on every page: one term per phase (预填充 / 解码, never "Prefill" / "Decode"), full-width punctuation
after Chinese, no stray spaces. Every text key (ui/i18n.py all_keys/pair_of, which include the core's Chinese
templates: chapter titles and lines from chunkviz/lessons/chapters.py, the why-sentences of chunkviz/analysis/why.py)
is checked as written, and once more as filled with a field that ends in a full-width bracket, as an engine's name
does ("分块预填充（vLLM V1）"), the way the pages fill them.
"""

from __future__ import annotations

import re

import pytest

from chunkviz.simulator.policies.registry import REGISTRY
from ui.glossary import LATIN_WORD
from ui.i18n import all_keys, pair_of, tr, zh_tidy

CJK = "\u3400-\u9fff"
FULL_WIDTH = "\u3000-\u303f\uff00-\uffef"
CODE = re.compile(r"`[^`]*`")
ASCII_AFTER_CHINESE = re.compile(f"[{CJK}{FULL_WIDTH}][:;,!?]")
SPACE_BY_FULL_WIDTH = re.compile(f"[{FULL_WIDTH}] (?! |\\n)|(?<! ) [{FULL_WIDTH}]")
SPACE_BETWEEN_CHINESE = re.compile(f"[{CJK}] [{CJK}]")
PHASE_WORDS = {"prefill", "prefills", "decode", "decodes", "decoding"}


def defects(text: str) -> list[str]:
    """What is wrong with one 中文 text (code spans are the engine's own spelling and are skipped)."""
    prose = CODE.sub("C", text)
    found = [f"ASCII punctuation after Chinese: {m.group()!r}" for m in ASCII_AFTER_CHINESE.finditer(prose)]
    found += [f"space beside full-width punctuation: {prose[max(0, m.start() - 6):m.end() + 6]!r}"
              for m in SPACE_BY_FULL_WIDTH.finditer(prose)]
    found += [f"space between Chinese characters: {m.group()!r}" for m in SPACE_BETWEEN_CHINESE.finditer(prose)]
    found += [f"English phase word {w!r} (预填充 / 解码)" for w in LATIN_WORD.findall(re.sub(r"\{[^}]*\}", "", prose))
              if w.lower() in PHASE_WORDS]
    return found


def _zh_texts() -> list[tuple[str, str]]:
    core = [(f"policy label {name}", e.label_zh) for name, e in REGISTRY.items()]
    return [(key, pair_of(key)[1]) for key in all_keys()] + core


def test_every_chinese_text_as_written_uses_full_width_punctuation_no_stray_space_and_the_glossary_phases():
    wrong = [f"{key}: {d}" for key, zh in _zh_texts() for d in defects(zh)]
    assert not wrong, "\n".join(wrong)


class _EngineName:
    """A field as an engine's 中文 name: whatever the format spec, it prints "分块预填充（vLLM V1）"."""

    def __format__(self, spec: str) -> str:
        return "分块预填充（vLLM V1）"


class _Fields(dict):
    def __missing__(self, key: str) -> _EngineName:
        return _EngineName()


def test_every_chinese_text_as_filled_reads_right_beside_an_engine_name():
    wrong = []
    for key in all_keys():
        names = re.findall(r"\{(\w+)[^}]*\}", pair_of(key)[1])
        if not names:
            continue
        filled = tr(key, "zh", **_Fields({n: _EngineName() for n in names}))
        wrong += [f"{key}: {d}" for d in defects(filled) if "phase word" not in d]  # (the sample's own words)
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("raw, tidy", [
    ("（vLLM V0）: 首字延迟", "（vLLM V0）：首字延迟"),
    ("分块预填充（vLLM V1） 的首字延迟", "分块预填充（vLLM V1）的首字延迟"),
    ("答对了。 后厨用 180 毫秒", "答对了。后厨用 180 毫秒"),
    ("在 分块预填充（vLLM V1） 上", "在分块预填充（vLLM V1）上"),
    ("第一行。  \n第二行", "第一行。  \n第二行"),  # a Markdown line break stays
    ("R4 · 6,806 token; p50 {x}", "R4 · 6,806 token; p50 {x}"),  # Latin text keeps its own punctuation
])
def test_the_filled_text_is_tidied(raw, tidy):
    assert zh_tidy(raw) == tidy


def test_the_checks_catch_each_defect_the_issue_names():
    for bad in ("长 Prefill 为什么伤人", "一个做 Prefill、一个做解码", "Prefill GPU", "Decode GPU",
                "（vLLM V0）: 首字延迟", "（vLLM V1） 的", "。 后厨"):
        assert defects(bad), bad
    assert not defects("长预填充为什么伤人") and not defects("预填充 GPU 与解码 GPU")
