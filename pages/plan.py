"""Plan: which queue settings meet the goals? Set up a search on the current scenario, run it here (one replay
per candidate, `capacity.plan`), read the table, the wait-vs-setting plot, the Pareto front, and apply the chosen
candidate to the workspace. What the choices mean is `capacity.plan.workspace`'s; this page lays out widgets.
Names from input are shown as text (tables, code blocks, plot text through `safe`), never inside Markdown."""

from __future__ import annotations

import time

import streamlit as st

from capacity.core.errors import InputError
from capacity.plan.backends import InlineBackend
from capacity.plan.charts import pareto_figure, wait_vs_quota
from capacity.plan.report import best, meets, queue_yaml, values_of
from capacity.plan.run import prepare, run_plan
from capacity.plan.spec import FIELDS, STRATEGIES, parse_spec
from capacity.plan.workspace import apply_candidate, leaf_queues, page_spec, queue_value, resources
from ui.state import Problem, get_workspace
from ui.widgets import scenario_caption, show_problem

ws = get_workspace()
ss = st.session_state
NONE = "(none)"

st.title("Plan")
scenario_caption(ws)
st.markdown("Search queue settings against a workload and goals: every candidate is checked by Volcano's queue "
            "admission webhook, then replayed over time. The best candidate can be applied to the workspace.")

queues = sorted(q for q in ws.cluster.queues if q != "root")
leaves = leaf_queues(ws.cluster)
names = resources(ws.cluster)
if not leaves:
    st.info("The scenario has no leaf queue to plan for.", icon=":material/info:")
    st.stop()
first = "prod-serving" if "prod-serving" in queues else leaves[0]
parent = ws.cluster.queues[first].parent
main_resource = "nvidia.com/gpu" if "nvidia.com/gpu" in names else "cpu"


def _setting(i: int, default_queue: str, default_values: str, optional: bool) -> dict | None:
    c = st.columns([1.4, 1, 1.2, 1.4])
    options = [NONE, *queues] if optional else queues
    queue = c[0].selectbox(f"Queue {i}", options, index=options.index(default_queue), key=f"plan_q{i}")
    field = c[1].selectbox(f"Field {i}", FIELDS, index=FIELDS.index("guarantee"), key=f"plan_f{i}")
    resource = c[2].selectbox(f"Resource {i}", names, index=names.index(main_resource), key=f"plan_r{i}",
                              disabled=field == "weight")
    values = c[3].text_input(f"Values {i} (comma-separated)", value=default_values, key=f"plan_v{i}")
    if queue == NONE:
        return None
    out = {"queue": queue, "field": field, "values": [v.strip() for v in values.split(",") if v.strip()]}
    if field != "weight":
        out["resource"] = resource
    return out


with st.container(border=True, key="plan_setup"):
    st.markdown("**Settings to vary**")
    settings = [s for s in (_setting(1, first, "0, 2, 4", False),
                            _setting(2, parent if parent in queues else NONE, "2, 4", True)) if s]
    st.markdown("**Workload** (seeded synthetic jobs added to the scenario's own)")
    w = st.columns(5)
    seed = w[0].number_input("Seed", min_value=0, max_value=2**31, value=1, key="plan_seed")
    jobs = w[1].number_input("Jobs", min_value=1, max_value=2000, value=30, key="plan_jobs")
    rate = w[2].number_input("Arrivals per hour", min_value=1.0, max_value=3600.0, value=36.0, key="plan_rate")
    median = w[3].number_input("Median run (s)", min_value=10, max_value=86400, value=900, key="plan_median")
    target = w[4].multiselect("Queues with jobs", leaves, default=leaves, key="plan_queues")
    st.markdown("**Goals**")
    g = st.columns(4)
    goal_options = target or leaves
    goal_queue = g[0].selectbox("Queue", goal_options, key="plan_goal_queue",
                                index=goal_options.index(first) if first in goal_options else 0)
    wait = g[1].number_input("p95 wait at most (s)", min_value=0, value=600, key="plan_goal_wait")
    util = g[2].number_input(f"Utilisation of {main_resource} at least", min_value=0.0, max_value=1.0, value=0.3,
                             key="plan_goal_util")
    evictions = g[3].number_input("Evictions at most", min_value=0, value=100, key="plan_goal_evictions")
    s = st.columns(3)
    strategy = s[0].selectbox("Search", STRATEGIES, key="plan_strategy")
    count = s[1].number_input("Candidates (random, optuna)", min_value=1, max_value=500, value=6,
                              key="plan_candidates")
    search_seed = s[2].number_input("Search seed", min_value=0, value=0, key="plan_search_seed")
    st.button("Run plan", key="plan_run_btn", type="primary", icon=":material/play_arrow:",
              on_click=lambda: ss.update(plan_requested=True))
    progress_slot = st.empty()

