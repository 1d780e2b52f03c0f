"""Scenario: pick a built-in scenario, upload or paste a kubectl YAML dump, download the current one."""

from __future__ import annotations

import streamlit as st

from capacity.export import export_yaml
from ui.state import Problem, fixture_description, fixture_names, get_workspace
from ui.widgets import scenario_caption, show_problem

ws = get_workspace()


def _kept() -> str:
    return f"The previous scenario **{ws.scenario}** is kept."


def _load_fixture() -> None:
    ws.load_fixture(st.session_state["fixture_choice"])


def _load_upload() -> None:
    upload = st.session_state.get("upload_cluster")
    conf = st.session_state.get("upload_conf")
    if upload is None:
        ws.errors["upload"] = _missing("upload")
        return
    conf_text = conf.getvalue().decode("utf-8", errors="replace") if conf is not None else None
    ws.load_text(upload.getvalue().decode("utf-8", errors="replace"), name=upload.name, source=upload.name,
                 input_key="upload", conf_text=conf_text)


def _load_paste() -> None:
    text = st.session_state.get("paste_cluster", "")
    conf = st.session_state.get("paste_conf", "")
    if not text.strip():
        ws.errors["paste"] = _missing("paste")
        return
    ws.load_text(text, name="pasted", source="pasted YAML", input_key="paste", conf_text=conf if conf.strip() else None)


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
    st.file_uploader("Cluster YAML (kubectl get ... -o yaml, a stream or a kind: List)", type=["yaml", "yml"],
                     key="upload_cluster")
    st.file_uploader("Scheduler configuration (optional: volcano-scheduler.conf or its ConfigMap)",
                     type=["yaml", "yml", "conf"], key="upload_conf")
    st.button("Load upload", key="load_upload", on_click=_load_upload, type="primary")
    show_problem(ws.errors.get("upload"), _kept())
with paste:
    st.text_area("Cluster YAML", key="paste_cluster", height=220,
                 placeholder="apiVersion: v1\nkind: Node\n...")
    st.text_area("Scheduler configuration (optional)", key="paste_conf", height=120,
                 placeholder='actions: "enqueue, allocate, backfill"\ntiers: ...')
    st.button("Load pasted YAML", key="load_paste", on_click=_load_paste, type="primary")
    show_problem(ws.errors.get("paste"), _kept())

st.markdown(f"Loaded scenario: **{ws.scenario}**")
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
st.markdown(f"**actions:** {', '.join(conf.actions) or '-'}")
for i, tier in enumerate(conf.tiers):
    plugins = ", ".join(f"{o.name}{' (hierarchy)' if o.hierarchy else ''}" for o in tier)
    st.markdown(f"**tier {i + 1}:** {plugins or '-'}")

warnings = [str(w) for w in c.warnings] + [str(w) for w in conf.warnings]
if warnings:
    with st.expander(f"Warnings while reading the scenario ({len(warnings)})"):
        for w in warnings:
            st.markdown(f"- {w}")

st.subheader("Download")
st.download_button(
    "Download scenario as YAML", data=export_yaml(c), file_name=f"{ws.scenario.removesuffix('.yaml')}"
    f"{f'-cycle{ws.cycle}' if ws.cycle else ''}.yaml", mime="application/yaml", key="download_yaml",
    icon=":material/download:",
)
st.caption("Apply-ready Kubernetes YAML of the current state (after the cycles run so far): namespaces, "
           "the scheduler ConfigMap, priority classes, nodes, queues, PodGroups and pods.")
