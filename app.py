"""chunkviz app entry point: navigation over the pages in pages/, shared sidebar, language switch."""

import streamlit as st

from chunkviz.lessons.chapters import CHAPTERS
from ui.chapters.common import nav_label, page_file
from ui.components.room.mount import room_bar
from ui.deep_link import fix_first_deep_link, folder_navigation_ran
from ui.i18n import t
from ui.lecture import lecture_css, lecture_on
from ui.plain import md_escape
from ui.url_state import take_errors
from ui.widgets import language_switch, sidebar_scenario

# Lecture mode (?present=1) is one flag for the whole session: read before the page, so every page sees it.
lecture = lecture_on()
st.set_page_config(page_title="chunkviz", page_icon="🍳", layout="wide",
                   initial_sidebar_state="collapsed" if lecture else "auto")
if lecture:
    lecture_css()
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
# The lecture first, in the article's order (labels begin with the chapter number); the pages above follow.
LECTURE = [st.Page(page_file(c), title=nav_label(c), url_path=c.slug) for c in CHAPTERS]
first_run_via_folder = folder_navigation_ran()  # must be read before st.navigation (ui/deep_link.py)
page = st.navigation({t("chx.nav_lecture"): LECTURE, t("chx.nav_reference"): PAGES}, expanded=True)  # no "View N more"
fix_first_deep_link(first_run_via_folder, page)
notices = st.container()
# ?room=CODE on any page joins the class (ui/components/room/); the teacher's chapter is the one students follow.
room_bar(page.url_path if page.url_path in {c.slug for c in CHAPTERS} else None, notices)
if page.url_path in {c.slug for c in CHAPTERS}:
    st.sidebar.info(t("chx.sidebar_note"))  # chapters run their own presets: the scenario widgets would do nothing
else:
    st.session_state["_scenario"] = sidebar_scenario()
page.run()
for error in take_errors():
    notices.warning(t("url.ignored", error=md_escape(error)))
