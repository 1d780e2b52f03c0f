"""Streamlit glue for the editors (queues, nodes, jobs, scheduler): form seeding, drafts, findings.

Forms are plain text inputs holding Kubernetes quantity strings ("4", "500m", "8Gi"), so a person, AppTest
and Playwright all drive them the same way. Their widget keys are stable; what they show is seeded from
the cluster whenever the form is shown for another object or the cluster changed (`Workspace.revision`),
and from the user's own draft when their last edit was refused. Widgets are dropped when the user leaves
a page, but the draft lives in the workspace, so a refused input is still there on return.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import streamlit as st

from capacity.analysis.lint import Finding
from capacity.core.cluster import Cluster
from ui.state import Workspace

#: Resource names every form offers, before the ones the cluster itself mentions.
BASE_RESOURCES = ("cpu", "memory", "nvidia.com/gpu")
_TOKEN = "__token"


def resource_names(cluster: Cluster) -> list[str]:
    """cpu, memory, GPUs, then every other resource a node or a queue names (a node's pods left out: every node
    has them; a queue's pods quota is kept, so that applying a queue form never drops it)."""
    names = list(BASE_RESOURCES)
    extra: set[str] = set()
    for node in cluster.nodes:
        extra.update(k for k in (node.allocatable.scalars or {}) if k != "pods")
    for q in cluster.queues.values():
        for r in (q.capability, q.deserved, q.guarantee):
            if r is not None:
                extra.update((r.scalars or {}).keys())
    return names + sorted(extra - set(names))


def form_token(ws: Workspace, *parts: Any) -> str:
    """What a form's seeded values depend on: the object shown and the cluster's version."""
    return repr((*parts, ws.scenario, ws.revision, ws.cycle, id(ws.cluster)))


def seed_form(ws: Workspace, form: str, token: str, values: dict[str, Any]) -> None:
    """Give the form's widgets their values before they are drawn, when needed.

    Seeds when the form is shown for a new token (another object, a changed cluster) or when its widgets
    were dropped (the user came back from another page). A draft kept from a refused edit with the same
    token wins over the cluster's values.
    """
    ss = st.session_state
    token_key = f"{form}{_TOKEN}"
    if ss.get(token_key) == token and all(k in ss for k in values):
        return
    draft = ws.drafts.get(form)
    source = draft if draft is not None and draft.get(_TOKEN) == token else values
    for key, default in values.items():
        ss[key] = source.get(key, default)
    ss[token_key] = token


def draft(form: str, keys: Iterable[str]) -> dict[str, Any]:
    """The form's current widget values, tagged with the token they were typed against."""
    ss = st.session_state
    out = {k: ss.get(k) for k in keys}
    out[_TOKEN] = ss.get(f"{form}{_TOKEN}")
    return out


def keep_valid(key: str, options: list[Any], default: Any = None) -> None:
    """Before drawing a selectbox: a remembered choice that is no longer an option (a removed queue, node or
    pod) becomes `default` (or the widget's own default)."""
    ss = st.session_state
    if key in ss and ss[key] not in options:
        if default is not None and default in options:
            ss[key] = default
        else:
            del ss[key]


def value(key: str, default: Any = "") -> Any:
    return st.session_state.get(key, default)


def show_notice(ws: Workspace, form: str) -> None:
    """The last accepted edit of this form, in one line, with a button to undo it."""
    notice = ws.notices.get(form)
    if notice and form not in ws.errors:
        st.success(notice, icon=":material/check_circle:")
        if ws.undo_stack and ws.undo_stack[-1].form == form:
            st.button("Undo", key=f"{form}_undo", on_click=ws.undo, icon=":material/undo:",
                      help="Undo this edit (cycles run since it are dropped too; the Simulate page says which).")


def show_fix(ws: Workspace, form: str) -> None:
    """For an edit refused because the children's quotas would exceed their parent's: the suggested fix in
    numbers (as text: it names queues from input) and a button that raises the parent and retries the edit."""
    pending = ws.fixes.get(form)
    if pending is None or form not in ws.errors:
        return
    fix = pending.fix
    with st.container(border=True, key=f"{form}_fix"):
        raised = ", ".join(f"{k} {v}" for k, v in fix.raise_to.items() if k in fix.total)
        st.text(f"Suggested fix: {fix.text}.\nThe button raises {fix.parent}'s {fix.quota} to {raised}, then "
                "makes your edit again.")
        st.button(f"Raise the parent's {fix.quota} and retry", key=f"{form}_fix_btn",
                  on_click=ws.apply_fix, args=(form,), icon=":material/auto_fix_high:",
                  help="Both changes are checked as any edit is (the queue webhook's rules); a refusal says why.")


def badge(findings: list[Finding]) -> str:
    """A short marker for a table or tree line: how many errors and warnings name the object."""
    errors = sum(1 for f in findings if f.severity == "error")
    warnings = sum(1 for f in findings if f.severity == "warning")
    parts = ([f"⛔ {errors} error{'s' if errors > 1 else ''}"] if errors else []) + \
        ([f"⚠️ {warnings} warning{'s' if warnings > 1 else ''}"] if warnings else [])
    return " · ".join(parts)
