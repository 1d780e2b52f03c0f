"""Scenario: pick a built-in scenario, upload or paste a kubectl YAML dump, download the current one."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime

import streamlit as st

from capacity.core.webhook import release_warnings
from capacity.io.export import export_yaml
from ui.answers import MEMO_KEY as ANSWER_MEMO_KEY
from ui.snapshot_panel import snapshot_panel
from ui.state import Problem, fixture_description, fixture_names, get_workspace
from ui.text import md_escape
from ui.widgets import scenario_caption, show_problem

ws = get_workspace()
#: Plain session key: what the last load of this session brought in (shown until another scenario replaces it).
LOADED_KEY = "scenario_loaded"


def _kept() -> str:
    return f"The previous scenario **{md_escape(ws.scenario)}** is kept."


def _size(n: int) -> str:
    return f"{n} B" if n < 1024 else f"{n / 1024:.0f} KB" if n < 1024 * 1024 else f"{n / 1024 / 1024:.1f} MB"


def _remember_load(source: str, size: int | None) -> None:
    """What was loaded, in words that tell two files of the same name apart: size, counts and time.

    The answers kept for the previous scenario's cycles go (they hold its clusters and decision records)."""
    for key in (ANSWER_MEMO_KEY, "jobs_rows_memo"):
        st.session_state.pop(key, None)
    c = ws.cluster
    st.session_state[LOADED_KEY] = {
        "cluster": id(c), "name": ws.scenario, "source": source, "size": size,
        "nodes": len(c.nodes), "queues": len(c.queues), "jobs": len(c.podgroups), "pods": len(c.pods),
        "at": datetime.now().strftime("%H:%M:%S"),
    }


def _guarded(input_key: str, source: str, load: Callable[[], bool]) -> bool:
    """Run one load; an engine failure other than an input error (a bug) becomes one message naming the file,
    and the previous scenario stays (the workspace only replaces it after a successful parse)."""
    try:
        return load()
    except Exception:  # a bug in the engine: logged with its traceback on the server, never shown in the browser
        logging.getLogger(__name__).exception("loading %r failed", source)
        ws.errors[input_key] = Problem(source, "", "the engine failed while reading this file (an internal error, "
                                       "logged on the server); nothing was loaded")
        return False


def _load_fixture() -> None:
    name = st.session_state["fixture_choice"]
    if _guarded("fixture", name, lambda: ws.load_fixture(name)):
        _remember_load("built-in scenario", None)


def _load_upload() -> None:
    """Runs as soon as a file is chosen (or the optional scheduler configuration changes): one step."""
    upload = st.session_state.get("upload_cluster")
    conf = st.session_state.get("upload_conf")
    if upload is None:
        return  # the file was removed from the uploader: the loaded scenario stays
    data = upload.getvalue()
    conf_text = conf.getvalue().decode("utf-8", errors="replace") if conf is not None else None
    with st.spinner(f"Reading {upload.name} ({_size(len(data))})…"):
        loaded = _guarded("upload", upload.name, lambda: ws.load_text(
            data.decode("utf-8", errors="replace"), name=upload.name, source=upload.name, input_key="upload",
            conf_text=conf_text))
    if loaded:
        _remember_load("upload", len(data))


def _load_paste() -> None:
    text = st.session_state.get("paste_cluster", "")
    conf = st.session_state.get("paste_conf", "")
    if not text.strip():
        ws.errors["paste"] = _missing("paste")
        return
    if _guarded("paste", "pasted YAML", lambda: ws.load_text(
            text, name="pasted", source="pasted YAML", input_key="paste", conf_text=conf if conf.strip() else None)):
        _remember_load("pasted YAML", len(text.encode("utf-8")))


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _show_loaded() -> None:
    """Confirm the last load: what came in, what is missing, and where to go next."""
    info = st.session_state.get(LOADED_KEY)
    if not info or info["name"] != ws.scenario:
        return
    size = f"{_size(info['size'])}, " if info["size"] is not None else ""
    counts = ", ".join([_plural(info["nodes"], "node"), _plural(info["queues"], "queue"),
                        _plural(info["jobs"], "job"), _plural(info["pods"], "pod")])
    with st.container(key="scenario_loaded_box"):
        st.success(f"Loaded **{md_escape(info['name'])}** ({size}{counts}), loaded at {info['at']}.",
                   icon=":material/check_circle:")
        missing = []
        if not info["nodes"]:
            missing.append("no Node: no pod can be placed until you add nodes (Nodes page)")
        if not info["queues"]:
            missing.append("no Queue: jobs can only go to queues declared in the file (Queues page)")
        if not info["jobs"] and not info["pods"]:
            missing.append("no job and no pod: nothing to schedule (Jobs page)")
        if missing:
            st.warning("The file has " + "; ".join(missing) + ".", icon=":material/warning:")
        st.markdown("Next: step the scheduler, then ask why a pod or job is where it is.")
        c = st.columns(3)
        c[0].page_link("pages/simulate.py", label="Simulate: run cycles", icon=":material/play_circle:")
        c[1].page_link("pages/decisions.py", label="Decisions: why is it pending?", icon=":material/fact_check:")
        c[2].page_link("pages/jobs.py", label="Jobs: what is waiting and why", icon=":material/work:")


