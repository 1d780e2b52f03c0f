"""Decisions: "why?" for any pod, job (also a PodGroup that has no pods yet) or queue, answered by the engine's
answer model in plain words with its numbers, the chain of checks in the order Volcano ran them and what
happens next; then the decision trace of one cycle, filterable, and the candidate victims of reclaim and
preempt with each rule's verdict."""

from __future__ import annotations

from collections import Counter

import streamlit as st

from capacity.analysis.explain import victim_table
from capacity.analysis.views_paging import contains, paginate
from capacity.analysis.whatif import what_if
from capacity.core.errors import InputError
from capacity.core.trace import Record
from capacity.framework.session import SessionOptions
from capacity.versions import parse_version, version
from capacity.versions.diff import version_diff
from ui.answer_view import show_answer, show_session_notes
from ui.answers import ROOT_QUEUE, answer_for, cycle_notes
from ui.editing import keep_valid
from ui.paging import page_picker, paged_table
from ui.state import get_workspace, option_names, read_decisions
from ui.text import md_escape
from ui.views import reason_lines, record_index, trace_jsonl
from ui.widgets import scenario_caption

ws = get_workspace()
KIND_LABELS = {"pod": "a pod", "job": "a job (PodGroup)", "queue": "a queue"}
HEADINGS = {"pod": "Why is this pod pending or evicted?", "job": "Why is this job where it is?",
            "queue": "What is this queue doing, and why?"}


def _what_if(cycle: int, job: str) -> None:
    """The changes Volcano would accept that place (or, with no pods yet, admit) the job after `cycle`, each proven
    by re-running it; or that none is needed."""
    ws.whatif[_whatif_key(cycle, job)] = what_if(ws.cluster_after(cycle), job, cycles=1, options=ws.options)


def _whatif_key(cycle: int, job: str) -> tuple[int, str, frozenset[str]]:
    """An answer holds for the release and switches it was asked on: choosing another on the Scheduler page
    must not show it."""
    return cycle, job, ws.options.all_lacking()


def _release_difference(cycle: int, before) -> None:
    """This cycle on Volcano HEAD too: each decision the chosen release makes differently, with the change behind it."""
    own = {n: getattr(ws.options, n) and not ws.options.set_by_release(n) for n in option_names(ws.options)}
    release = version(ws.options.version)
    st.session_state["decisions_release_diff"] = ((ws.scenario, cycle, release.name),
                                                  version_diff(before, 1, release, SessionOptions(**own)))


def _release_offer(cycle: int, before) -> None:
    st.button(f"Would Volcano HEAD decide this cycle differently from {ws.options.version}?",
              key="decisions_release_btn", on_click=_release_difference, args=(cycle, before),
              icon=":material/difference:", help="Runs the cycle again on HEAD and names the change (pull request, "
              "first release) behind each decision that differs")
    got = st.session_state.get("decisions_release_diff")
    if got is None or got[0] != (ws.scenario, cycle, parse_version(ws.options.version)):
        return
    diff = got[1]
    if not diff.differences:
        st.success(f"HEAD decides cycle {cycle} as {ws.options.version} does.", icon=":material/check:")
    for d in diff.differences:
        st.warning(d.sentence(diff.version.label, diff.other_label), icon=":material/difference:")
        for line in d.because():
            st.text(line)


def _what_if_offer(cycle: int, job: str) -> None:
    answer = ws.whatif.get(_whatif_key(cycle, job))
    st.button("What would have to change for it to be placed?", key="whatif_btn", on_click=_what_if, args=(cycle, job),
              icon=":material/lightbulb:", help="Tries changes Volcano accepts (a queue's quota or weight, room on a "
              "node) on a copy and re-runs the next cycles; only changes that place the job (or admit a job that has "
              "no pods yet) are listed")
    if answer is None:
        return
    if answer.changes:
        if answer.refused_by_enqueue:
            st.text(f"PodGroup {job} is Pending: enqueue has not admitted it, so the changes include its admission.")
        st.dataframe([c.as_dict() for c in answer.changes], hide_index=True, key="whatif_table",
                     column_config={"description": st.column_config.TextColumn(width="large")})
        _lines_of("Refused by Volcano's queue admission webhook (not proposed)", answer.refused)
        _lines_of("Only through a compatibility switch's old behaviour (not proposed)", answer.compat_only)
    else:
        st.text(answer.render_text())


def _lines_of(title: str, lines: list[str]) -> None:
    if lines:
        st.markdown(f"**{title}**")
        for line in lines:
            st.text(line)


#: The table's columns; a record's numbers (up to tens of kB of JSON each) are shown only for the selected record.
TABLE_COLUMNS = ("subject", "verdict", "reasons", "action", "kind", "plugin", "queue", "job", "pod")
#: A "why?" picker offers at most this many names at once (a search box narrows the rest).
MAX_OPTIONS = 300
#: At most this many records are listed under an answer; the table below filters and pages the rest.
MAX_RECORD_LINES = 40


