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
    "- **Queues**: the queue tree and each queue's deserved, allocated, capability, guarantee, realCapability; "
    "add, edit, rename, re-parent and remove queues, validated as Volcano would.\n"
    "- **Simulate**: step the scheduler, run several cycles, rewind; see binds, evictions and phases.\n"
    "- **Treemaps**: the queues' quantities per resource, coloured by share.\n"
    "- **Jobs** and **Nodes**: every job and pod with its queue, status and node; submit jobs, edit nodes.\n"
    "- **Scheduler**: actions, tiers, hierarchy and the compatibility switches for older Volcano behaviour.\n"
    "- **Decisions**: why a pod, a job (also one with no pods yet) or a queue is where it is, with its numbers and "
    "the checks in the order Volcano ran them; the decision trace of a cycle and the victims table.\n"
    "- **Compare**: the same workload under two configurations, side by side, down to each job's enqueue verdict.\n"
    "- **Lint**: configuration mistakes Volcano accepts silently, and what it does about them.\n"
    "- **Lessons**: guided lessons where you predict the next decision before each step."
)