def _missing(where: str) -> Problem:
    return Problem(where, "", "give a cluster YAML first")


st.title("Scenario")
scenario_caption(ws)

pick, upload, paste = st.tabs(["Built-in", "Upload", "Paste"])
with pick:
    names = fixture_names()
    st.selectbox("Built-in scenario", names, key="fixture_choice",
                 index=names.index(ws.scenario) if ws.scenario in names else 0)
    st.button("Load scenario", key="load_fixture", on_click=_load_fixture, type="primary")
    show_problem(ws.errors.get("fixture"), _kept())
with upload:
    st.file_uploader("Cluster YAML or JSON (kubectl get ... -o yaml or -o json, a stream or a kind: List): loaded "
                     "as soon as chosen", type=["yaml", "yml", "json"], key="upload_cluster", on_change=_load_upload)
    st.file_uploader("Scheduler configuration (optional: volcano-scheduler.conf or its ConfigMap; choosing it "
                     "loads the cluster YAML again with it)", type=["yaml", "yml", "conf"], key="upload_conf",
                     on_change=_load_upload)
    show_problem(ws.errors.get("upload"), _kept())
with paste:
    st.text_area("Cluster YAML", key="paste_cluster", height=220,
                 placeholder="apiVersion: v1\nkind: Node\n...")
    st.text_area("Scheduler configuration (optional)", key="paste_conf", height=120,
                 placeholder='actions: "enqueue, allocate, backfill"\ntiers: ...')
    st.button("Load pasted YAML", key="load_paste", on_click=_load_paste, type="primary")
    show_problem(ws.errors.get("paste"), _kept())
with st.expander("Live cluster: take a read-only snapshot", expanded=bool(st.session_state.get("snapshot_last"))):
    snapshot_panel(ws)

_show_loaded()
st.markdown(f"Loaded scenario: **{md_escape(ws.scenario)}**")
description = fixture_description(ws.scenario)
if description:
    heading, _, body = description.partition("\n")
    with st.expander(heading.lstrip("# ") or "About this scenario", expanded=True):
        st.markdown(body)

c = ws.cluster
cols = st.columns(5)
cols[0].metric("Nodes", len(c.nodes))
cols[1].metric("Queues", len(c.queues))
cols[2].metric("Jobs (PodGroups)", len(c.podgroups))
cols[3].metric("Pods", len(c.pods))
cols[4].metric("Cycles run", ws.cycle)

conf = c.conf
st.subheader("Scheduler configuration")
if conf.is_default:
    st.caption("No volcano-scheduler-configmap in the scenario: Volcano's default configuration is used.")
st.markdown(f"**actions:** {md_escape(', '.join(conf.actions)) or '-'}")
for i, tier in enumerate(conf.tiers):
    plugins = ", ".join(f"{md_escape(o.name)}{' (hierarchy)' if o.hierarchy else ''}" for o in tier)
    st.markdown(f"**tier {i + 1}:** {plugins or '-'}")

# the queue webhook's refusals as the chosen Volcano release words them
warnings = [str(w) for w in release_warnings(c, ws.options.lacking)] + [str(w) for w in conf.warnings]
if warnings:
    with st.expander(f"Warnings while reading the scenario ({len(warnings)})"):
        for w in warnings:
            st.text(f"- {w}")

st.subheader("Download")
st.download_button(
    # Built when clicked (a callable): at openb scale the YAML takes seconds to write, every visit otherwise.
    "Download scenario as YAML", data=lambda: export_yaml(c), file_name=f"{ws.scenario.removesuffix('.yaml')}"
    f"{f'-cycle{ws.cycle}' if ws.cycle else ''}.yaml", mime="application/yaml", key="download_yaml",
    icon=":material/download:",
)
st.caption("Apply-ready Kubernetes YAML of the current state (after the cycles run so far): namespaces, "
           "the scheduler ConfigMap, priority classes, nodes, queues, PodGroups and pods.")
