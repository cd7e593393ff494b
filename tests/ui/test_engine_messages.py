"""The core's English messages reach Chinese readers in Chinese: each message shape is built here by the core."""

from __future__ import annotations

from collections import Counter

from chunkviz.workloads.checks import zero_notes
from chunkviz.simulator.engine import simulate
from tests.helpers import make_config, make_requests
from ui.engine_messages import PATTERNS, to_chinese
from ui.i18n import tr


def _has_latin_words(text: str) -> bool:
    """English left in a Chinese sentence (identifiers like max_num_seqs and TIMESTAMP are allowed)."""
    import re

    words = re.findall(r"\b[a-z]{3,}\b", text)
    return any(w not in {"token", "zero_tokens", "skip"} for w in words if "_" not in w)


def test_settings_notes_and_rejections_are_translated():
    config = make_config(policy="monolithic", budget=256, max_num_seqs=300, num_gpu_blocks=200, threshold=512)
    messages = list(config.warnings(200))
    trace = simulate(config, make_requests([(0.0, 1000, 4), (0.0, 100, 4)]))
    messages += [r.rejected_reason for r in trace.requests if r.rejected_reason]
    assert len(messages) == 3
    for message in messages:
        zh = to_chinese(message)
        assert zh != message and not _has_latin_words(zh), zh
    assert "超过" in tr("err.note", "zh", note=messages[0])


def test_load_notes_are_translated():
    notes = zero_notes(Counter({"ContextTokens": 2, "GeneratedTokens": 1}), "skip", 3)
    notes += ["rows were not in arrival order; they were sorted by arrival time (ties keep file order)",
              "arrival_s counts from the first request: 12.5 s was subtracted from each"]
    for note in notes:
        zh = tr("rt.note", "zh", note=note)
        assert note not in zh and not _has_latin_words(zh), zh


def test_unknown_messages_are_kept_and_every_pattern_has_chinese():
    assert to_chinese("something new") == "something new"
    assert all(zh and not _has_latin_words(zh.format_map(Counter())) for _, zh in PATTERNS)
