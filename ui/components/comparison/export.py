"""The comparison element's payload (what ui/components/comparison/comparison.js draws) and its offline HTML file,
without Streamlit.

Invariant: streamlit-free (the CLI's export-html reaches it through ui/components/offline/writer.py and the timeline
wing's `export`
module; the chapters through ui/components/comparison/mount.py); `/` and every chapter mount exactly
`build_payload(...)` plus their
extras and start cursor, and "Download this view" writes that same dict into the file, so the file plays as the
page does.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Sequence

from chunkviz.analysis.bookmarks import find_bookmarks
from chunkviz.analysis.metrics import summarize
from chunkviz.simulator.trace import Trace
from ui.components.comparison import data as td
from ui import palette
from ui.i18n import tr
from ui.components.offline.writer import Component, StartParam, page_html

COMPONENT = Component(((Path(__file__).resolve().parent, "comparison"),), "chunkviz_timeline", "timeline")
START = StartParam(td.URL_PARAM, "t0_ms")
_JS_TEXTS = ("first", "prev", "next", "last", "play", "pause", "follow", "follow_help", "time", "time_ms",
             "cursor", "no_step", "step_of", "step_idle", "steps", "tip_step", "tip_seg", "tip_tokens",
             "tip_decodes", "kind_prefill", "kind_decode", "kind_mixed", "blank", "clicker", "guide")
_JS_TEXTS += ("moment",)  # a slide's caption per moment (comparison.js drawCaption)
_CARDS = ("metric.ttft_p50", "metric.ttft_p99", "metric.tbt_p50", "metric.tbt_p99", "metric.throughput")
_CARD_TERMS = {"metric.ttft_p50": ("ttft", "pct"), "metric.ttft_p99": ("ttft", "pct"),  # each card's tooltip
               "metric.tbt_p50": ("tbt", "pct"), "metric.tbt_p99": ("tbt", "pct")}  # (ui/text_common def.*)
# (trace ids, labels, lang, present) -> (traces, payload). Holding the traces keeps their ids from being reused by
# new objects while the entry lives, so an id-based key cannot alias another run.
_MEMO: dict[tuple, tuple[tuple[Trace, ...], dict]] = {}


def _texts(lang: str) -> dict[str, str]:
    texts = {k: tr(f"tlv.{k}", lang) for k in _JS_TEXTS}
    texts.update({f"lbl_{k}": tr(f"lbl.{k}", lang) for k in ("waiting", "prefill", "decode", "stall", "preempted")})
    return texts


def _speeds(lang: str) -> list[dict]:
    return [{"kind": kind, "factor": v, "label": tr("tlv.speed_sim", lang, x=v)} if kind == "sim" else
            {"kind": kind, "rate": v, "label": tr("tlv.speed_steps", lang, n=v)} for kind, v in td.SPEEDS]


def _legend(lang: str) -> list[tuple[str, str, str]]:
    kinds = [(tr(f"lbl.{k}", lang), palette.KIND_COLORS[k], k) for k in ("waiting", "prefill", "decode", "stall",
                                                                          "preempted")]
    return kinds + [(tr("tlv.mixed", lang), palette.MIXED, "mixed"), (tr("tlv.cursor_legend", lang), palette.CURSOR,
                                                                       "cursor")]


def version_of(data: dict) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]


def build_payload(runs: Sequence[tuple[str, Trace]], lang: str, present: bool) -> dict:
    """Everything the component draws for these runs (without the start cursor)."""
    key = (tuple(id(t) for _, t in runs), tuple(label for label, _ in runs), lang, present)
    if key in _MEMO:
        return _MEMO[key][1]
    bound = lambda k, **f: tr(k, lang, **f)  # noqa: E731 (an i18n lookup bound to the language)
    metrics = [summarize(t) for _, t in runs]
    engines = [td.engine_payload(bound, lang, td.TAGS[i], label, trace, m, metrics[0] if i else None)
               for i, ((label, trace), m) in enumerate(zip(runs, metrics))]
    traces = [t for _, t in runs]
    data = {"engines": engines, "grid_ms": td.grid_ms(traces),
            "end_ms": max((t.makespan_s for t in traces), default=0.0) * 1e3,
            "bookmarks": td.bookmark_items(bound, runs), "text": _texts(lang), "speeds": _speeds(lang),
            "default_speed": td.DEFAULT_SPEED, "legend": _legend(lang), "card_labels": [tr(k, lang) for k in _CARDS],
            "card_help": ["\n".join(tr(f"def.{term}", lang) for term in _CARD_TERMS.get(k, ())) for k in _CARDS],
            "colours": {**palette.KIND_COLORS, "mixed": palette.MIXED, "cursor": palette.CURSOR,
                        "transfer": palette.TRANSFER},
            "patterns": palette.PATTERNS, "window_ms": td.WINDOW_MS, "present": present, "url_param": td.URL_PARAM,
            # Lecture mode: every text drawn on the canvas is at least 16 px (a projector at the back of a room).
            "font_px": 18 if present else 14, "tick_px": 16 if present else 12, "gutter_px": 50 if present else 46,
            "lane_max_px": 18 if present else 14, "height_px": 280 if present else 470}  # 280: two-line why-sentences still fit 720
    data["version"] = version_of(data)
    if len(_MEMO) > 16:
        _MEMO.clear()
    _MEMO[key] = (tuple(traces), data)
    return data


def default_cursor_ms(traces: Sequence[Trace]) -> float:
    """Where a page opens without a link: the first engine's first teaching moment, so the lesson is drawn."""
    marks = find_bookmarks(traces[0]) if traces else ()
    return marks[0].end_s * 1e3 if marks else 0.0


def html_for(data: dict, lang: str) -> str:
    """The offline file of a mounted payload (build_payload's dict with its extras and t0_ms)."""
    labels = " · ".join(f"{e['tag']} {e['label']}" for e in data["engines"])
    return page_html(COMPONENT, data, lang, tr("tl.title", lang), labels, START)


def offline_html(lang: str, runs: Sequence[tuple[str, Trace]], t0_ms: float | None = None,
                 present: bool = False, policy_names: bool = False) -> str:
    """The offline file for `runs` ((label, trace); with policy_names, the labels are policy names to translate)."""
    if policy_names:
        runs = [(tr(f"policy.{name}", lang), trace) for name, trace in runs]
    data = dict(build_payload(runs, lang, present))
    data["t0_ms"] = default_cursor_ms([t for _, t in runs]) if t0_ms is None else t0_ms
    return html_for(data, lang)
