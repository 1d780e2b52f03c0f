"""Simulate: step, run N cycles or run until something happens; rewind (asking first when it undoes edits),
undo, and branch from a past cycle into a second timeline; see what each cycle decided.

The rules (which edits a rewind undoes, when a "run until" condition is met) are the engine's
(`capacity.simulation.timeline`, through the Workspace); this page only lays out widgets. Names from input are shown
as text (tables, st.text), never inside Markdown."""

from __future__ import annotations

from dataclasses import replace

# st.dataframe imports pandas the first time a table is drawn (~0.5 s): imported when this page opens, before a
# step, so the first step's page does not pay for it.
import pandas  # noqa: F401
import streamlit as st

from capacity.analysis.charts import share_timeline_figure
from capacity.analysis.views_paging import counts_by, top_queues
from capacity.core.errors import InputError
from capacity.simulation.timeline import UNTIL_KINDS, UNTIL_TARGET, Until
from ui.editing import keep_valid
from ui.paging import paged_table
from ui.state import Problem, get_workspace, option_names
from ui.views import cycle_summary, history_rows
from ui.widgets import scenario_caption, show_problem

ws = get_workspace()


def _step() -> None:
    with st.spinner(f"Running cycle {ws.cycle + 1}…"):
        ws.step()
    st.session_state["shown_cycle"] = ws.cycle


def _run() -> None:
    n = int(st.session_state.get("run_n", 5))
    with st.spinner(f"Running {n} cycles from cycle {ws.cycle + 1}…"):
        ws.run(n)
    st.session_state["shown_cycle"] = ws.cycle


def _rewind() -> None:
    """Rewind now, or first ask when the rewind would undo edits (the page shows them and asks)."""
    target = int(st.session_state.get("rewind_to", 0))
    if ws.edits_dropped_by_rewind(target):
        st.session_state["rewind_pending"] = target
        return
    _rewind_to(target)


def _rewind_to(target: int) -> None:
    st.session_state.pop("rewind_pending", None)
    ws.rewind(target)
    st.session_state["shown_cycle"] = ws.cycle
    where = "the start" if target == 0 else f"after cycle {target}"
    st.session_state["sim_message"] = (f"Rewound to {where}. Undo brings the dropped cycles and edits back.", "")


def _cancel_rewind() -> None:
    st.session_state.pop("rewind_pending", None)


def _undo() -> None:
    done = ws.undo()
    st.session_state.pop("rewind_pending", None)
    st.session_state["shown_cycle"] = ws.cycle
    # what was undone names queues and jobs from input: shown as text under a fixed headline
    st.session_state["sim_message"] = ("Undone.", done[:1].upper() + done[1:] + ".") if done else ("", "")


def _run_until() -> None:
    ss = st.session_state
    kind = ss.get("until_kind", "eviction")
    need = UNTIL_TARGET.get(kind)
    until = Until(kind, str(ss.get(f"until_{need}", "") or "") if need else "")
    start = ws.cycle
    try:
        with st.spinner(f"Running until {until.describe()}…"):
            steps, why = ws.run_until(until, int(ss.get("until_max", 20)))
    except InputError as err:
        ws.errors["run_until"] = Problem.from_error(err)
        return
    ws.errors.pop("run_until", None)
    ss["shown_cycle"] = ws.cycle
    last = steps[-1].result if steps else None
    ss["until_result"] = {"until": until.describe(), "why": why, "ran": len(steps), "from": start, "cycle": ws.cycle,
                          "binds": len(last.binds) if last else 0, "evicted": len(last.evicted) if last else 0,
                          "all_binds": sum(len(s.result.binds) for s in steps),
                          "all_evicted": sum(len(s.result.evicted) for s in steps)}


def _branch() -> None:
    name = ws.branch(int(st.session_state.get("branch_at", ws.cycle)))
    st.session_state["shown_cycle"] = ws.cycle
    st.session_state["sim_message"] = (f"Now on timeline: {name}. The previous timeline is kept.", "") if name \
        else ("", "")


def _switch() -> None:
    ws.switch_timeline(st.session_state["timeline_pick"])
    st.session_state["shown_cycle"] = ws.cycle


