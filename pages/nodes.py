"""Nodes: every node with what it offers and what its pods use; edit a node's allocatable, cordon it, add or
remove nodes. Edits go through `capacity.authoring.edit` (a node never shrinks below what its bound pods request)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from capacity.analysis.views_paging import search_rows
from capacity.authoring import edit
from capacity.authoring.edit import resource_strings
from capacity.core.human_units import human_describe
from capacity.core.resources import Resource, to_dict
from ui.editing import draft, form_token, keep_valid, resource_names, seed_form, show_notice, value
from ui.paging import paged_table
from ui.state import get_workspace
from ui.text import md_code, md_escape
from ui.widgets import scenario_caption, show_findings, show_problem

ws = get_workspace()
RESOURCES = [*(r for r in resource_names(ws.cluster) if r != "pods"), "pods"]


def _key(prefix: str, resource: str) -> str:
    return f"{prefix}_{resource}"


def _alloc(prefix: str) -> dict[str, str]:
    return {r: str(value(_key(prefix, r)) or "") for r in RESOURCES}


def _apply(name: str) -> None:
    ws.edit("node_edit", edit.set_node, name, allocatable=_alloc("ne"), unschedulable=bool(value("ne_unschedulable")),
            draft=draft("node_edit", [*(_key("ne", r) for r in RESOURCES), "ne_unschedulable"]),
            notice=f"Applied the changes to node {md_code(name)}.")


def _add() -> None:
    name = str(value("na_name")).strip()
    ws.edit("node_add", edit.add_node, name, _alloc("na"), draft=draft("node_add", ["na_name", *(_key("na", r)
            for r in RESOURCES)]), notice=f"Added node {md_code(name)}.")


def _remove() -> None:
    name = value("ne_choice")
    ws.edit("node_edit", edit.remove_node, name, notice=f"Removed node {md_code(name)}.")


def node_rows() -> list[dict[str, Any]]:
    """One row per node: allocatable, what its pods request, what is left, how many pods, cordon, labels."""
    used: dict[str, Resource] = {}
    count: dict[str, int] = {}
    for pod in ws.cluster.pods.values():
        if pod.node_name and pod.phase in ("Pending", "Running"):
            used.setdefault(pod.node_name, Resource.empty()).add(pod.resreq)
            count[pod.node_name] = count.get(pod.node_name, 0) + 1
    rows = []
    for n in ws.cluster.nodes:
        u = used.get(n.name, Resource.empty())
        rows.append({
            "node": n.name, "allocatable": human_describe(to_dict(n.allocatable), styles=ws.cluster.unit_styles),
            "requested": human_describe(to_dict(u), styles=ws.cluster.unit_styles),
            "pods": count.get(n.name, 0), "unschedulable": n.unschedulable, "ready": n.ready,
            "labels": ", ".join(f"{k}={v}" for k, v in sorted(n.labels.items())),
        })
    return rows


st.title("Nodes")
scenario_caption(ws)
node_search = st.text_input("Node or label contains", key="nodes_search", placeholder="part of a name or label")
paged_table(search_rows(node_rows(), node_search, ("node", "labels")), "nodes_table", noun="nodes")

st.header("Edit a node")
names = [n.name for n in ws.cluster.nodes]
if not names:
    st.info("The scenario has no nodes: add one below.", icon=":material/info:")
else:
    remembered = st.session_state.get("nodes_editing", "")
    keep_valid("ne_choice", names, remembered if remembered in names else names[0])
    st.session_state.setdefault("ne_choice", remembered if remembered in names else names[0])
    choice = st.selectbox("Node to edit", names, key="ne_choice")
    st.session_state["nodes_editing"] = choice
    node = next(n for n in ws.cluster.nodes if n.name == choice)
    show_findings(ws.findings_about(f"Node/{choice}"))
    show_notice(ws, "node_edit")
    show_problem(ws.errors.get("node_edit"), "Nothing was changed; your input is kept below.")
    current = resource_strings(node.allocatable, RESOURCES)
    defaults: dict[str, Any] = {_key("ne", r): current.get(r, "") for r in RESOURCES}
    defaults["ne_unschedulable"] = node.unschedulable
    seed_form(ws, "node_edit", form_token(ws, "node", choice), defaults)
    with st.form("node_edit_form", border=True):
        cols = st.columns(len(RESOURCES))
        for col, r in zip(cols, RESOURCES, strict=True):
            col.text_input(f"allocatable {md_escape(r)}", key=_key("ne", r), placeholder="none")
        st.checkbox("Unschedulable (cordoned)", key="ne_unschedulable")
        st.form_submit_button("Apply node changes", key="ne_apply", on_click=_apply, args=(choice,), type="primary",
                              icon=":material/check:")
    st.button("Remove this node", key="ne_remove", on_click=_remove, icon=":material/delete:",
              help="Refused while pods are bound to it")

st.header("Add a node")
show_notice(ws, "node_add")
show_problem(ws.errors.get("node_add"), "Nothing was added; your input is kept below.")
seed_form(ws, "node_add", form_token(ws, "node-add"),
          {"na_name": "", **{_key("na", r): {"cpu": "8", "memory": "32Gi"}.get(r, "") for r in RESOURCES}})
with st.form("node_add_form", border=True):
    st.text_input("New node name", key="na_name", placeholder="e.g. node-9")
    cols = st.columns(len(RESOURCES))
    for col, r in zip(cols, RESOURCES, strict=True):
        col.text_input(f"new node {md_escape(r)}", key=_key("na", r), placeholder="110" if r == "pods" else "none")
    st.form_submit_button("Add node", key="na_submit", on_click=_add, icon=":material/add:")
