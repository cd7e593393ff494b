"""Download buttons for a trace: per-request CSV, full trace JSON, Chrome/Perfetto trace."""

from __future__ import annotations

import streamlit as st

from chunkviz.analysis.export import chrome_trace_json, requests_csv
from chunkviz.simulator.trace import Trace
from ui.i18n import t


def download_buttons(trace: Trace, prefix: str) -> None:
    cols = st.columns(3)
    # Callables run only on click, so building a large JSON never slows down stepping.
    cols[0].download_button(t("dl.csv"), data=lambda: requests_csv(trace), file_name=f"{prefix}-requests.csv",
                            mime="text/csv", key=f"{prefix}_dl_csv", on_click="ignore")
    cols[1].download_button(t("dl.json"), data=trace.to_json, file_name=f"{prefix}-trace.json",
                            mime="application/json", key=f"{prefix}_dl_json", on_click="ignore")
    cols[2].download_button(t("dl.chrome"), data=lambda: chrome_trace_json(trace),
                            file_name=f"{prefix}-chrome-trace.json", mime="application/json",
                            key=f"{prefix}_dl_chrome", on_click="ignore")