def _record_lines(positions: list[int], what: str) -> None:
    with st.expander(f"Every record of cycle {cycle} about {md_escape(what)} ({len(positions):,})"):
        if not positions:
            st.text(f"No decision in cycle {cycle} mentions {what}.")
        for row in index.rows(positions[:MAX_RECORD_LINES], numbers=False):
            reason = md_escape(row["reasons"]) if row["reasons"] else "(no reason recorded)"
            st.markdown(f"- **{md_escape(row['action'])} · {md_escape(row['kind'])}** on {md_escape(row['subject'])} "
                        f"→ {md_escape(row['verdict'])}{' by ' + md_escape(row['plugin']) if row['plugin'] else ''}: "
                        f"{reason}")
        if len(positions) > MAX_RECORD_LINES:
            st.caption(f"… and {len(positions) - MAX_RECORD_LINES:,} more: filter the table of every decision below "
                       "(its search box takes a pod, job or queue name).")


def _record_detail(row: dict, record: Record) -> None:
    """One record in full, below the table: its reasons one per line, never cut."""
    with st.container(border=True, key="decisions_detail"):
        st.markdown(f"**{md_escape(row['action'])} · {md_escape(row['kind'])}** on **{md_escape(row['subject'])}** "
                    f"→ **{md_escape(row['verdict'])}**{' by ' + md_escape(row['plugin']) if row['plugin'] else ''}")
        where = " · ".join(f"{k} {row[k]}" for k in ("queue", "job", "pod") if row[k])
        if where:
            st.text(where)
        st.text("\n".join(reason_lines(record)) or "(no reason recorded)")
        if row["numbers"]:
            with st.expander(f"Numbers the record carries ({len(row['numbers']):,} characters of JSON)"):
                st.json(row["numbers"], expanded=1)


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
# A cycle runs untraced; its records (and those of the cycles before it, which the answers read) are built here.
unread = [s.cycle for s in ws.history[:cycle] if not s.has_records]
if unread:
    with st.spinner(f"Reading the decisions of cycle{'s' if len(unread) > 1 else ''} "
                    f"{', '.join(map(str, unread))}: re-running {'them' if len(unread) > 1 else 'it'} with the "
                    "decision trace on…"):
        problem = read_decisions(ws.history[:cycle])
else:
    problem = read_decisions(ws.history[:cycle])
if problem is not None:
    st.error(str(problem), icon=":material/error:")
    st.stop()
if step.index is None:
    with st.spinner(f"Indexing the {len(step.records):,} decision records of cycle {cycle}…"):
        index = record_index(step)
else:
    index = record_index(step)
after = ws.cluster_after(cycle)
evicted = set(step.result.evicted)

# ---- why? ---------------------------------------------------------------------------------------------------
kind = st.radio("Ask why about", list(KIND_LABELS), format_func=KIND_LABELS.get, horizontal=True,
                key="answer_kind")
st.subheader(HEADINGS[kind])

if kind == "pod":
    subjects = sorted(set(after.pods) | set(step.before.pods))
    # Pods still waiting after this cycle first, then those evicted in it: those are the ones a user asks about.
    subjects.sort(key=lambda k: (0 if k in after.pods and not after.pods[k].node_name else 1 if k in evicted else 2,
                                 k))
    widget, label = "why_pod", "Pod to explain"

    def _label(k: str) -> str:
        if k in evicted:
            return f"{k} (evicted)"
        return f"{k} (pending)" if k in after.pods and not after.pods[k].node_name else k
elif kind == "job":
    jobs = {**step.before.podgroups, **after.podgroups}
    # Jobs not yet admitted first (Pending: enqueue refused them, or never asked), then the rest by name.
    subjects = sorted(jobs, key=lambda u: (0 if jobs[u].phase in ("", "Pending") else 1, u))
    widget, label = "why_job", "Job (PodGroup) to explain"
    pods_of = Counter(f"{p.namespace}/{p.group}" for p in after.pods.values() if p.group)

    def _label(u: str) -> str:
        pods = pods_of.get(u, 0)
        return f"{u} ({jobs[u].phase or 'Pending'}, {pods or 'no'} pod{'' if pods == 1 else 's'})"
else:
    queues = after.queues
    # root first: the top of the tree, answered even when the scenario does not declare it.
    subjects = [ROOT_QUEUE, *sorted(q for q in queues if q != ROOT_QUEUE)] if queues else []
    widget, label = "why_queue", "Queue to explain"
    parents = {q.parent or ROOT_QUEUE for name, q in queues.items() if name != ROOT_QUEUE}

    def _label(q: str) -> str:
        undeclared = " (not declared)" if q not in queues else ""
        return f"{q}{undeclared} (has child queues)" if q in parents else q + undeclared

if not subjects:
    st.text(f"The scenario has no {kind}s.")
    chosen = None
