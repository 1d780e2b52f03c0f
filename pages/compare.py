"""Compare: the current scenario under two configurations (another scheduler conf, another Volcano release, or a
compatibility switch on and off), side by side (two releases: each decision that differs with the change named):
binds, evictions, pipelined jobs, PodGroup phases and enqueue verdicts (with each
side's answer where they differ), queue shares and treemaps."""

from __future__ import annotations

from dataclasses import fields

import streamlit as st

from capacity.analysis.charts import TREEMAP_METRICS, resource_names, treemap
from capacity.analysis.compare import MAX_JOB_ANSWERS, Comparison, Config, Side, compare
from capacity.core.errors import InputError
from capacity.framework.session import SessionOptions
from capacity.versions import BY_ID, HEAD, RELEASES, parse_version, version
from capacity.versions.cli import session_kwargs
from capacity.versions.diff import VersionDiff, compare_releases
from ui.state import get_workspace
from ui.text import md_escape
from ui.views import treemap_levels
from ui.widgets import scenario_caption

ws = get_workspace()
RESULT_KEY = "compare_result"
SWITCHES = [f.name for f in fields(SessionOptions) if f.type in ("bool", bool)]
MAX_DIFFERING_JOBS = MAX_JOB_ANSWERS  # the jobs whose answers the engine reads


def _config(side: str) -> Config:
    release = version(str(st.session_state.get(f"cmp_{side}_version") or HEAD))
    options = SessionOptions(**{name: bool(st.session_state.get(f"cmp_{side}_{name}")) for name in SWITCHES},
                             **session_kwargs(release))
    conf = str(st.session_state.get(f"cmp_conf_{side}") or "")
    return Config(str(st.session_state.get(f"cmp_label_{side}") or side.upper()), options, conf or None)


def _run() -> None:
    try:
        result = compare(ws.cluster, _config("a"), _config("b"), int(st.session_state.get("cmp_cycles", 1)))
    except InputError as err:
        st.session_state[RESULT_KEY] = {"error": str(err)}
        return
    releases = None
    a, b = result.a.config, result.b.config
    if a.options.version != b.options.version:
        ticked = [{n: bool(st.session_state.get(f"cmp_{side}_{n}")) for n in SWITCHES} for side in ("a", "b")]
        if (a.conf_text, b.conf_text) == (None, None) and ticked[0] == ticked[1]:
            releases = compare_releases(ws.cluster, result.cycles, version(a.options.version),
                                        version(b.options.version), SessionOptions(**ticked[0]))
        else:
            releases = "other"
    st.session_state[RESULT_KEY] = {"scenario": ws.scenario, "cycle": ws.cycle, "result": result,
                                    "releases": releases}


def _side_inputs(side: str, column) -> None:
    with column:
        st.text_input("Label", value=f"Configuration {side.upper()}", key=f"cmp_label_{side}")
        if f"cmp_{side}_version" not in st.session_state:  # the release the Scheduler page runs, at first
            st.session_state[f"cmp_{side}_version"] = parse_version(ws.options.version)
        st.selectbox("Volcano version", RELEASES, key=f"cmp_{side}_version",
                     format_func=lambda n: "HEAD" if n == HEAD else f"v{n}")
        for name in SWITCHES:
            st.checkbox(name, key=f"cmp_{side}_{name}")
        st.text_area("volcano-scheduler.conf (empty: the scenario's own)", key=f"cmp_conf_{side}", height=140,
                     placeholder=ws.cluster.conf.text or "actions: \"enqueue, allocate, backfill\"")


def _side_outcome(side: Side, metric: str, resource: str, key: str) -> None:
    st.subheader(md_escape(side.config.label))
    on = [name for name in SWITCHES if getattr(side.config.options, name)]
    st.caption(f"Volcano {side.config.options.version} · " +
               ("switches: " + ", ".join(on) if on else "no compatibility switch") + " · " +
               ("own conf" if side.config.conf_text else "the scenario's conf"))
    if side.error:
        st.error(side.error, icon=":material/error:")
    st.metric("Binds", len(side.binds))
    st.metric("Evictions", len(side.evicted))
    if side.queues_next:
        tm = treemap(side.queues_next, metric, resource)
        levels = treemap_levels(tm.figure, len(side.queues_next))  # as the Treemaps page: opened by clicking
        if levels:
            st.caption(levels)
        st.plotly_chart(tm.figure, key=f"cmp_treemap_{key}", width="stretch")
    else:
        st.info("No queue numbers (no queue plugin, or proportion with no jobs).", icon=":material/info:")


def _job_verdicts(rows: list[dict], a: Side, b: Side) -> None:
    """Per PodGroup: the phase each side left it in and enqueue's verdict; where they differ, both answers in full."""
    la, lb = a.config.label, b.config.label
    if la == lb:
        la, lb = f"{la} (A)", f"{lb} (B)"
    st.markdown(f"**PodGroup phases and enqueue verdicts** · {sum(1 for r in rows if not r['same'])} of {len(rows)} "
                "differ")
    if not rows:
        return
    st.dataframe([{"job": r["job"], f"{la} phase": r["a phase"], f"{lb} phase": r["b phase"],
                   f"{la} enqueue": r["a enqueue"], f"{lb} enqueue": r["b enqueue"], "same": r["same"]} for r in rows],
                 hide_index=True, key="cmp_jobs")
    differing = [r for r in rows if not r["same"]]
    for i, row in enumerate(differing[:MAX_DIFFERING_JOBS]):
        with st.container(border=True, key=f"cmp_job_{i}"):
            st.text(f"Job {row['job']}")
            for column, name, label in zip(st.columns(2), ("a", "b"), (la, lb), strict=True):
                with column:
                    st.text(f"{label}: {row[f'{name} phase'] or '(gone)'} · enqueue {row[f'{name} enqueue']}")
                    side = a if name == "a" else b
                    missing = "(no answer: no cycle ran on this side)" if side.run is None else \
                        f"(not read: only the first {MAX_JOB_ANSWERS} jobs that differ are answered)"
                    st.text(row[f"{name} why"] or missing)
    if len(differing) > MAX_DIFFERING_JOBS:
        st.caption(f"… and {len(differing) - MAX_DIFFERING_JOBS} more jobs that differ (all in the table above).")


