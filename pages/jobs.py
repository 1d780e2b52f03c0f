"""Jobs: every PodGroup and pod of the current cluster, with its queue, status and node."""

from __future__ import annotations

import streamlit as st

from ui.state import get_workspace
from ui.views import job_rows, pod_rows
from ui.widgets import scenario_caption

ws = get_workspace()

st.title("Jobs")
scenario_caption(ws)
jobs = job_rows(ws.cluster)
pods = pod_rows(ws.cluster)

queues = sorted({row["queue"] for row in jobs})
queue = st.selectbox("Queue", ["(all)", *queues], key="jobs_queue")
if queue != "(all)":
    jobs = [row for row in jobs if row["queue"] == queue]
    pods = [row for row in pods if row["queue"] == queue]

st.subheader(f"Jobs ({len(jobs)})")
st.dataframe(jobs, hide_index=True, key="jobs_table")
st.subheader(f"Pods ({len(pods)})")
only_waiting = st.toggle("Only pods without a node", key="jobs_only_waiting")
if only_waiting:
    pods = [row for row in pods if not row["node"]]
st.dataframe(pods, hide_index=True, key="pods_table")
