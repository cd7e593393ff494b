"""The comparison component's data (ui/components/comparison/comparison.js): a run's drawable pieces (steps, lane
segments, why-sentences, bookmarks, cards)
as compact JSON-ready columns, built once per scenario and language.

Invariant: pure (no Streamlit); times are in ms; token ranges carry the first token's 0-based index, the JS shows
them 1-based and inclusive; `version` changes exactly when anything drawn changes.
"""

from __future__ import annotations

from typing import Callable, Sequence

from chunkviz.analysis.bookmarks import find_bookmarks
from chunkviz.analysis.metrics import Metrics
from chunkviz.analysis.timeline import KINDS, lane_segments
from chunkviz.analysis.why import why_sentences
from chunkviz.simulator.trace import Trace

Tr = Callable[..., str]  # i18n lookup bound to a language: tr(key, **fields)
URL_PARAM = "t_ms"
WINDOW_MS = 1500.0  # follow mode shows the last 1.5 s, as the old page did
SPEEDS = (("sim", 0.1), ("sim", 0.5), ("sim", 1.0), ("steps", 20), ("steps", 60))
DEFAULT_SPEED = 3  # 20 steps/s


def _step_kind(step) -> str:
    phases = {c.phase for c in step.chunks}
    return "prefill" if phases == {"prefill"} else "decode" if phases == {"decode"} else "mixed"


def steps_columns(trace: Trace) -> dict[str, list]:
    s = trace.steps
    return {"s": [x.start_s * 1e3 for x in s], "d": [x.duration_s * 1e3 for x in s], "n": [x.step for x in s],
            "k": [_step_kind(x) for x in s],
            "p": [sum(c.num_tokens for c in x.chunks if c.phase == "prefill") for x in s],
            "dc": [sum(c.num_tokens for c in x.chunks if c.phase == "decode") for x in s]}


def segment_columns(trace: Trace) -> dict[str, list]:
    """Lane segments; a prefill segment is one chunk, so its first token comes from that step's chunk."""
    first_token = {(c.request_id, st.step): c.start_token for st in trace.steps for c in st.chunks
                   if c.phase == "prefill"}
    prompts = {r.request_id: r.prompt_tokens for r in trace.requests}
    segs = lane_segments(trace)
    return {"r": [g.request_id for g in segs], "k": [KINDS.index(g.kind) for g in segs],
            "s": [g.start_s * 1e3 for g in segs], "e": [g.end_s * 1e3 for g in segs],
            "tok": [g.num_tokens for g in segs],
            "a": [first_token.get((g.request_id, g.first_step), 0) for g in segs],
            "tot": [prompts.get(g.request_id, 0) for g in segs]}


def grid_ms(traces: Sequence[Trace]) -> list[float]:
    """Where the arrow keys stop: 0 and every step end of every engine (a cursor there shows that step whole)."""
    ends = {round((s.start_s + s.duration_s) * 1e3, 6) for t in traces for s in t.steps}
    return sorted(ends | {0.0})


def _ms(tr: Tr, value: float | None) -> str:
    return "–" if value is None else tr("unit.ms", v=value * 1e3)


def cards(tr: Tr, m: Metrics, base: Metrics | None) -> list[dict]:
    """TTFT p50/p99, TBT p50/p99, throughput; deltas against `base` (lower latency, higher throughput is good)."""
    out = []
    for dist_name, pct in (("ttft_s", "p50"), ("ttft_s", "p99"), ("tbt_s", "p50"), ("tbt_s", "p99")):
        v = getattr(getattr(m, dist_name), pct)
        b = None if base is None else getattr(getattr(base, dist_name), pct)
        # + 0.0 turns a rounded -0.0 into 0.0, so an equal pair reads "+0.0 ms", not "-0.0 ms"
        delta = None if v is None or b is None else tr("unit.delta_ms", v=round((v - b) * 1e3, 1) + 0.0)
        same = delta is None or abs(v - b) < 5e-5  # equal at the 0.1 ms shown: neither better nor worse
        out.append({"value": _ms(tr, v), "delta": delta, "good": None if same else v < b})
    thr = m.throughput_output_tokens_per_s
    base_thr = None if base is None else base.throughput_output_tokens_per_s
    out.append({"value": tr("unit.tok_s", v=thr),
                "delta": None if base_thr is None else tr("unit.delta_tok_s", v=thr - base_thr),
                "good": None if base_thr is None or thr == base_thr else thr > base_thr})
    return out


TAGS = "ABCDEFGH"  # short engine names for bookmarks and the why panel


def engine_payload(tr: Tr, lang: str, tag: str, label: str, trace: Trace, m: Metrics, base: Metrics | None) -> dict:
    return {"tag": tag, "label": label, "steps": steps_columns(trace), "segs": segment_columns(trace),
            "why": list(why_sentences(trace, lang)), "cards": cards(tr, m, base)}


def bookmark_items(tr: Tr, runs: Sequence[tuple[str, Trace]]) -> list[dict]:
    """One button per (engine, bookmark); the jump target is the end of the event."""
    out = []
    for tag, (_, trace) in zip(TAGS, runs):
        for b in find_bookmarks(trace):
            out.append({"label": tr(f"bm.{b.kind}", engine=tag),
                        "title": tr("bm.title", r=b.request_id, ms=(b.end_s - b.start_s) * 1e3),
                        "t_ms": b.end_s * 1e3})
    return out
