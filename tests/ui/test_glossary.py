"""One Chinese term per concept: every Chinese text follows ui/glossary.py."""

from __future__ import annotations

import re

import pytest

from ui.glossary import GLOSSARY
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
