"""chunkviz app entry point: navigation over the pages in pages/, shared sidebar, language switch."""

import streamlit as st

st.set_page_config(page_title="chunkviz", page_icon="🍳", layout="wide")
page = st.navigation([st.Page("pages/home.py", title="Home", url_path="home", default=True)])
page.run()
