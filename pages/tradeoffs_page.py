"""Trade-offs: sweep the token budget (and the load), plot latency against throughput, name the best budget."""

import streamlit as st

from chunkviz.errors import SimulationLimitError
from chunkviz.analysis.sweep import DEFAULT_BUDGETS_TOKENS, best_for_slo, run_sweep, with_batch_class
from ui.tradeoffs import charts
from ui.tradeoffs import capacity, classes, runs
from ui.tradeoffs import text
from ui.i18n import labeler, t
from ui.page_common import base_scenario
from ui.plain import md_escape
from ui.url_state import choice, number, seed, stepped_choice

from ui.tradeoffs.classes import LOADS, MAX_LOADS
from ui.plotly_config import chart_config, lecture_fonts
LATENCIES = ("tbt_p99_s", "ttft_p99_s", "ttft_p50_s")


st.title(t("to.title"))
st.markdown(t("to.lesson"))
c = st.columns([3, 3, 2, 2])
budget = stepped_choice(c[0], t("to.budget"), DEFAULT_BUDGETS_TOKENS, "to_budget", 512)
seed("to_loads", ["1"], classes.parse_loads)
loads = c[1].multiselect(t("to.loads"), LOADS, key="to_loads", format_func=labeler("to.load."),
                         max_selections=MAX_LOADS)
if loads and st.query_params.get("to_loads") != ",".join(loads):
    st.query_params["to_loads"] = ",".join(loads)  # ids, not the list's repr, so the link reads back
slo_ttft_ms = number(c[2], t("to.slo_ttft"), 1, 60_000, 500, 50, "to_slo_ttft", help=t("to.slo_help"))
slo_tbt_ms = number(c[3], t("to.slo_tbt"), 1, 10_000, 100, 10, "to_slo_tbt", help=t("to.slo_help"))
if not loads:
    st.warning(t("to.no_loads"))
    st.stop()
slo = (slo_ttft_ms / 1e3, slo_tbt_ms / 1e3)
bar = st.empty()
try:
    scenario = with_batch_class(base_scenario())
    result = run_sweep(scenario, DEFAULT_BUDGETS_TOKENS, tuple(float(x) for x in loads), *slo,
                       on_progress=lambda d, n: bar.progress(d / n, text=t("to.running", done=d, total=n)),
                       run_many=runs.run_points)  # points in parallel on every core
except (ValueError, SimulationLimitError) as exc:
    bar.empty()
    st.error(t("err.config", error=md_escape(exc)))
    st.stop()
bar.empty()
names = {load: text.load_label(load) for load in result.load_multipliers}
for load in result.load_multipliers:
    best = best_for_slo([p for p in result.points if p.load_multiplier == load], *slo)
    (st.success if best else st.warning)(text.best_sentence(best, load, slo_ttft_ms, slo_tbt_ms))
main_load = result.load_multipliers[0]
current = next(p for p in result.chunked(main_load) if p.budget_tokens == budget)
for col, (label, value, delta, colour, defs) in zip(st.columns(4), text.current_cards(current, result.baseline(main_load))):
    col.metric(label, value, delta, delta_color=colour, help=defs)
st.caption(t("to.current", budget=budget, load=names[main_load]))
labels = text.chart_labels()
st.subheader(t("to.against_budget"))
st.plotly_chart(lecture_fonts(charts.budget_figure(result, budget, names, labels)), width="stretch",
                key="to_fig_budget", config=chart_config())
st.caption(t("to.budget_note"))
st.subheader(t("to.frontier"))
latency = choice(st, t("to.latency_axis"), LATENCIES, "to_lat", "tbt_p99_s", labeler("to.lat."))
st.plotly_chart(lecture_fonts(charts.frontier_figure(result, latency, budget, names, labels)), width="stretch",
                key="to_fig_front", config=chart_config())
st.caption(t("to.frontier_note"))
classes.render(result, scenario, names, labels)
with st.expander(t("to.table")):
    st.dataframe(text.table_rows(result.points), hide_index=True)
capacity.render(scenario, *slo)
