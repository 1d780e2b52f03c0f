"""Decisions: the decision trace of one cycle, filterable; the candidate victims of reclaim and preempt with each
rule's verdict; and "why is this pod pending or evicted?" for any pod, with what would have to change."""

from __future__ import annotations

import streamlit as st

from capacity.explain import explain_pod, victim_table
from capacity.whatif import what_would_change
from ui.editing import keep_valid
from ui.state import get_workspace
from ui.views import filter_rows, record_rows, trace_jsonl, why_pending
from ui.widgets import scenario_caption

ws = get_workspace()


def _what_if(cycle: int, job: str) -> None:
    """Single changes that would place the job in the cycle after `cycle`, each proven by re-running it."""
    ws.whatif[(cycle, job)] = what_would_change(ws.cluster_after(cycle), job, cycles=1, options=ws.options)


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

st.subheader("Victims of reclaim and preempt")
victims = victim_table(step.records, cycle)
if victims:
    st.caption("Every candidate a reclaim or preempt victim decision looked at, with each plugin's verdict and rule "
               "per tier, the tier that decided, whether it ended in the victim list and whether it was evicted.")
    st.dataframe(victims, hide_index=True, key="victims_table")
else:
    st.markdown(f"No reclaim or preempt victim decision in cycle {cycle} (actions: "
                f"{', '.join(step.before.conf.actions)}).")

st.subheader("Why is this pod pending or evicted?")
after = ws.cluster_after(cycle)
records = [r for s in ws.history if s.cycle <= cycle for r in s.records]
evicted = set(step.result.evicted)
pods = sorted(set(after.pods) | set(step.before.pods))
# Pods still waiting after this cycle first, then those evicted in it: those are the ones a user asks about.
pods.sort(key=lambda k: (0 if k in after.pods and not after.pods[k].node_name else 1 if k in evicted else 2, k))
if not pods:
    st.markdown("The scenario has no pods.")
    st.stop()
keep_valid("why_pod", pods)
chosen = st.selectbox("Pod to explain", pods, key="why_pod",
                      format_func=lambda k: f"{k} (evicted)" if k in evicted else
                      f"{k} (pending)" if k in after.pods and not after.pods[k].node_name else k)
where = after if chosen in after.pods else step.before
explanation = explain_pod(records, where, chosen)
bound = step.result.binds.get(chosen)
if bound:
    st.success(f"`{chosen}` was bound to `{bound}` in cycle {cycle}.", icon=":material/check_circle:")
with st.container(border=True, key="why_answer"):
    st.markdown(f"**{explanation.outcome}**" + (f" in cycle {explanation.cycle}" if explanation.cycle else "")
                + (f" · rule `{explanation.rule}`" if explanation.rule else ""))
    st.markdown(explanation.sentence)
    for quirk in explanation.quirks:
        st.caption(f"Volcano quirk: {quirk}")
if explanation.chain:
    st.caption("The decisions that show it, in the order the cycle made them:")
    st.dataframe(record_rows(explanation.chain, step.before), hide_index=True, key="why_chain",
                 column_config={"reasons": st.column_config.TextColumn(width="large")})

pod = where.pods[chosen]
job = f"{pod.namespace}/{pod.group}" if pod.group else ""
if job and job in where.podgroups and not pod.node_name:
    answer = ws.whatif.get((cycle, job))
    st.button("What would have to change for it to be placed?", key="whatif_btn", on_click=_what_if, args=(cycle, job),
              icon=":material/lightbulb:", help="Tries single changes (a queue's quota, room on a node) on a copy and "
              "re-runs the next cycle; only changes that place the job are listed")
    if answer is not None:
        if answer:
            st.dataframe([c.as_dict() for c in answer], hide_index=True, key="whatif_table")
        else:
            st.markdown(f"No single change to a queue quota or a node places `{job}` in the next cycle.")

with st.expander(f"Every record of cycle {cycle} about `{chosen}`, its job or its queue"):
    about = why_pending(rows, step.before, chosen)
    if not about:
        st.markdown(f"No decision in cycle {cycle} mentions `{chosen}`, its job or its queue.")
    for row in about:
        reason = row["reasons"] or "(no reason recorded)"
        st.markdown(f"- **{row['action']} · {row['kind']}** on `{row['subject']}` → `{row['verdict']}`"
                    f"{' by ' + row['plugin'] if row['plugin'] else ''}: {reason}")
