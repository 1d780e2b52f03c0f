"""Jobs: every PodGroup and pod of the current cluster, with its queue, status and node; submit a synthetic
job through a form (queue, replicas, minAvailable, per-pod requests, priority class, preemptable, service
type) or a batch from the seeded generator; delete a job.

Submitted jobs are built by `capacity.authoring.jobform` (the objects a vcjob controller would create, read by the
scenario loader) and added by `capacity.authoring.edit.add_job(s)`, validated as Volcano's webhooks would.
"""

from __future__ import annotations

import streamlit as st

from capacity.analysis.views_paging import search_rows
from capacity.authoring import edit
from capacity.authoring.jobform import SERVICE_TYPES, JobForm, build_job, generated_jobs, leaf_queues
from capacity.core.errors import InputError
from ui.editing import BASE_RESOURCES, draft, form_token, keep_valid, seed_form, show_notice, value
from ui.paging import paged_table
from ui.state import Problem, get_workspace, read_decisions
from ui.text import md_code
from ui.views import job_rows, pending_pods, pod_rows, waiting_jobs, why_waiting
from ui.widgets import scenario_caption, show_findings, show_problem

ws = get_workspace()
FORM_KEYS = ["jf_name", "jf_namespace", "jf_queue", "jf_replicas", "jf_min", "jf_pclass", "jf_preemptable",
             "jf_service", *[f"jf_req_{r}" for r in BASE_RESOURCES]]


def _submit() -> None:
    form = JobForm(
        name=str(value("jf_name")).strip(), namespace=str(value("jf_namespace")).strip() or "default",
        queue=value("jf_queue") or "", replicas=value("jf_replicas", 1), min_available=value("jf_min", 1),
        requests={r: str(value(f"jf_req_{r}")) for r in BASE_RESOURCES}, priority_class=value("jf_pclass") or "",
        preemptable=bool(value("jf_preemptable", True)), service_type=value("jf_service") or "",
    )
    kept = draft("job_form", FORM_KEYS)
    try:
        pg, pods = build_job(form, ws.cluster)
    except InputError as err:
        ws.errors["job_form"] = Problem.from_error(err)
        ws.drafts["job_form"] = kept
        ws.notices.pop("job_form", None)
        return
    ws.edit("job_form", edit.add_job, pg, pods, draft=kept,
            notice=f"Submitted job {md_code(pg.uid)} ({len(pods)} pod{'s' if len(pods) > 1 else ''}) "
                   f"to queue {md_code(pg.queue)}.")


def _generate() -> None:
    try:
        groups = generated_jobs(ws.cluster, value("gen_seed", 0), value("gen_jobs", 5),
                                list(value("gen_queues", []) or []))
    except InputError as err:
        ws.errors["job_generate"] = Problem.from_error(err)
        return
    pods = sum(len(p) for _, p in groups)
    ws.edit("job_generate", edit.add_jobs, groups,
            notice=f"Generated {len(groups)} jobs ({pods} pods) with seed {value('gen_seed', 0)}.")


def _delete() -> None:
    uid = value("jd_choice")
    ws.edit("job_delete", edit.remove_job, uid, notice=f"Deleted job {md_code(uid)} and its pods.")

st.title("Jobs")
scenario_caption(ws)


def _rows() -> tuple[list, list]:
    """Job and pod rows of the current cluster, kept while it is the same state (every widget reruns the page)."""
    state = (id(ws.cluster), ws.revision, ws.cycle, ws.timeline)
    kept = st.session_state.get(ROWS_MEMO)
    if kept is None or kept[0] != state:
        with st.spinner(f"Listing {len(ws.cluster.podgroups):,} jobs and {len(ws.cluster.pods):,} pods…"):
            kept = (state, job_rows(ws.cluster), pod_rows(ws.cluster))
        st.session_state[ROWS_MEMO] = kept
    return kept[1], kept[2]


ROWS_MEMO = "jobs_rows_memo"
jobs, pods = _rows()

queues = sorted({row["queue"] for row in jobs})
queue = st.selectbox("Queue", ["(all)", *queues], key="jobs_queue")
if queue != "(all)":
    jobs = [row for row in jobs if row["queue"] == queue]
    pods = [row for row in pods if row["queue"] == queue]

#: At most this many pods get a line of their own (a gang's pods mostly share their job's answer).
MAX_POD_LINES = 20
#: At most this many waiting jobs are answered on this page (each answer reads the cycle's records).
MAX_JOB_LINES = 20


def _why_lines(whys: list, noun: str) -> None:
    for why in whys:
        if why.sentence:
            st.text(f"{noun} {why.name} ({why.outcome}): {why.sentence}")
        else:
            st.text(f"{noun} {why.name}: added after cycle {ws.cycle}; step a cycle to hear why it waits.")