def _set_option(name: str) -> None:
    ws.options = replace(ws.options, **{name: bool(st.session_state[f"option_{name}"])})


#: Up to this many binds are listed one by one ("bound pod → node"); more are summarised per queue.
MAX_BIND_LINES = 50
#: Lines the history chart draws unless the user asks for more.
HISTORY_LINES = 10


def _binds(binds: list[dict]) -> None:
    """The cycle's binds: each one when they are few; else how many per queue, and one queue's binds on asking."""
    if not binds:
        return
    st.markdown("**Binds**")
    if len(binds) <= MAX_BIND_LINES:
        st.dataframe(binds, hide_index=True, key="binds_table")
        st.text("\n".join(f"bound {r['pod']} → {r['node']}" for r in binds))
        return
    per_queue = counts_by(binds, "queue")
    st.caption(f"{len(binds):,} binds in {len(per_queue):,} queues: how many per queue; choose a queue to list its "
               "binds.")
    paged_table(per_queue, "binds_by_queue", noun="queues")
    queues = [r["queue"] for r in per_queue]
    keep_valid("binds_queue", ["", *queues], "")
    chosen = st.selectbox("List the binds of queue", ["", *queues], key="binds_queue",
                          format_func=lambda q: q or "(choose a queue)")
    if chosen:
        paged_table([r for r in binds if r["queue"] == chosen], "binds_table", noun="binds")


def _history_chart() -> None:
    """Share per queue at the end of each cycle: the few that went highest, or those searched for. Drawn from the
    second cycle on: a history of one cycle is one dot per queue, and the chart is the costliest thing the browser
    draws after a step."""
    history = ws.share_history()
    if len(history) < 2:
        st.caption("The share history is drawn from the second cycle on. Each queue's share after this cycle is on "
                   "the Queues page.")
        return
    names = {q for _, numbers in history for q in numbers}
    if len(names) <= HISTORY_LINES:
        st.plotly_chart(share_timeline_figure(history), key="share_timeline", width="stretch")
        return
    h1, h2 = st.columns([1, 2])
    n = int(h1.number_input("Queues drawn", min_value=1, max_value=min(50, len(names)), value=HISTORY_LINES,
                            key="history_top", help="The queues whose share went highest"))
    query = h2.text_input("Queue name contains", key="history_search", placeholder=f"any of {len(names)} queues")
    wanted = top_queues(history, n, query)
    st.caption(f"{len(wanted)} of {len(names)} queues drawn: the highest share over these cycles"
               f"{' among the names matching the search' if query.strip() else ''}.")
    st.plotly_chart(share_timeline_figure(history, wanted), key="share_timeline", width="stretch")


st.title("Simulate")
scenario_caption(ws)

c1, c2, c3 = st.columns([1, 1.4, 1.4])
with c1:
    st.button("Step one cycle", key="step_btn", type="primary", on_click=_step, icon=":material/skip_next:")
    undo = ws.undo_label()
    st.button("Undo", key="undo_btn", on_click=_undo, disabled=not undo, icon=":material/history:",
              help="Undo the last edit or rewind (what it undoes is shown below the button)." if undo
              else "Nothing to undo: edits and rewinds can be undone.")
    if undo:
        st.text(undo[:1].upper() + undo[1:])
with c2:
    st.number_input("Cycles", min_value=1, max_value=200, value=5, key="run_n")
    st.button("Run N cycles", key="run_btn", on_click=_run, icon=":material/fast_forward:")
with c3:
    targets = list(range(ws.cycle))
    st.selectbox("Rewind to after cycle", targets or [0], key="rewind_to", disabled=not targets,
                 index=len(targets) - 1 if targets else 0,
                 format_func=lambda c: "the start (before cycle 1)" if c == 0 else f"cycle {c}")
    st.button("Rewind", key="rewind_btn", on_click=_rewind, disabled=not targets, icon=":material/undo:")
