"""The Chinese glossary: one Chinese term per concept, used by every Chinese text (tests/ui/test_glossary.py).

Invariant: when an English text names a concept (matched by `english`), its Chinese text uses `chinese`; no Chinese
text uses a listed variant.
"""

from __future__ import annotations

import functools
import re
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
    Term(r"\b[Gg]oodput\b", "有效吞吐", ("好吞吐", "有效吞吐量")),
    Term(r"\blog scale\b", "对数刻度", ("对数坐标",)),
    # The two phases: one Chinese word each on every page, in titles, charts and legends too (issue 35).
    Term(r"\b[Pp]refill(?:s|ed)?\b(?![-_]first)", "预填充", ()),
    Term(r"\b[Dd]ecod(?:e|es|ing)\b", "解码", ()),
)

# Latin-script words a 中文 page may show, kept in this one place (tests/e2e/test_language_browser.py walks every
# page with it, tests/ui/test_glossary.py every text table). A reader types these into an engine's flags, a search
# box or a citation, so they stay as written; any other English word on a 中文 page is a defect. Besides the words
# below, `is_kept_latin` keeps what is not a word of English prose: request ids (R12), one-letter symbols (n, K, V),
# acronyms (GPU, TP, GEMM), code and file names (max_model_len, config.json, bf16) and Latin words of the policy
# labels, the scheduler knobs and the model/GPU catalogue (read from the core, so a new engine or model needs no edit).
KEPT_TERMS = (
    "TTFT TBT ITL SLO p50 p99 Roofline token tokens FLOPs logits "  # terms kept in Chinese writing
    "vLLM Sarathi-Serve Sarathi SGLang TensorRT-LLM TRT-LLM Orca PagedAttention Mooncake DistServe vidur "  # engines, simulators
    "FIFO LRU LFU OPT Clock Belady CoW "  # replacement rules and the anomaly, named as in the textbooks
    "Llama Qwen Mistral Gemma Phi internlm PyTorch torch Python CUDA SwiGLU Hugging Face Chrome Perfetto chunkviz "  # tools
    "Azure Public Dataset Splitwise "  # the trace's dataset and paper, cited by their titles (rt.attribution)
    "KiB MiB GiB TiB TFLOP GB MB KB TB Home End PageDown PageUp "  # binary units, key names (as on the keyboard)
    "NVLink PCIe "  # GPU links, by their makers' names
)
# Texts that cite a work by its published title and authors (CC BY 4.0 asks for the attribution as published).
CITATIONS = ("rt.attribution",)
LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_.]*(?:[-'/][A-Za-z0-9_.]+)*")  # knob names and paths stay one word
_NOT_PROSE = (re.compile(r"R\d+"), re.compile(r"[A-Za-z]"), re.compile(r"[A-Z][A-Z0-9]+"),
              re.compile(r".*(?:_|\.[a-z]|/|\d).*"))  # id, symbol, acronym, code or file name


@functools.cache
def kept_latin_words() -> frozenset[str]:
    """KEPT_TERMS, the glossary's Latin Chinese terms, the policy labels' Latin words, the model and GPU names of
    the catalogue and the words of the CITATIONS, lower-cased."""
    from chunkviz.cost.catalogue import GPUS, MODELS
    from chunkviz.simulator.policies.registry import REGISTRY

    from ui.i18n import tr

    sources = [KEPT_TERMS, *(term.chinese for term in GLOSSARY), *(e.label_zh for e in REGISTRY.values()),
               *MODELS, *GPUS, *(tr(key, "zh") for key in CITATIONS)]
    return frozenset(w.lower() for text in sources for w in LATIN_WORD.findall(text))


def is_kept_latin(word: str) -> bool:
    """Whether a Latin `word` may stand on a Chinese page (see KEPT_TERMS)."""
    word = word.rstrip(".")
    return any(p.fullmatch(word) for p in _NOT_PROSE) or word.lower() in kept_latin_words()
