"""Chapter 6's token budget as a handle on the slide: the chapter's workload run at each budget of the chapter's sweep
(chunkviz/lessons/budgets.py BUDGETS_TOKENS), sent once in the comparison payload (`variants`), so dragging the
handle (or ←/→ on it) switches the lanes between those runs in the browser (comparison.js useVariant), with no rerun.

Invariant: each run drawn is the very run the sweep judges (scenario_for(ch, policy, budget) is the sweep's
CLASSES.with_policy(DECODE_FIRST, budget)), and the verdict beside the handle (shown only once the question is
answered: before, it would be the answer) prints the sweep's figures at 0.1 ms, the precision that decides them
(a documents' TTFT p50 of 300.3 ms fails a 300 ms SLO).
"""

from __future__ import annotations

from chunkviz.lessons import budgets
from chunkviz.lessons.chapters import LECTURE_BUDGET_TOKENS, Chapter, scenario_for
from chunkviz.simulator.trace import Trace
from ui.chapters.common import engine_label
from ui.components.comparison.export import build_payload
from ui.i18n import current_lang, t
from ui.runs import trace_or_error


def _verdict(p: budgets.BudgetPoint, slo: budgets.ClassSlo) -> str:
    def mark(ok: bool) -> str:
        return "✓" if ok else "✗"
    return t("chx.handle.6.verdict", chat_ttft=p.chat_ttft_p90_s * 1e3, tbt=p.chat_tbt_p99_s * 1e3,
             doc_ttft=p.doc_ttft_p50_s * 1e3, slo_chat_ttft=slo.chat_ttft_p90_s * 1e3,
             slo_chat_tbt=slo.chat_tbt_p99_s * 1e3, slo_doc_ttft=slo.doc_ttft_p50_s * 1e3,
             chat=mark(p.meets_chat), doc=mark(p.meets_doc))


def budget_runs(ch: Chapter) -> dict[int, Trace] | None:
    """The chapter's engine at every budget of the sweep (cached runs); None if one cannot run (shown)."""
    out = {}
    for budget in budgets.BUDGETS_TOKENS:
        trace = trace_or_error(scenario_for(ch, ch.policies[0], budget))
        if trace is None:
            return None
        out[budget] = trace
    return out


def budget_variants(ch: Chapter, present: bool, done: bool, run_extras) -> dict:
    """The payload's `variants`: per budget the drawn run (engines, step grid, end) and its notes and stops
    (`run_extras(traces)`), the verdict once `done`; the handle starts at the lecture's budget."""
    runs = budget_runs(ch)
    if runs is None:
        return {}
    from ui.chapters.lessons import _sweep  # the sweep's cached points (the same runs)

    points, slo, lang = {p.budget_tokens: p for p in _sweep()}, budgets.ClassSlo(), current_lang()
    policy = ch.policies[0]
    drawn = []
    for budget, trace in runs.items():
        payload = build_payload([(engine_label(policy), trace)], lang, present)
        drawn.append({"engines": payload["engines"], "grid_ms": payload["grid_ms"], "end_ms": payload["end_ms"],
                      **run_extras({policy: trace}),
                      "verdict": _verdict(points[budget], slo) if done else t("chx.handle.6.before")})
    values = list(runs)
    return {"variants": {"label": t("chx.budget.axis"), "unit": t("chx.handle.6.unit"), "values": values,
                         "index": values.index(LECTURE_BUDGET_TOKENS), "runs": drawn}}
