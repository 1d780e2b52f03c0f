"""Home: what Capacity Lab is, the current scenario at a glance, and where to go next."""

import streamlit as st

from ui.state import get_workspace
from ui.widgets import scenario_caption

workspace = get_workspace()

st.title("Capacity Lab")
st.markdown(
    "A Python re-implementation of the queue-capacity logic of the **Volcano** Kubernetes scheduler, "
    "with this dashboard on top. Every number on these pages comes from the engine in `capacity/`."
)
scenario_caption(workspace)
st.markdown(
    "- **Scenario**: pick a built-in scenario, upload or paste a `kubectl get -o yaml` dump, download the "
    "current state.\n"
    "- **Queues**: the queue tree and each queue's deserved, allocated, capability, guarantee, realCapability.\n"
    "- **Simulate**: step the scheduler, run several cycles, rewind; see binds, evictions and phases.\n"
    "- **Treemaps**: the queues' quantities per resource, coloured by share.\n"
    "- **Jobs**: every job and pod, with its queue, status and node.\n"
    "- **Decisions**: the decision trace of a cycle, and why a pod is pending."
)
