"""Scenario: the cluster, queues and jobs being simulated (placeholder until the engine lands)."""

import streamlit as st

from ui.state import get_workspace

workspace = get_workspace()

st.title("Scenario")
st.markdown(f"Loaded scenario: **{workspace['scenario']}**")
st.info("Loading, editing and exporting scenarios is coming.", icon=":material/construction:")
