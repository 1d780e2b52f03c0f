"""Home: what Capacity Lab is and what is ready so far."""

import streamlit as st

from ui.state import get_workspace

workspace = get_workspace()

st.title("Capacity Lab")
st.markdown(
    "A Python re-implementation, in progress, of the queue-capacity logic of the **Volcano** "
    "Kubernetes scheduler, with this dashboard on top."
)
st.info(
    "The dashboard is coming. The scheduling engine is being built in `capacity/`; pages for "
    "scenarios, queues and the decision trace will appear here as it lands.",
    icon=":material/construction:",
)
st.caption(f"Current scenario: {workspace['scenario']}")