def _releases(diff: VersionDiff | str | None) -> None:
    """Two releases on the same dump: each decision that differs, with the change (PR, release) behind it."""
    if diff is None:
        return
    st.markdown("**Decisions that differ between the two Volcano releases**")
    if isinstance(diff, str):
        st.caption("The sides differ in configuration or switches too: give both the same to see which Volcano "
                   "change makes each decision differ.")
        return
    label, other = diff.version.label, diff.other_label
    if not diff.differences:
        st.success(f"{label} and {other} decide the same on this scenario.", icon=":material/check:")
        return
    st.dataframe([{"decision": d.sentence(label, other).split(":", 1)[0], label: d.chosen, other: d.head,
                   "because of": ", ".join(f"PR #{BY_ID[i].pr} ({BY_ID[i].release})" for i in d.switches)}
                  for d in diff.differences], hide_index=True, key="cmp_releases")
    for i, d in enumerate(diff.differences):
        with st.container(border=True, key=f"cmp_release_diff_{i}"):
            st.warning(d.sentence(label, other), icon=":material/difference:")
            for line in d.because():
                st.text(line)


def _table(title: str, rows: list[dict], key: str, a: str, b: str) -> None:
    st.markdown(f"**{title}** · {sum(1 for r in rows if not r['same'])} of {len(rows)} differ")
    if rows:
        shown = [{(a if k == "a" else b if k == "b" else k): v for k, v in r.items()} for r in rows]
        st.dataframe(shown, hide_index=True, key=key)


st.title("Compare")
scenario_caption(ws)
st.markdown("Run the current scenario under two configurations, each on its own copy, and see the outcomes side "
            "by side. Tick a compatibility switch on one side only to see what it changes, or paste another "
            "`volcano-scheduler.conf` (e.g. proportion instead of capacity). To see which jobs only a queue "
            "plugin's enqueue check keeps out, give one side a conf with `enableJobEnqueued: false` under that plugin.")
left, right = st.columns(2)
_side_inputs("a", left)
_side_inputs("b", right)
st.number_input("Cycles", min_value=1, max_value=50, value=1, key="cmp_cycles")
st.button("Compare", key="compare_btn", type="primary", on_click=_run, icon=":material/compare_arrows:")

stored = st.session_state.get(RESULT_KEY)
if not stored:
    st.info("Choose two configurations and press Compare.", icon=":material/info:")
    st.stop()
if "error" in stored:
    st.error(stored["error"], icon=":material/error:")
    st.stop()
cmp: Comparison = stored["result"]
if (stored["scenario"], stored["cycle"]) != (ws.scenario, ws.cycle):
    st.warning(f"Computed on scenario {md_escape(stored['scenario'])} after cycle {stored['cycle']}; "
               "the workspace has changed "
               "since. Press Compare again.", icon=":material/warning:")
st.caption(f"{cmp.cycles} cycle(s) each · {cmp.differences} difference(s)"
           + (" · identical outcomes" if cmp.identical else ""))

numbers = cmp.a.queues_next or cmp.b.queues_next
metric = st.radio("Treemap quantity", TREEMAP_METRICS, index=1, horizontal=True, key="cmp_metric")
resource = st.radio("Resource", resource_names({**cmp.a.queues_next, **cmp.b.queues_next}) if numbers else ["cpu"],
                    horizontal=True, key="cmp_resource", format_func=md_escape)
col_a, col_b = st.columns(2)
with col_a:
    _side_outcome(cmp.a, metric, resource, "a")
with col_b:
    _side_outcome(cmp.b, metric, resource, "b")
st.caption("Treemaps and the \"next\" shares: the queues as the next cycle would open; \"end\" shares: as the last "
           "cycle closed (in hierarchical mode ancestors' shares are only refreshed when a session opens).")

la, lb = cmp.a.config.label, cmp.b.config.label
_releases(stored.get("releases"))
_table("Binds (node per side)", cmp.binds, "cmp_binds", la, lb)
_table("Evictions", cmp.evictions, "cmp_evictions", la, lb)
_table("Pipelined jobs (last cycle)", cmp.pipelined, "cmp_pipelined", la, lb)
_job_verdicts(cmp.jobs, cmp.a, cmp.b)
shares = [{k.replace("a ", f"{la} ").replace("b ", f"{lb} ") if k not in ("queue", "same") else k: v
           for k, v in r.items()} for r in cmp.shares]
st.markdown(f"**Queue shares** · {sum(1 for r in cmp.shares if not r['same'])} of {len(cmp.shares)} differ")
if shares:
    st.dataframe(shares, hide_index=True, key="cmp_shares")
