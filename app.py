"""Capacity Lab dashboard: entry point (page config, workspace, navigation).

Run it with `./run`. Pages live in `pages/`, one file each, and each calls `ui.state.get_workspace()`
first. Never import this file from a page: that would run the navigation again.
"""

import streamlit as st

from ui.state import get_workspace

# The favicon must be an emoji or a local file: a ":material/..." favicon is fetched from the internet.
# (Material icons inside the page are fine: they render from a font bundled with Streamlit.)
st.set_page_config(page_title="Capacity Lab", page_icon="🌋", layout="wide")
get_workspace()

navigation = st.navigation(
    [
        st.Page("pages/home.py", title="Home", icon=":material/home:", default=True),
        st.Page("pages/scenario.py", title="Scenario", icon=":material/folder_open:"),
    ]
)
navigation.run()