def _why_waiting() -> None:
    """Each waiting job and pod with the answer model's sentence, readable without opening a table cell."""
    st.subheader("Why are they waiting?")
    job_names = [uid for uid in waiting_jobs(ws.cluster) if queue == "(all)" or
                 ws.cluster.podgroups[uid].queue == queue]
    in_queue = {row["pod"] for row in pods}
    pod_names = [key for key in pending_pods(ws.cluster) if key in in_queue]
    if not job_names and not pod_names:
        st.caption("No job or pod is waiting.")
        return
    if not ws.cycle:
        st.info("No cycle has run yet: the scheduler has not decided anything. Step a cycle on the Simulate page "
                "and come back to read why each job and pod waits.", icon=":material/info:")
        st.page_link("pages/simulate.py", label="Simulate: run cycles", icon=":material/play_circle:")
        return
    problem = read_decisions(ws.history)  # (a cycle runs untraced: its records are built the first time)
    if problem is not None:
        st.error(str(problem), icon=":material/error:")
        return
    st.caption(f"After cycle {ws.cycle}, in the engine's words (the Decisions page has the full chain of checks).")
    many = len(job_names[:MAX_JOB_LINES]) + len(pod_names[:MAX_POD_LINES]) > 10
    with st.container(key="jobs_why", height=460 if many else "content"):  # many lines: scrolled within, not the page
        _why_lines(why_waiting(ws, job_names[:MAX_JOB_LINES], "job", memo=st.session_state), "Job")
        if len(job_names) > MAX_JOB_LINES:
            st.caption(f"… and {len(job_names) - MAX_JOB_LINES:,} more waiting jobs (Decisions answers each; the "
                       "Queue filter above narrows this list).")
        _why_lines(why_waiting(ws, pod_names[:MAX_POD_LINES], "pod", memo=st.session_state), "Pod")
        if len(pod_names) > MAX_POD_LINES:
            st.caption(f"… and {len(pod_names) - MAX_POD_LINES} more waiting pods (Decisions answers each).")


with st.spinner("Asking the engine why jobs and pods wait…"):
    _why_waiting()
st.subheader(f"Jobs ({len(jobs):,})")
job_search = st.text_input("Job contains", key="jobs_search", placeholder="part of a job name")
paged_table(search_rows(jobs, job_search, ("job",)), "jobs_table", noun="jobs")
st.subheader(f"Pods ({len(pods):,})")
p1, p2 = st.columns([1, 2], vertical_alignment="bottom")
only_waiting = p1.toggle("Only pods without a node", key="jobs_only_waiting")
pod_search = p2.text_input("Pod, job or node contains", key="pods_search", placeholder="part of a name")
if only_waiting:
    pods = [row for row in pods if not row["node"]]
paged_table(search_rows(pods, pod_search, ("pod", "job", "node")), "pods_table", noun="pods")


st.divider()
st.header("Submit a job")
st.caption("The job's PodGroup and pods, as Volcano's job controller would create them: minResources = minAvailable "
           "x the pod's requests, pods annotated with their group, preemptable flag and task spec.")
show_notice(ws, "job_form")
show_problem(ws.errors.get("job_form"), "Nothing was submitted; your input is kept below.")
targets = leaf_queues(ws.cluster)
classes = ["", *sorted(ws.cluster.priority_classes)]
defaults = {"jf_name": "", "jf_namespace": "default", "jf_queue": targets[0] if targets else "", "jf_replicas": 1,
            "jf_min": 1, "jf_pclass": "", "jf_preemptable": True, "jf_service": "",
            "jf_req_cpu": "1", "jf_req_memory": "1Gi", "jf_req_nvidia.com/gpu": ""}
seed_form(ws, "job_form", form_token(ws, "job"), defaults)
keep_valid("jf_queue", targets, targets[0] if targets else None)
keep_valid("jf_pclass", classes, "")
with st.form("job_submit_form", border=True):
    c = st.columns(3)
    c[0].text_input("Job name", key="jf_name", placeholder="e.g. train-1")
    c[1].text_input("Namespace", key="jf_namespace")
    c[2].selectbox("Queue", targets, key="jf_queue", help="Open queues that may hold jobs (leaves, with hierarchy on)")
    c = st.columns(3)
    c[0].number_input("Replicas", min_value=1, max_value=10_000, step=1, key="jf_replicas")
    c[1].number_input("minAvailable", min_value=0, max_value=10_000, step=1, key="jf_min",
                      help="The gang size: the job runs only when this many pods fit at once")
    c[2].selectbox("Priority class", classes, key="jf_pclass", format_func=lambda p: p or "(none)")
    c = st.columns(3)
    for col, r in zip(c, BASE_RESOURCES, strict=True):
        col.text_input(f"{r} per pod", key=f"jf_req_{r}", placeholder="none")
    c = st.columns(3)
    c[0].selectbox("Service type", list(SERVICE_TYPES), key="jf_service", format_func=lambda t: t or "(none)")
    c[1].checkbox("Preemptable", key="jf_preemptable", help="volcano.sh/preemptable on the pods")
    st.form_submit_button("Submit job", key="jf_submit", on_click=_submit, type="primary", icon=":material/send:")

st.header("Generate jobs")
st.caption("A batch from the seeded workload generator (`capacity.simulation.workload`): the same seed gives "
           "the same jobs. "
           "Training jobs are gangs (vcjobs), inference jobs Deployments with non-preemptable pods.")
show_notice(ws, "job_generate")
show_problem(ws.errors.get("job_generate"), "Nothing was added.")
with st.form("job_generate_form", border=True):
    c = st.columns([1, 1, 3])
    c[0].number_input("Seed", min_value=0, max_value=2**31 - 1, value=0, step=1, key="gen_seed")
    c[1].number_input("Jobs", min_value=1, max_value=500, value=5, step=1, key="gen_jobs")
    c[2].multiselect("Queues (none: every leaf queue)", targets, key="gen_queues")
    st.form_submit_button("Generate jobs", key="gen_submit", on_click=_generate, icon=":material/casino:")

st.header("Delete a job")
show_notice(ws, "job_delete")
show_problem(ws.errors.get("job_delete"), "Nothing was deleted.")
uids = sorted(ws.cluster.podgroups)
if uids:
    keep_valid("jd_choice", uids, uids[0])
    c = st.columns([3, 1], vertical_alignment="bottom")
    c[0].selectbox("Job to delete", uids, key="jd_choice")
    c[1].button("Delete job", key="jd_delete", on_click=_delete, icon=":material/delete:")
    show_findings(ws.findings_about(f"PodGroup/{value('jd_choice', uids[0])}"))
