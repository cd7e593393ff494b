"""chunkviz app entry point: navigation over the pages in pages/, shared sidebar, language switch."""

import streamlit as st

from ui.i18n import t
from ui.url_state import take_errors
from ui.widgets import language_switch, sidebar_scenario

st.set_page_config(page_title="chunkviz", page_icon="🍳", layout="wide")
language_switch()
PAGES = [
    st.Page("pages/timeline_page.py", title=t("nav.timeline"), url_path="timeline", default=True),
]
page = st.navigation(PAGES)
notices = st.container()
st.session_state["_scenario"] = sidebar_scenario()
page.run()
for error in take_errors():
    notices.warning(t("url.ignored", error=error))
