"""Scheduler: the configuration's actions and tiers (editable), capacity's hierarchy on/off, the Volcano release
to reproduce (preselected from the dump's scheduler image), and the engine's compatibility switches
(older Volcano behaviour: leaf-only allocatable, seed004 root init, legacy namespace
fair share). Configuration edits go through `capacity.authoring.edit` and are refused where Volcano would
refuse them."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import streamlit as st

from capacity.analysis.lint import CONF_OBJ
from capacity.authoring import edit
from capacity.core.conf import SIMULATED_ACTIONS, SWITCH_DEFAULTS
from capacity.framework.session import SessionOptions
from capacity.versions import BY_ID, HEAD, parse_version, version
from capacity.versions.cli import known_or_none, session_kwargs
from capacity.versions.releases import choice, choices
from ui.editing import draft, form_token, seed_form, show_notice, value
from ui.state import get_workspace, option_names
from ui.widgets import scenario_caption, show_findings, show_problem

ws = get_workspace()
conf = ws.cluster.conf
SWITCH_HELP = {
    "leaf_only_allocatable": "seed 003: with hierarchy on, allocate checks only the leaf queue's realCapability",
    "seed004_root_init": "seed 004: root's capability and deserved are initialised to the cluster total",
    "legacy_namespace_fairshare": "seed 002: Volcano <= 1.7 namespace weights (volcano.sh/namespace.weight) in drf",
}


def _actions() -> None:
    ws.edit("sched_actions", edit.set_actions, str(value("sch_actions")), draft=draft("sched_actions", ["sch_actions"]),
            notice="Applied the actions.")


def _conf() -> None:
    ws.edit("sched_conf", edit.set_conf_text, str(value("sch_conf")), draft=draft("sched_conf", ["sch_conf"]),
            notice="Applied the configuration.")


def _hierarchy() -> None:
    on = bool(value("sch_hierarchy"))
    if not ws.edit("sched_hierarchy", edit.set_hierarchy, on,
                   notice=f"Hierarchical queues are {'on' if on else 'off'}."):
        st.session_state["sch_hierarchy"] = not on  # refused: the toggle shows what is configured


def _set_option(name: str) -> None:
    ws.options = replace(ws.options, **{name: bool(st.session_state[f"sched_option_{name}"])})


def _set_version() -> None:
    """A release runs as its own set of switches: the seed toggles start again from what it implies."""
    ws.options = SessionOptions(**session_kwargs(version(str(st.session_state["sched_version"]))))
    for name in option_names(ws.options):  # the toggles show the new release's switches
        st.session_state.pop(f"sched_option_{name}", None)


def _version_label(name: str) -> str:
    label = "HEAD (Volcano's main branch, ed72c7c8)" if name == HEAD else f"v{name}"
    return label + (" · detected in the dump" if detected is not None and choice(detected.label) == name else "")


def tier_rows() -> list[dict[str, Any]]:
    rows = []
    for ti, tier in enumerate(conf.tiers):
        for opt in tier:
            changed = {k: v for k, v in opt.switches.items() if SWITCH_DEFAULTS.get(k) != v}
            rows.append({"tier": ti + 1, "plugin": opt.name,
                         "switches": ", ".join(f"{k}={str(v).lower()}" for k, v in changed.items()),
                         "arguments": json.dumps(opt.arguments, sort_keys=True) if opt.arguments else ""})
    return rows


st.title("Scheduler")
scenario_caption(ws)
if conf.is_default:
    st.caption("No volcano-scheduler-configmap in the scenario: Volcano's default configuration is used.")
show_findings([f for f in ws.current_findings() if f.obj == CONF_OBJ])
elsewhere = [f for f in ws.current_findings() if f.obj != CONF_OBJ and f.severity in ("error", "warning")]
if elsewhere:
    errors = sum(1 for f in elsewhere if f.severity == "error")
    st.caption(f"With this configuration the queues and jobs have {errors} errors and {len(elsewhere) - errors} "
               "warnings: they are shown next to each queue on the Queues page.")

st.header("Actions")
show_notice(ws, "sched_actions")
show_problem(ws.errors.get("sched_actions"), "The configuration is unchanged; your input is kept below.")
seed_form(ws, "sched_actions", form_token(ws, "actions"), {"sch_actions": ", ".join(conf.actions)})
with st.form("sched_actions_form", border=True):
    st.text_input("Actions, in the order a cycle runs them", key="sch_actions",
                  help=f"Simulated: {', '.join(sorted(SIMULATED_ACTIONS))}")
    st.form_submit_button("Apply actions", key="sch_actions_apply", type="primary", on_click=_actions)

st.header("Tiers")
st.dataframe(tier_rows(), hide_index=True, key="tiers_table")
hierarchy = edit.hierarchy_on(ws.cluster)
show_notice(ws, "sched_hierarchy")
show_problem(ws.errors.get("sched_hierarchy"), "The configuration is unchanged.")
seed_form(ws, "sched_hierarchy", form_token(ws, "hierarchy"), {"sch_hierarchy": hierarchy})
st.toggle("Hierarchical queues (capacity plugin's enableHierarchy)", key="sch_hierarchy", on_change=_hierarchy,
          disabled=conf.plugin("capacity") is None,
          help="Queues form a tree under root; jobs only in leaf queues; quotas checked level by level")

st.subheader("The whole configuration (volcano-scheduler.conf)")
show_notice(ws, "sched_conf")
show_problem(ws.errors.get("sched_conf"), "The configuration is unchanged; your text is kept below.")
seed_form(ws, "sched_conf", form_token(ws, "conf"), {"sch_conf": conf.text or edit.conf_text(conf)})
with st.form("sched_conf_form", border=True):
    st.text_area("volcano-scheduler.conf", key="sch_conf", height=320)
    st.form_submit_button("Apply configuration", key="sch_conf_apply", type="primary", on_click=_conf)

st.header("Volcano version")
detected = known_or_none(ws.detected_version)
offered = choices(ws.detected_version)
current = choice(ws.options.version) if choice(ws.options.version) in offered else parse_version(ws.options.version)
st.session_state["sched_version"] = current
st.selectbox("Reproduce the decisions of", offered, key="sched_version", format_func=_version_label,
             on_change=_set_version, help="Each release runs the older rule of every change it does not have yet "
             "(docs/VERSIONS.md); the decision trace names the change when it decided.")
if ws.detected_version and detected is None:
    st.caption(f"The dump's volcano-scheduler image is {ws.detected_version}, a release without a switch set here: "
               "choose the nearest one.")
elif ws.detected_version:
    st.caption(f"Preselected from the dump's volcano-scheduler image ({ws.detected_version}).")
off = sorted(ws.options.lacking, key=lambda i: BY_ID[i].pr)
if off:
    st.dataframe([{"change": f"PR #{BY_ID[i].pr}", "in Volcano from": BY_ID[i].release, "area": BY_ID[i].area,
                   f"on {ws.options.version}": BY_ID[i].before} for i in off], hide_index=True, key="sched_changes")
    st.caption("Compare runs the same dump on two releases and names the change behind each decision that differs.")
else:
    st.caption("Every change of docs/VERSIONS.md is on: the engine decides as Volcano HEAD.")

st.header("Compatibility switches")
st.caption("Older Volcano behaviour the seeds describe; all off = Volcano HEAD. They apply from the next cycle. "
           "A switch the chosen release lacks is on and cannot be turned off here.")
for name in option_names(ws.options):
    st.toggle(name, value=getattr(ws.options, name), key=f"sched_option_{name}", on_change=_set_option,
              args=(name,), help=SWITCH_HELP.get(name), disabled=ws.options.set_by_release(name))
