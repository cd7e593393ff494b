"""The trade-offs page's loads selector and its per-class section: one best budget for chats, one for batch jobs.

Invariant: the section reads the sweep result the page already ran; it runs no simulation of its own.
"""

from __future__ import annotations

import streamlit as st

from chunkviz.analysis.sweep import SweepResult, best_budget_for_class, has_batch_class
from chunkviz.analysis.scenario import Scenario
from chunkviz.request import PRIORITY_BATCH, PRIORITY_INTERACTIVE
from ui.tradeoffs import charts
from ui.tradeoffs import text
from ui.i18n import t
from ui.page_common import base_scenario
from ui.plotly_config import chart_config, lecture_fonts

LOADS = ("0.5", "1", "2", "4")
MAX_LOADS = 3  # (9 budgets + monolithic) × 3 loads = 30 simulations, under the sweep's limit of 32


def parse_loads(raw: str) -> list[str]:
    """The URL's loads (ids of LOADS, comma-separated); ValueError names what is allowed."""
    items = [x.strip() for x in raw.split(",") if x.strip()]
    if not items or len(items) > MAX_LOADS or any(x not in LOADS for x in items):
        raise ValueError(f"must list 1 to {MAX_LOADS} of {', '.join(LOADS)}, separated by commas")
    return items


def render(result: SweepResult, scenario: Scenario, names: dict, labels: dict) -> None:
    """Best budget per class of customer at each load, chart and sentences."""
    st.subheader(t("to.classes"))
    st.markdown(t("to.classes_lesson"))
    if not has_batch_class(scenario):
        st.info(t("to.class_missing"))
    else:
        if scenario != base_scenario():
            st.caption(t("to.class_added"))
        best_class = {(priority, load): best_budget_for_class([cp for cp in result.class_points
                                                                if cp.load_multiplier == load], priority)
                      for priority in (PRIORITY_INTERACTIVE, PRIORITY_BATCH) for load in result.load_multipliers}
        st.plotly_chart(lecture_fonts(charts.class_figure(result, best_class, names, labels)), width="stretch",
                        key="to_fig_class", config=chart_config())
        for load in result.load_multipliers:
            chat, batch = text.class_sentences(best_class[(PRIORITY_INTERACTIVE, load)],
                                               best_class[(PRIORITY_BATCH, load)], load)
            st.markdown(f"- {chat}\n- {batch}")
