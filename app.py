"""chunkviz app entry point: navigation over the pages in pages/, shared sidebar, language switch."""

import streamlit as st

from ui.deep_link import fix_first_deep_link, folder_navigation_ran
from ui.i18n import t
from ui.plain import md_escape
from ui.url_state import take_errors
from ui.widgets import language_switch, sidebar_scenario

st.set_page_config(page_title="chunkviz", page_icon="🍳", layout="wide")
language_switch()
# url_path must differ from the file's stem: AppTest (1.67) otherwise reruns pages/<stem>.py without this frame.
# The default page is served at "/" (Streamlit ignores its url_path), so timeline links are "/?step=…".
PAGES = [
    st.Page("pages/timeline_page.py", title=t("nav.timeline"), url_path="timeline", default=True),
    st.Page("pages/kv_cache_page.py", title=t("nav.kv"), url_path="kv"),
    st.Page("pages/paging_page.py", title=t("nav.paging"), url_path="replacement"),
    st.Page("pages/tradeoffs_page.py", title=t("nav.tradeoffs"), url_path="tradeoffs"),
    st.Page("pages/attention_page.py", title=t("nav.attention"), url_path="attention"),
    st.Page("pages/seed_demo_page.py", title=t("nav.seed"), url_path="article"),
    st.Page("pages/quiz_page.py", title=t("nav.quiz"), url_path="quiz"),
    st.Page("pages/traces_page.py", title=t("nav.traces"), url_path="traces"),
    st.Page("pages/measure_page.py", title=t("nav.measure"), url_path="measure"),
]
first_run_via_folder = folder_navigation_ran()  # must be read before st.navigation (ui/deep_link.py)
page = st.navigation(PAGES)
fix_first_deep_link(first_run_via_folder, page)
notices = st.container()
st.session_state["_scenario"] = sidebar_scenario()
page.run()
for error in take_errors():
    notices.warning(t("url.ignored", error=md_escape(error)))
