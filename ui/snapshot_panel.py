"""Scenario page: take a read-only snapshot of a live cluster (`capacity.io.snapshot`, the same code as
`python -m capacity snapshot`) and load it like an upload; a Refresh button takes it again with the same
settings. Errors are one line (403 naming verb and resource, missing CRDs, unreachable, timeout)."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

import streamlit as st
import yaml

from capacity.core.errors import InputError
from capacity.io.snapshot import DEFAULT_CONFIGMAP, contexts, snapshot, summary
from ui.state import Problem, Workspace
from ui.text import md_escape
from ui.widgets import show_problem

ERROR_KEY = "snapshot"
#: plain session keys (kept across page switches): the last snapshot's settings and what it brought
LAST_KEY = "snapshot_last"
TEXT_KEY = "snapshot_text"


def default_kubeconfig() -> str:
    """Where kubectl would look: the first file of $KUBECONFIG, else ~/.kube/config ("" when neither exists)."""
    for path in (os.environ.get("KUBECONFIG") or "").split(os.pathsep):
        if path and Path(path).expanduser().is_file():
            return path
    home = Path("~/.kube/config").expanduser()
    return str(home) if home.is_file() else ""


def _take(ws: Workspace, kubeconfig: str, context: str | None, configmap: str, timeout: float) -> None:
    try:
        doc = snapshot(kubeconfig, context, configmap, timeout)
        text = yaml.safe_dump(doc, sort_keys=False)
    except InputError as err:
        ws.errors[ERROR_KEY] = Problem.from_error(err)
        return
    name = f"snapshot of {context or 'current context'}"
    if ws.load_text(text, name=name, source=name, input_key=ERROR_KEY):
        st.session_state[LAST_KEY] = {"kubeconfig": kubeconfig, "context": context, "configmap": configmap,
                                      "timeout": timeout, "name": name, "summary": summary(doc),
                                      "at": datetime.now().strftime("%H:%M:%S")}
        st.session_state[TEXT_KEY] = text


def _on_take(ws: Workspace) -> None:
    ws.errors.pop(ERROR_KEY, None)
    path = str(st.session_state.get("snapshot_kubeconfig") or "").strip()
    if not path:
        ws.errors[ERROR_KEY] = Problem("snapshot", "kubeconfig", "give the path of a kubeconfig first")
        return
    _take(ws, str(Path(path).expanduser()), st.session_state.get("snapshot_context") or None,
          str(st.session_state.get("snapshot_configmap") or "").strip(),
          float(st.session_state.get("snapshot_timeout") or 10))


def _on_refresh(ws: Workspace) -> None:
    last = st.session_state.get(LAST_KEY)
    ws.errors.pop(ERROR_KEY, None)
    if last:
        _take(ws, last["kubeconfig"], last["context"], last["configmap"], last["timeout"])


def snapshot_panel(ws: Workspace) -> None:
    """The live-cluster panel: kubeconfig path, context, ConfigMap, timeout; Take snapshot and Refresh."""
    st.caption("Read-only (list and get only) with the kubeconfig's credentials: Nodes, Pods, Volcano's Queues and "
               "PodGroups, PriorityClasses and the scheduler ConfigMap, loaded like an upload.")
    st.session_state.setdefault("snapshot_kubeconfig", default_kubeconfig())
    st.session_state.setdefault("snapshot_configmap", DEFAULT_CONFIGMAP)
    c = st.columns([3, 2])
    path = c[0].text_input("Kubeconfig path", key="snapshot_kubeconfig", placeholder="~/.kube/config")
    names: list[str] = []
    current = None
    if path.strip():
        try:
            names, current = contexts(str(Path(path.strip()).expanduser()))
        except InputError as err:
            show_problem(Problem.from_error(err))
    if not path.strip():
        st.caption("No kubeconfig found ($KUBECONFIG or ~/.kube/config): give a path to take a snapshot.")
    if names and st.session_state.get("snapshot_context") not in names:
        st.session_state["snapshot_context"] = current if current in names else names[0]
    c[1].selectbox("Context", names, key="snapshot_context", disabled=not names, format_func=str,
                   placeholder="no context")
    c = st.columns([3, 1, 2, 2], vertical_alignment="bottom")
    c[0].text_input("Scheduler ConfigMap (namespace/name)", key="snapshot_configmap")
    c[1].number_input("Timeout (s)", min_value=1, max_value=120, value=10, key="snapshot_timeout")
    c[2].button("Take snapshot", key="snapshot_take", on_click=_on_take, args=(ws,), type="primary",
                disabled=not names, icon=":material/photo_camera:")
    last = st.session_state.get(LAST_KEY)
    c[3].button("Refresh", key="snapshot_refresh", on_click=_on_refresh, args=(ws,), disabled=not last,
                icon=":material/refresh:", help="take the last snapshot again with the same settings")
    show_problem(ws.errors.get(ERROR_KEY), f"The previous scenario **{md_escape(ws.scenario)}** is kept.")
    if last and ws.scenario == last["name"]:
        st.success(f"Loaded **{md_escape(last['name'])}** taken at {last['at']}: {md_escape(last['summary'])}.",
                   icon=":material/check_circle:")
        text = st.session_state.get(TEXT_KEY)
        if text:
            st.download_button("Download the snapshot as taken (for python -m capacity check)", data=text,
                               file_name="snapshot.yaml", mime="application/yaml", key="snapshot_download",
                               icon=":material/download:")
