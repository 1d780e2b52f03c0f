"""Decisions: the decision trace of one cycle, filterable, and "why is this pod pending?"."""

from __future__ import annotations

import streamlit as st

from ui.state import get_workspace
from ui.views import filter_rows, pending_pods, record_rows, trace_jsonl, why_pending
from ui.widgets import scenario_caption

ws = get_workspace()

st.title("Decisions")
scenario_caption(ws)
if not ws.history:
    st.info("No cycle has run yet: step one on the Simulate page and its decisions appear here.",
            icon=":material/info:")
    st.page_link("pages/simulate.py", label="Go to Simulate", icon=":material/play_circle:")
    st.stop()

cycles = [s.cycle for s in ws.history]
cycle = st.selectbox("Cycle", cycles, index=len(cycles) - 1, key="decisions_cycle")
step = ws.step_at(cycle)
rows = record_rows(step.records, step.before)

f1, f2, f3, f4 = st.columns(4)
actions = f1.multiselect("Action", sorted({r["action"] for r in rows}), key="decisions_actions")
queue = f2.selectbox("Queue", ["", *sorted({r["queue"] for r in rows if r["queue"]})], key="decisions_queue",
                     format_func=lambda v: v or "(any)")
job = f3.selectbox("Job", ["", *sorted({r["job"] for r in rows if r["job"]})], key="decisions_job",
                   format_func=lambda v: v or "(any)")
pod = f4.selectbox("Pod", ["", *sorted({r["pod"] for r in rows if r["pod"]})], key="decisions_pod",
                   format_func=lambda v: v or "(any)")
shown = filter_rows(rows, actions=actions, queue=queue, job=job, pod=pod)
st.caption(f"{len(shown)} of {len(rows)} records of cycle {cycle}")
st.dataframe(shown, hide_index=True, key="decisions_table",
             column_config={"reasons": st.column_config.TextColumn(width="large")})

st.download_button(
    "Download all decisions as JSON Lines", data=trace_jsonl(ws.history), file_name=f"{ws.scenario}-trace.jsonl",
    mime="application/jsonl", key="download_trace", icon=":material/download:",
)

st.subheader("Why is this pod pending?")
# Pods still waiting after this cycle first: those are the ones a user asks about.
waiting = sorted(pending_pods(step.before), key=lambda key: key in step.result.binds)
if not waiting:
    st.markdown(f"Every pod had a node before cycle {cycle}.")
    st.stop()
chosen = st.selectbox("Pod without a node before this cycle", waiting, key="why_pod")
about = why_pending(rows, step.before, chosen)
bound = step.result.binds.get(chosen)
if bound:
    st.success(f"`{chosen}` was bound to `{bound}` in cycle {cycle}.", icon=":material/check_circle:")
if not about:
    st.markdown(f"No decision in cycle {cycle} mentions `{chosen}`, its job or its queue.")
for row in about:
    reason = row["reasons"] or "(no reason recorded)"
    st.markdown(f"- **{row['action']} · {row['kind']}** on `{row['subject']}` → `{row['verdict']}`"
                f"{' by ' + row['plugin'] if row['plugin'] else ''}: {reason}")
