"""Replacement rules: FIFO, LRU, LFU, Clock and OPT, each written once as a victim chooser behind `Replacer`.

Owns: which resident key goes next. The caller owns what a key is (a page, a prefix-cache block id, a free KV
block) and says what it knows of each key in a `Usage` (loaded at, last used at, uses, next use, worthless).
Used by the paging lesson (lessons/paging_steps.py), the KV block manager's free queue (simulator/kv/eviction.py)
and the prefix-cache study (analysis/prefix_study.py).

Layer 0: may import only the standard library and chunkviz.errors.
"""

from chunkviz.replacement.base import LFU_TIE_BREAKS, Convention, Replacer, Usage
from chunkviz.replacement.clock import ClockReplacer
from chunkviz.replacement.ranked import RankedReplacer
from chunkviz.replacement.rules import RULES, make_replacer

__all__ = ["LFU_TIE_BREAKS", "RULES", "ClockReplacer", "Convention", "RankedReplacer",
           "Replacer", "Usage", "make_replacer"]
