"""One Chinese term per concept: every Chinese text follows ui/glossary.py."""

from __future__ import annotations

import re

import pytest

from ui.glossary import GLOSSARY, LATIN_WORD, is_kept_latin
from ui.i18n import all_keys, pair_of


@pytest.mark.parametrize("term", GLOSSARY, ids=lambda term: term.chinese)
def test_chinese_texts_use_the_glossary_term(term):
    wrong = []
    for key in all_keys():
        en, zh = pair_of(key)
        if any(v in zh for v in term.variants) or (re.search(term.english, en) and term.chinese not in zh):
            wrong.append(f"{key}: {zh[:80]}")
    assert not wrong, "\n".join(wrong)


def test_the_glossary_has_one_chinese_term_per_concept():
    chinese = [t.chinese for t in GLOSSARY]
    assert len(set(chinese)) == len(chinese)
    assert all(t.chinese not in other.variants for t in GLOSSARY for other in GLOSSARY)


CJK = re.compile(r"[\u3400-\u9fff\uff00-\uffef]")


def test_english_texts_carry_no_chinese():
    wrong = [f"{key}: {pair_of(key)[0][:80]}" for key in all_keys() if CJK.search(pair_of(key)[0])]
    assert not wrong, "\n".join(wrong)


def test_chinese_texts_carry_no_english_word_the_glossary_does_not_keep():
    """Placeholders ({n}) and code spans (`--flag`) are not prose; every other Latin word must be kept by the
    glossary (ui.glossary.is_kept_latin). The browser test checks the same on the drawn pages."""
    wrong = []
    for key in all_keys():
        prose = re.sub(r"`[^`]*`|\{[^}]*\}", "", pair_of(key)[1])
        words = [w for w in LATIN_WORD.findall(prose) if not is_kept_latin(w)]
        if words:
            wrong.append(f"{key}: {words}")
    assert not wrong, "\n".join(wrong)


def test_the_kept_words_keep_names_and_refuse_prose():
    assert all(is_kept_latin(w) for w in ("TTFT", "vLLM", "max_num_batched_tokens", "R12", "config.json", "n"))
    assert not any(is_kept_latin(w) for w in ("View", "more", "query", "key", "Upload", "per", "file", "off", "vs"))


# The names an engine behaviour had before each got one (issue 22); the article's demo (sd.*) keeps the toy's own
# mode names ("whole-prompt prefill"), which name the article's code, not an engine.
RETIRED_NAMES = (re.compile(r"\b[Mm]onolithic\b|Orca-style|\(V0\)|prefill-first scheduler"),
                 re.compile(r"整体预填充|Orca 式|（V0）"))


def test_each_engine_behaviour_has_one_name_on_every_page():
    wrong = [f"{key}: {text[:80]}" for key in all_keys() if not key.startswith("sd.")
             for text, retired in zip(pair_of(key), RETIRED_NAMES) if retired.search(text)]
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("key", ["rt.eng.monolithic", "to.lbl.mono", "cap.policy.monolithic"])
def test_a_policy_named_as_a_label_reads_as_the_registry_label(key):
    assert pair_of(key) == pair_of("policy.monolithic")
