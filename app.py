"""Capacity Lab dashboard: entry point (page config, workspace, navigation).

Run it with `./run`. Pages live in `pages/`, one file each, and each calls `ui.state.get_workspace()`
first. Never import this file from a page: that would run the navigation again.
"""

import os

import streamlit as st

from capacity.core.gcpause import record_pauses
from ui.state import get_workspace

if os.environ.get("CAPACITY_LAB_GC_LOG"):  # the dashboard benchmark's record of collections (benchmarks/browser.py)
    record_pauses(os.environ["CAPACITY_LAB_GC_LOG"])

# The favicon must be an emoji or a local file: a ":material/..." favicon is fetched from the internet.
# (Material icons inside the page are fine: they render from a font bundled with Streamlit.)
st.set_page_config(page_title="Capacity Lab", page_icon="🌋", layout="wide")
get_workspace()

navigation = st.navigation(
    [
        st.Page("pages/home.py", title="Home", icon=":material/home:", default=True),
        st.Page("pages/scenario.py", title="Scenario", icon=":material/folder_open:"),
        st.Page("pages/queues.py", title="Queues", icon=":material/account_tree:"),
        st.Page("pages/simulate.py", title="Simulate", icon=":material/play_circle:"),
        st.Page("pages/treemaps.py", title="Treemaps", icon=":material/dashboard:"),
        st.Page("pages/jobs.py", title="Jobs", icon=":material/work:"),
        st.Page("pages/nodes.py", title="Nodes", icon=":material/dns:"),
        st.Page("pages/scheduler.py", title="Scheduler", icon=":material/tune:"),
        st.Page("pages/decisions.py", title="Decisions", icon=":material/fact_check:"),
        st.Page("pages/compare.py", title="Compare", icon=":material/compare_arrows:"),
        st.Page("pages/plan.py", title="Plan", icon=":material/query_stats:"),
        st.Page("pages/lint.py", title="Lint", icon=":material/rule:"),
        st.Page("pages/lessons.py", title="Lessons", icon=":material/school:"),
    ]
)
navigation.run()
