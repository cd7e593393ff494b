"""Placeholder while the page is being written in this session."""

import streamlit as st

st.title("paging")
