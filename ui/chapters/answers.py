"""The fields a chapter's question, options and verdict are written with: the prediction's figures, plus the ones a
sentence needs formatted (engine names, counted nouns, a figure set against its SLO at the precision that decides it).

Invariant: every value comes from the prediction (chunkviz/lessons/predictions.py) or the chapter's own engines;
nothing is typed in, so a change in the model changes the sentences with the verdict.
"""

from __future__ import annotations

from chunkviz.lessons.budgets import BUDGETS_TOKENS
from chunkviz.lessons.chapters import Chapter
from chunkviz.lessons.predictions import Prediction
from ui.fmt import deciding
from ui.i18n import t


def count(noun: str, n: float) -> str:
    """"1 chat" / "4 chats" (中文 has one form): texts chx.n.<noun> and chx.n.<noun>_one."""
    return t(f"chx.n.{noun}_one" if n == 1 else f"chx.n.{noun}", n=f"{n:,.0f}")


def _slo(ms: float) -> str:
    return f"{ms:g}"


def _budget_fields(f: dict[str, float]) -> dict[str, str]:
    """Chapter 6: the SLOs as printed, and each class's figure per budget beside its SLO at the deciding precision."""
    def series(prefix: str, slo_key: str) -> str:
        return " / ".join(deciding(f[f"{prefix}_{b}"], f[slo_key]) for b in BUDGETS_TOKENS)

    return {"slo_chat_ttft": _slo(f["slo_chat_ttft_ms"]), "slo_chat_tbt": _slo(f["slo_chat_tbt_ms"]),
            "slo_doc_ttft": _slo(f["slo_doc_ttft_ms"]), "budgets": " / ".join(f"{b:,}" for b in BUDGETS_TOKENS),
            "tbt": series("tbt_p99_ms", "slo_chat_tbt_ms"), "chat_ttft": series("chat_ttft_ms", "slo_chat_ttft_ms"),
            "doc_ttft": series("doc_ttft_ms", "slo_doc_ttft_ms")}


def answer_fields(ch: Chapter, p: Prediction, engine_label) -> dict[str, object]:
    """The prediction's figures and the chapter's formatted ones (`engine_label`: policy → its name on the stage)."""
    f = dict(p.figures)
    out: dict[str, object] = {**f, "engine": engine_label(ch.policies[0])}
    if len(ch.policies) > 1:
        out["engine_b"] = engine_label(ch.policies[1])
    if "frozen" in f:
        out["frozen_chats"] = count("chats", f["frozen"])
    if ch.number == 6:
        out.update(_budget_fields(f))
    return out


def question_fields(ch: Chapter, p: Prediction, engine_label, stage: dict) -> dict[str, object]:
    """The question's and options' fields: the stage's (`stage`: lanes.question_fields, what the slide draws) over
    the prediction's."""
    return {**answer_fields(ch, p, engine_label), **stage}


def verdict_fields(ch: Chapter, p: Prediction, engine_label, stage: dict) -> dict[str, object]:
    """The verdict's fields: the prediction's figures over the stage's (chapter 4's verdict is about R1's prompt,
    the stage's `prompt_tokens` is the document's)."""
    return {**stage, **answer_fields(ch, p, engine_label)}


def lesson_fields(ch: Chapter) -> dict[str, object]:
    """Chapter 6's lesson text: its SLOs and budgets as the question prints them, and the sweep's requests."""
    from chunkviz.lessons.chapters import PRESETS
    from ui.chapters.common import prediction  # the app's shared one (answers is imported by common)

    fields = _budget_fields(dict(prediction(ch.number).figures))
    return {**fields, "requests": len(PRESETS[ch.preset].requests())}