if ss.pop("plan_requested", False):
    raw = page_spec(ws.cluster, settings,
                    {"seed": int(seed), "jobs": int(jobs), "rate": float(rate) / 3600, "duration_median": int(median),
                     "queues": dict.fromkeys(target or leaves, 1)},
                    [{"metric": "wait_p95", "queue": goal_queue, "at_most": int(wait)},
                     {"metric": "utilisation", "resource": main_resource, "at_least": float(util)},
                     {"metric": "evictions", "at_most": int(evictions)}],
                    {"strategy": strategy, "seed": int(search_seed), "candidates": int(count), "batch": 2},
                    volcano=ws.options.version)  # the chosen release's webhook and scheduler judge candidates
    try:
        spec = parse_spec(raw, source="plan")
        prepared = prepare(spec)
    except InputError as err:
        ws.errors["plan"] = Problem.from_error(err)
        ss.pop("plan_result", None)
    else:
        ws.errors.pop("plan", None)
        bar = progress_slot.progress(0.0, text="starting")
        started = time.perf_counter()

        def _progress(done: int, total: int, _row: dict | None) -> None:
            elapsed = time.perf_counter() - started
            eta = elapsed / done * (total - done) if done else 0.0
            bar.progress(min(1.0, done / max(total, 1)), text=f"{done} of {total} candidates · ETA {eta:.0f} s")

        ss["plan_result"] = run_plan(spec, InlineBackend(), progress=_progress, prepared_run=prepared)
        progress_slot.empty()
show_problem(ws.errors.get("plan"))

result = ss.get("plan_result")
if result is None:
    st.info("Set up the search above and press **Run plan**: each candidate is one replay of the workload.",
            icon=":material/info:")
    st.stop()

spec = result.spec
params = [p.name for p in spec.params]
ok = [r for r in result.rows if r["status"] == "ok"]
st.subheader("Results")
m = st.columns(4)
m[0].metric("Candidates", len(result.rows))
m[1].metric("Replayed", len(ok))
m[2].metric("Refused by the webhook", sum(1 for r in result.rows if r["status"] == "rejected"))
m[3].metric("Meeting every goal", sum(1 for r in result.rows if meets(spec, r)))
goal_cols = [gl.column for gl in spec.goals]
table = [{"#": r["id"], "status": r["status"], **{p: r[p] for p in params},
          **{c: r.get(c) for c in goal_cols}, "meets goals": meets(spec, r), "why not run": r.get("error") or ""}
         for r in result.rows]
st.dataframe(table, hide_index=True, key="plan_table")
st.caption("Goals: " + "; ".join(str(gl) for gl in spec.goals))

setting = st.selectbox("Plot against", params, key="plan_plot_setting") if len(params) > 1 else params[0]
shown_queues = list(result.base.queues_with_jobs)
st.plotly_chart(wait_vs_quota(spec, result.rows, setting, shown_queues), key="plan_wait_plot", width="stretch")
st.caption("Solid: p95 wait; dotted: p50 wait; each point the median over the other settings' values.")
st.plotly_chart(pareto_figure(spec, result.rows), key="plan_pareto_plot", width="stretch")

st.subheader("Apply a candidate")
chosen = best(spec, result.rows)
candidates = [r["id"] for r in ok]
if not candidates:
    st.info("No candidate was replayed: nothing to apply.", icon=":material/info:")
    st.stop()
default = candidates.index(chosen["id"]) if chosen is not None else 0
if chosen is None:
    st.warning("No candidate meets every goal; the list starts with the first replayed one.", icon=":material/warning:")
else:
    st.text(f"Best: candidate #{chosen['id']} (meets every goal; prefers {spec.prefer[0]} {spec.prefer[1]}).")
pick = st.selectbox("Candidate", candidates, index=default, key="plan_pick", format_func=lambda i: f"#{i}")
row = next(r for r in ok if r["id"] == pick)
st.code(queue_yaml(spec, result.base, row), language="yaml")


def _apply() -> None:
    values = values_of(spec.params, row)
    ws.edit("plan_apply", apply_candidate, spec.params, values,
            notice=f"Applied plan candidate #{pick}: " + ", ".join(f"{k} = {v}" for k, v in values.items()))


st.button("Apply to the workspace", key="plan_apply_btn", on_click=_apply, icon=":material/done_all:")
show_problem(ws.errors.get("plan_apply"))
if ws.notices.get("plan_apply"):
    st.success("Applied to the workspace.", icon=":material/check_circle:")
    st.text(ws.notices["plan_apply"])
st.markdown("**The workspace's queues now**")
st.text("\n".join(f"{p.name} = {queue_value(ws.cluster, p) or 'unset'}" for p in spec.params))
