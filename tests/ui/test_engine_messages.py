"""The core's English messages reach Chinese readers in Chinese: each message shape is built here by the core."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from chunkviz.workloads.checks import zero_notes
from chunkviz.simulator.policies.registry import POLICY_NAMES
from chunkviz.simulator.engine import knob_notes, resolve_knobs, simulate
from tests.helpers import make_config, make_requests
from ui.engine_messages import PATTERNS, to_chinese
from ui.i18n import tr


def _has_latin_words(text: str) -> bool:
    """English left in a Chinese sentence (identifiers like max_num_seqs and TIMESTAMP are allowed)."""
    import re

    words = re.findall(r"\b[a-z]{3,}\b", text)
    policy_words = {part for name in POLICY_NAMES for part in name.split("-")}  # policy names are identifiers too
    return any(w not in {"token", "zero_tokens", "skip", *policy_words} for w in words if "_" not in w)


def _notes(config, num_blocks: int) -> list[str]:
    return knob_notes(config, resolve_knobs(config, num_blocks), num_blocks)


def test_settings_notes_and_rejections_are_translated():
    messages = _notes(make_config(policy="chunked", budget=256, max_num_seqs=200, threshold=512), 100)
    messages += _notes(make_config(policy="monolithic", budget=None, threshold=512), 5000)
    trtllm = make_config(policy="trtllm", budget=None, threshold=512)
    trtllm = replace(trtllm, scheduler=replace(trtllm.scheduler, trtllm_chunked_context=True))
    messages += _notes(trtllm, 5000)
    config = make_config(policy="static", budget=8192, num_gpu_blocks=20)
    trace = simulate(config, make_requests([(0.0, 9000, 4), (0.0, 400, 4)]))
    messages += [r.rejected_reason for r in trace.requests if r.rejected_reason]
    assert len(messages) == 6  # two notes, two "ignored" notes, two rejections
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
