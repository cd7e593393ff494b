"""The Chinese glossary: one Chinese term per concept, used by every Chinese text (tests/ui/test_glossary.py).

Invariant: when an English text names a concept (matched by `english`), its Chinese text uses `chinese`; no Chinese
text uses a listed variant.
"""

from __future__ import annotations

from typing import NamedTuple


class Term(NamedTuple):
    english: str  # a regular expression matched case-sensitively against English texts
    chinese: str
    variants: tuple[str, ...]  # other Chinese renderings that must not appear


GLOSSARY: tuple[Term, ...] = (
    Term(r"\bTTFT\b|time to first token", "首字延迟", ("首 token 延迟", "首令牌延迟")),
    Term(r"\bTBT\b|\bITL\b", "字间延迟", ("出字间隔", "TBT", "ITL")),
    Term(r"[Rr]eference string", "引用串", ("访问串", "访问序列")),
    Term(r"\b[Rr]oofline\b", "Roofline", ("屋顶线",)),
    Term(r"\bfrontier\b", "帕累托前沿", ("帕累托边界",)),
    Term(r"\bSLO\b", "SLO", ("服务等级目标",)),
    Term(r"\blog scale\b", "对数刻度", ("对数坐标",)),
)
