"""English counts read as English: no text writes "block(s)" or "request(s)"; a counted sentence has a singular twin
`<key>_one` that the page (or the KV stage's JS) picks when the count is 1, in both languages."""

from __future__ import annotations

import re
from types import SimpleNamespace

from chunkviz.simulator.events import Allocated, DecodeStalled, Freed
from chunkviz.simulator.trace import ScheduledChunk
from ui.components.kv_stage.export import _texts
from ui.i18n import all_keys, pair_of, tr

PLURAL_SHORTCUT = re.compile(r"[A-Za-z]\((s|es)\)")


def test_no_text_writes_a_plural_as_s_in_brackets():
    wrong = [f"{key}: {en!r}" for key in all_keys() for en in pair_of(key)[:1] if PLURAL_SHORTCUT.search(en)]
    assert not wrong, "\n".join(wrong)


def test_every_singular_twin_has_its_plural_and_says_one():
    twins = [k for k in all_keys() if k.endswith("_one") and pair_of(k[: -len("_one")])]
    assert len(twins) >= 20, twins  # the KV stage's captions, the step explainer, the rejection warning, …
    for key in twins:
        en = pair_of(key)[0]
        assert re.search(r"\b(1|one)\b", en, re.IGNORECASE) or "{" in en, (key, en)


def test_the_kv_stage_sends_each_counted_caption_with_its_singular():
    for lang in ("en", "zh"):
        texts = _texts(lang, "lru")
        for key in ("c_hit", "c_alloc", "c_free", "c_evict", "c_evict_nofor", "c_preempt", "c_kept", "c_more",
                    "c_cached", "table_n"):
            assert key + "_one" in texts and texts[key + "_one"] != texts[key], (lang, key)
    assert _texts("en", "lru")["table_n_one"] == "1 block" and _texts("zh", "lru")["table_n_one"] == "1 块"


def test_the_step_explainer_counts_in_the_singular_and_the_plural():
    from ui.kv.explain import explain_step

    record = SimpleNamespace(step=3, duration_s=0.01, chunks=(ScheduledChunk(7, 0, 1, 96, "decode"),),
                             events=(Allocated(7, 0, (12,)), Freed(8, 0, (3, 4)), DecodeStalled((5,))))
    en = explain_step(record, 512, "en")
    assert en[0] == "Step 3 took 10.0 ms: 1 decode token and 0 prefill tokens (budget 512)."
    assert "Stall: 1 decoding request (5) got no token this step." in en
    assert "Request 7 got new block 12." in en and "Request 8 returned blocks 3, 4 (last block first)." in en
    zh = explain_step(record, 512, "zh")
    assert zh[0] == "第 3 步耗时 10.0 毫秒：1 个解码 token，0 个预填充 token（预算 512）。"


def test_the_rejection_warning_counts_requests():
    assert tr("kv.rejected_one", "en").startswith("1 request can never run")
    assert tr("kv.rejected", "en", n=2).startswith("2 requests can never run")