pending = st.session_state.get("rewind_pending")
if pending is not None and ws.edits_dropped_by_rewind(pending):
    dropped = ws.edits_dropped_by_rewind(pending)
    with st.container(border=True, key="rewind_confirm"):
        where = "the start" if pending == 0 else f"after cycle {pending}"
        st.warning(f"Rewinding to {where} also undoes {len(dropped)} edit(s) made later. "
                   "Undo brings them back.", icon=":material/warning:")
        st.dataframe([{"made after cycle": e.at_cycle, "edit": e.label} for e in dropped], hide_index=True,
                     key="rewind_dropped")
        b1, b2 = st.columns(2)
        b1.button("Rewind and undo these edits", key="rewind_confirm_btn", type="primary", on_click=_rewind_to,
                  args=(pending,))
        b2.button("Cancel", key="rewind_cancel_btn", on_click=_cancel_rewind)
message, detail = st.session_state.pop("sim_message", ("", ""))
if message:
    st.success(message, icon=":material/check_circle:")
if detail:
    st.text(detail)
show_problem(ws.errors.get("simulate"), "The cluster stays as it was before that cycle.")

with st.container(border=True, key="run_until_box"):
    st.markdown("**Run until**")
    u1, u2, u3, u4 = st.columns([1.8, 1.5, 0.8, 0.7])
    kind = u1.selectbox("Condition", list(UNTIL_KINDS), key="until_kind", format_func=UNTIL_KINDS.get)
    need = UNTIL_TARGET.get(kind)
    if need == "queue":
        u2.selectbox("Queue", sorted(ws.cluster.queues), key="until_queue")
    elif need == "job":
        u2.selectbox("Job", sorted(ws.cluster.podgroups), key="until_job")
    u3.number_input("At most (cycles)", min_value=1, max_value=500, value=20, key="until_max")
    u4.button("Run until", key="until_btn", on_click=_run_until, icon=":material/play_arrow:")
    show_problem(ws.errors.get("run_until"))
    got = st.session_state.get("until_result")
    if got:
        if got["why"]:
            st.success(f"Stopped at cycle {got['cycle']} after {got['ran']} cycle(s): the condition was met.",
                       icon=":material/flag:")
            st.text(f"{got['until']}: {got['why']}")
        else:
            st.info(f"Ran {got['ran']} cycle(s), up to cycle {got['cycle']}; the condition was not met.",
                    icon=":material/info:")
            st.text(got["until"])
        if got["ran"]:
            st.text(f"Cycle {got['cycle']}: {got['binds']} bind(s), {got['evicted']} eviction(s). "
                    f"Cycles {got['from'] + 1}-{got['cycle']} together: {got['all_binds']} bind(s), "
                    f"{got['all_evicted']} eviction(s). Its decisions are below; the reasons are in Decisions.")
        st.page_link("pages/decisions.py", label=f"See why in Decisions (cycle {got['cycle']})",
                     icon=":material/fact_check:")

with st.expander(f"Timelines and edits · on {ws.timeline}", expanded=bool(ws.timelines or ws.edits)):
    t1, t2 = st.columns(2)
    with t1:
        names = ws.timeline_names()
        st.session_state["timeline_pick"] = ws.timeline
        st.selectbox("Timeline", names, key="timeline_pick", on_change=_switch, disabled=len(names) < 2,
                     help="Switching keeps the other timeline as it is.")
    with t2:
        st.selectbox("Branch from", list(range(ws.cycle + 1)), key="branch_at", index=ws.cycle,
                     format_func=lambda c: "the start (before cycle 1)" if c == 0 else f"after cycle {c}")
        st.button("Branch", key="branch_btn", on_click=_branch, icon=":material/call_split:",
                  help="Keep this timeline and continue on a copy from that cycle, to try an edit.")
    if ws.edits:
        st.dataframe([{"made after cycle": e.at_cycle, "edit": e.label} for e in ws.edits], hide_index=True,
                     key="edits_table")
    else:
        st.text("No edits on this timeline yet.")

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
_binds(summary.binds)
for title, rows, key in [("Evictions", summary.evicted, "evicted_table"),
                         ("Pipelined", summary.pipelined, "pipelined_table"),
                         ("PodGroup phase changes", summary.phases, "phases_table")]:
    if rows:
        st.markdown(f"**{title}**")
        paged_table(rows, key, noun=title.lower())

st.subheader("History")
_history_chart()
paged_table(history_rows(ws.history)[::-1], "history_table", noun="cycles")
