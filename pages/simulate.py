"""Simulate: step the scheduler one cycle, run several, rewind; see what each cycle decided."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from capacity.charts import share_timeline_figure
from ui.state import get_workspace, option_names
from ui.views import cycle_summary, history_rows
from ui.widgets import scenario_caption, show_problem

ws = get_workspace()


def _step() -> None:
    ws.step()
    st.session_state["shown_cycle"] = ws.cycle


def _run() -> None:
    ws.run(int(st.session_state.get("run_n", 5)))
    st.session_state["shown_cycle"] = ws.cycle


def _rewind() -> None:
    ws.rewind(int(st.session_state.get("rewind_to", 0)))
    st.session_state["shown_cycle"] = ws.cycle


def _set_option(name: str) -> None:
    ws.options = replace(ws.options, **{name: bool(st.session_state[f"option_{name}"])})


st.title("Simulate")
scenario_caption(ws)

c1, c2, c3 = st.columns([1, 1.4, 1.4])
with c1:
    st.button("Step one cycle", key="step_btn", type="primary", on_click=_step, icon=":material/skip_next:")
with c2:
    st.number_input("Cycles", min_value=1, max_value=200, value=5, key="run_n")
    st.button("Run N cycles", key="run_btn", on_click=_run, icon=":material/fast_forward:")
with c3:
    targets = list(range(ws.cycle))
    st.selectbox("Rewind to after cycle", targets or [0], key="rewind_to", disabled=not targets,
                 index=len(targets) - 1 if targets else 0,
                 format_func=lambda c: "the start (before cycle 1)" if c == 0 else f"cycle {c}")
    st.button("Rewind", key="rewind_btn", on_click=_rewind, disabled=not targets, icon=":material/undo:")
show_problem(ws.errors.get("simulate"), "The cluster stays as it was before that cycle.")

with st.expander("Compatibility switches (older Volcano behaviour; all off = Volcano HEAD)"):
    for name in option_names(ws.options):
        st.toggle(name, value=getattr(ws.options, name), key=f"option_{name}", on_change=_set_option, args=(name,))

if not ws.history:
    st.info("No cycle has run yet on this scenario. **Step one cycle** runs the configured actions "
            f"({', '.join(ws.cluster.conf.actions)}) once.", icon=":material/info:")
    st.stop()

cycles = [s.cycle for s in ws.history]
shown = st.session_state.get("shown_cycle", ws.cycle)
if shown not in cycles:
    shown = ws.cycle
st.session_state["shown_cycle"] = shown
shown = st.selectbox("Show cycle", cycles, key="shown_cycle")
step = ws.step_at(shown)
summary = cycle_summary(step)

st.subheader(f"Cycle {shown}")
m = st.columns(4)
m[0].metric("Binds", len(summary.binds))
m[1].metric("Evictions", len(summary.evicted))
m[2].metric("Pipelined jobs", len(summary.pipelined))
m[3].metric("Phase changes", len(summary.phases))
if summary.empty:
    st.markdown("Nothing changed in this cycle.")
for title, rows, key in [("Binds", summary.binds, "binds_table"), ("Evictions", summary.evicted, "evicted_table"),
                         ("Pipelined", summary.pipelined, "pipelined_table"),
                         ("PodGroup phase changes", summary.phases, "phases_table")]:
    if rows:
        st.markdown(f"**{title}**")
        st.dataframe(rows, hide_index=True, key=key)
if summary.binds:
    st.markdown("\n".join(f"- bound `{r['pod']}` → `{r['node']}`" for r in summary.binds))

st.subheader("History")
st.plotly_chart(share_timeline_figure(ws.share_history()), key="share_timeline", width="stretch")
st.dataframe(history_rows(ws.history), hide_index=True, key="history_table")