else:
    options = subjects
    if len(subjects) > MAX_OPTIONS:  # thousands of pods: the browser gets a few hundred names, found by typing
        find = st.text_input(f"Find a {kind} (name contains)", key=f"{widget}_find",
                             placeholder=f"{len(subjects):,} {kind}s: type part of a name")
        match = contains(find)
        options = [s for s in subjects if match(s)][:MAX_OPTIONS]
        current = st.session_state.get(widget)
        if current in subjects and current not in options and not find.strip():
            options = [current, *options[:MAX_OPTIONS - 1]]
        st.caption(f"{len(options):,} of {len(subjects):,} {kind}s offered below"
                   + (" (waiting ones first); type to narrow" if len(options) < len(subjects) else ""))
    if not options:
        st.text(f"No {kind} name contains that.")
        chosen = None
    else:
        keep_valid(widget, options)
        chosen = st.selectbox(label, options, key=widget, format_func=_label)

if chosen is not None:
    verbose = kind == "queue" and st.toggle("Every job of the queue, not only the top reasons", key="why_verbose")
    if kind == "pod" and step.result.binds.get(chosen):
        st.success(f"`{chosen.replace('`', '')}` was bound to `{step.result.binds[chosen].replace('`', '')}` "
                   f"in cycle {cycle}.", icon=":material/check_circle:")
    try:
        with st.spinner(f"Reading cycle {cycle}'s records about {chosen}…"):
            answer = answer_for(ws, cycle, kind, chosen, verbose=verbose, memo=st.session_state)
    except InputError as err:
        st.error("The engine cannot answer this:", icon=":material/error:")
        st.text(str(err))
    else:
        show_answer(answer, key="why", verbose=verbose)

    where = after if kind != "pod" or chosen in after.pods else step.before
    if kind == "pod":
        pod = where.pods[chosen]
        job = f"{pod.namespace}/{pod.group}" if pod.group else ""
        if job and job in where.podgroups and not pod.node_name:
            _what_if_offer(cycle, job)
        _record_lines(index.about_pod(step.before, chosen), f"{chosen}, its job or its queue")
    elif kind == "job":
        waiting = [p for p in after.pods.values() if p.group and f"{p.namespace}/{p.group}" == chosen
                   and not p.node_name]
        if waiting or after.podgroups.get(chosen) is not None and after.podgroups[chosen].phase in ("", "Pending"):
            _what_if_offer(cycle, chosen)
        _record_lines(index.about_job(chosen), f"{chosen} or its pods")
    else:
        _record_lines(index.about_queue(chosen), f"queue {chosen} or its jobs")

show_session_notes(cycle_notes(ws, cycle), cycle)
if ws.options.lacking:
    _release_offer(cycle, step.before)

# ---- the whole cycle ----------------------------------------------------------------------------------------
st.subheader(f"Every decision of cycle {cycle}")
f1, f2, f3 = st.columns([2, 2, 3])
actions = f1.multiselect("Action", index.actions(), key="decisions_actions")
queue = f2.selectbox("Queue", ["", *index.queues()], key="decisions_queue", format_func=lambda v: v or "(any)")
search = f3.text_input("Pod, job or subject contains", key="decisions_search", placeholder="e.g. a pod or job name")
shown = index.select(actions=actions, queue=queue, text=search)
st.caption(f"{len(shown):,} of {len(index.records):,} records of cycle {cycle} · one page at a time; select a row "
           "to read it whole below (the first row of the page otherwise)")
page = paginate(shown, page_picker(len(shown), "decisions_table"))
# Subject, verdict and reason first: the reason is what is read, never the cut-off last column. A record's numbers
# (JSON of its details, the costly part of a row) are written only for the one shown whole below.
full = index.rows(page.rows, numbers=False)
rows = [{k: r[k] for k in TABLE_COLUMNS} for r in full]
event = st.dataframe(
    rows, hide_index=True, key="decisions_table", on_select="rerun", selection_mode="single-row",
    column_config={"subject": st.column_config.TextColumn(width="medium"),
                   "verdict": st.column_config.TextColumn(width="medium"),
                   "reasons": st.column_config.TextColumn(width="large"),
                   "pod": st.column_config.TextColumn(width="medium"),
                   "job": st.column_config.TextColumn(width="medium")})
st.caption(page.caption("records"))
picked = list(event.selection.rows) if event is not None and hasattr(event, "selection") else []
if rows:
    at = picked[0] if picked and picked[0] < len(full) else 0
    _record_detail(index.rows([page.rows[at]])[0], index.records[page.rows[at]])

st.download_button(
    "Download all decisions as JSON Lines", data=lambda: trace_jsonl(ws.history),
    file_name=f"{ws.scenario}-trace.jsonl", mime="application/jsonl", key="download_trace",
    icon=":material/download:", help="Every record of every cycle run; written when you click.",
)

st.subheader("Victims of reclaim and preempt")
victims = victim_table(step.records, cycle)
if victims:
    st.caption("Every candidate a reclaim or preempt victim decision looked at, with each plugin's verdict and rule "
               "per tier, the tier that decided, whether it ended in the victim list and whether it was evicted.")
    paged_table(victims, "victims_table", noun="candidates")
else:
    st.markdown(f"No reclaim or preempt victim decision in cycle {cycle} (actions: "
                f"{md_escape(', '.join(step.before.conf.actions))}).")
