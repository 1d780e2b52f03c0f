"""Queues: the queue tree and each queue's numbers, as the queue plugin (capacity or proportion) computes them,
and the queue editor: add, remove, rename, re-parent, quotas per resource, priority, reclaimable, state.

Every edit goes through `capacity.authoring.edit` and is validated as Volcano would (webhook rules, cycles, the
hierarchy's quota rules, jobs on non-leaf queues, via `capacity.analysis.lint`); a refused edit shows its reason
next to the form and keeps what the user typed. Lint findings are shown next to the queue they name.
"""

from __future__ import annotations

import streamlit as st

from capacity.analysis.charts import queue_bars_figure, queue_rows, queue_tree_figure
from capacity.analysis.charts import resource_names as numbers_resources
from capacity.analysis.views_paging import TreeView, queue_depths, search_rows, tree_view
from capacity.authoring import edit
from capacity.authoring.edit import QUOTAS, ROOT, resource_strings
from ui.editing import (
    badge,
    draft,
    form_token,
    keep_valid,
    resource_names,
    seed_form,
    show_fix,
    show_notice,
    value,
)
from ui.paging import paged_table
from ui.reality import show_reality
from ui.state import get_workspace
from ui.text import md_code, md_escape
from ui.views import declared_capabilities, queue_detail_rows
from ui.widgets import no_numbers_reason, queue_numbers_picker, scenario_caption, show_findings, show_problem

ws = get_workspace()
RESOURCES = resource_names(ws.cluster)
QUOTA_FIELDS = [(quota, r, f"{quota} {r}") for quota in QUOTAS for r in RESOURCES]


def _quota_key(prefix: str, quota: str, resource: str) -> str:
    return f"{prefix}_{quota}_{resource}"


def _quotas(prefix: str) -> dict[str, dict[str, str]]:
    return {quota: {r: str(value(_quota_key(prefix, quota, r)) or "") for r in RESOURCES} for quota in QUOTAS}


def _quota_inputs(prefix: str) -> None:
    """One row per resource, one column per quota: text inputs holding quantity strings."""
    head = st.columns([1, 2, 2, 2])
    head[0].markdown("**resource**")
    for col, quota in zip(head[1:], QUOTAS, strict=True):
        col.markdown(f"**{quota}**")
    for r in RESOURCES:
        cols = st.columns([1, 2, 2, 2])
        cols[0].markdown(f"**{md_escape(r)}**")
        for col, quota in zip(cols[1:], QUOTAS, strict=True):
            col.text_input(f"{quota} {md_escape(r)}", key=_quota_key(prefix, quota, r), label_visibility="collapsed",
                           placeholder="unset", help=f"{quota} of {md_escape(r)}: a quantity such as 4, 500m or 8Gi")


# ---- callbacks ---------------------------------------------------------------------------------------
ADD_KEYS = ["qa_name", "qa_parent", "qa_weight", *[_quota_key("qa", q, r) for q, r, _ in QUOTA_FIELDS]]
EDIT_KEYS = ["qe_parent", "qe_weight", "qe_priority", "qe_reclaimable", "qe_state",
             *[_quota_key("qe", q, r) for q, r, _ in QUOTA_FIELDS]]


def _add() -> None:
    name = str(value("qa_name")).strip()
    ws.edit("queue_add", edit.add_queue, name, value("qa_parent") or "", weight=value("qa_weight"),
            draft=draft("queue_add", ADD_KEYS), notice=f"Added queue {md_code(name)}.", **_quotas("qa"))


def _apply(name: str) -> None:
    ws.edit("queue_edit", edit.update_queue, name, parent=value("qe_parent") or "", weight=value("qe_weight"),
            priority=value("qe_priority"), reclaimable=bool(value("qe_reclaimable")), state=value("qe_state"),
            draft=draft("queue_edit", EDIT_KEYS), notice=f"Applied the changes to queue {md_code(name)}.",
            **_quotas("qe"))


def _rename() -> None:
    old, new = value("qr_choice"), str(value("qr_name")).strip()
    if ws.edit("queue_rename", edit.rename_queue, old, new, draft=draft("queue_rename", ["qr_name"]),
               notice=f"Renamed queue {md_code(old)} to {md_code(new)}; its children and PodGroups "
                      "follow."):
        st.session_state["qe_choice"] = new


def _remove() -> None:
    name = value("qr_choice")
    ws.edit("queue_rename", edit.remove_queue, name, notice=f"Removed queue {md_code(name)}.")

st.title("Queues")
scenario_caption(ws)


def _numbers() -> None:
    """The queue plugin's numbers: tree, table of every queue, one queue per resource."""
    numbers = queue_numbers_picker(ws, key="queues_numbers")
    if not numbers:
        st.info(f"{no_numbers_reason(ws)} Queues as written in the scenario:", icon=":material/info:")
        st.dataframe(
            [{"queue": q.name, "parent": q.parent, "weight": q.weight, "state": q.state}
             for q in ws.cluster.queues.values()],
            hide_index=True, key="queue_specs",
        )
        return
    _numbers_of(numbers)


#: Findings of more queues than this are folded into one expander under the tree.
FINDINGS_OPEN = 3
#: A tree with more queues than this opens collapsed to the levels that fit.
TREE_OPEN_QUEUES = 40


def _open_levels(depths: dict[str, int]) -> int:
    """How many levels to open at first: all when the tree is small, else the most that keep <= 40 queues."""
    levels = max(depths.values(), default=0) + 1
    for n in range(levels, 0, -1):
        if sum(1 for d in depths.values() if d < n) <= TREE_OPEN_QUEUES:
            return n
    return 1


def _tree_view(numbers: dict) -> TreeView:
    """Levels to open and a search, for the tree and the bars: a 200-queue tree drawn whole is unreadable."""
    depths = queue_depths(numbers)
    levels = max(depths.values(), default=0) + 1
    if len(numbers) <= TREE_OPEN_QUEUES:
        return tree_view(numbers, levels)
    st.session_state.setdefault("queue_tree_levels", _open_levels(depths))
    if st.session_state["queue_tree_levels"] not in range(1, levels + 1):
        st.session_state["queue_tree_levels"] = _open_levels(depths)
    c1, c2 = st.columns([1, 2])
    shown = c1.select_slider("Levels open", options=list(range(1, levels + 1)), key="queue_tree_levels",
                             help="Collapse or expand the tree by level; a collapsed queue shows (+n) queues below it")
    query = c2.text_input("Find a queue", key="queue_tree_search", placeholder="part of a name: shows it, its "
                          "ancestors and its children")
    view = tree_view(numbers, shown, query)
    if query.strip() and not view.queues:
        st.caption("No queue name contains that.")
        return tree_view(numbers, shown)
    st.caption(f"{len(view.queues)} of {len(numbers)} queues drawn"
               + (f"; {view.hidden_total} below collapsed queues ((+n) on each)" if view.hidden_total else "") + ".")
    return view


def _numbers_of(numbers: dict) -> None:
    styles = ws.cluster.unit_styles
    declared = declared_capabilities(ws.cluster)
    when = ("at the opening of the next session (what the next cycle starts from)"
            if st.session_state.get("queues_numbers", 0) == 0 else
            f"at the end of cycle {st.session_state.get('queues_numbers')} (as that cycle closed)")
    st.caption(f"Numbers and share {when}. Colour: share = allocated / deserved on the dominant dimension "
               "(1 = at deserved). Simulate's history chart shows the share at the end of each cycle.")
    view = _tree_view(numbers)
    st.plotly_chart(queue_tree_figure(view.queues, styles, view.hidden), key="queue_tree", width="stretch")

    st.subheader("Deserved, allocated and guarantee side by side")
    resource = st.radio("Resource", numbers_resources(numbers), horizontal=True, key="queue_bars_resource",
                        format_func=md_escape)
    st.plotly_chart(queue_bars_figure(view.queues, resource, styles), key="queue_bars", width="stretch")
    st.caption("Bar: allocated; its orange part is borrowed (allocated above deserved). Marks: deserved (black "
               "line), guarantee (green triangle), capability (red line; none when unlimited)."
               + (" The queues drawn are the tree's above." if view.hidden_total else ""))

    st.subheader("All queues")
    search = st.text_input("Queue or parent contains", key="queue_table_search", placeholder="part of a queue name")
    paged_table(
        search_rows(queue_rows(numbers, styles, declared), search, ("queue", "parent")), "queue_table",
        noun="queues", column_config={"share": st.column_config.NumberColumn("share", format="%.3f"), "depth": None},
    )

    st.subheader("One queue, per resource")
    names = list(numbers)
    leaves = [n for n in names if not any(numbers[o].get("parent") == n for o in names)]
    choice = st.selectbox("Queue", names, index=names.index(leaves[0]) if leaves else 0, key="queue_choice")
    q = numbers[choice]
    st.markdown(f"**{md_escape(choice)}** · parent **{md_escape(q.get('parent') or '-')}** · "
                f"share **{float(q.get('share', 0.0)):.4g}**")
    st.dataframe(queue_detail_rows(q, styles, declared.get(choice) if choice in ws.cluster.queues else None),
                 hide_index=True, key="queue_detail")


# ---- the editor ----------------------------------------------------------------------------------
def _preorder() -> list[tuple[str, int]]:
    """Queues as written (spec.parent), parents first; queues without a parent hang under root."""
    queues = ws.cluster.queues
    kids: dict[str, list[str]] = {}
    for name, q in queues.items():
        if name != ROOT:
            kids.setdefault(q.parent or ROOT, []).append(name)
    out: list[tuple[str, int]] = []
    seen: set[str] = set()

    def walk(name: str, depth: int) -> None:
        if name in seen:
            return
        seen.add(name)
        out.append((name, depth))
        for child in sorted(kids.get(name, [])):
            walk(child, depth + 1)

    tops = [ROOT] if ROOT in queues else sorted(kids.get(ROOT, []))
    for top in tops:
        walk(top, 0)
    for name in sorted(queues):  # unknown parents: still listed
        walk(name, 0)
    return out


def _tree() -> None:
    st.subheader("Queue tree as written, with what Volcano says about each queue")
    queues = ws.cluster.queues
    jobs: dict[str, int] = {}
    for pg in ws.cluster.podgroups.values():
        jobs[pg.queue] = jobs.get(pg.queue, 0) + 1
    order = _preorder()
    shown, hidden = {n for n, _ in order}, {}
    if len(order) > TREE_OPEN_QUEUES:  # the same levels and search as the numbers' tree above
        spec = {n: {"parent": queues[n].parent or (ROOT if n != ROOT and ROOT in queues else "")} for n, _ in order}
        depths = queue_depths(spec)
        levels = st.session_state.get("queue_tree_levels") or _open_levels(depths)
        view = tree_view(spec, levels, str(st.session_state.get("queue_tree_search") or ""))
        shown, hidden = set(view.queues), view.hidden
        st.caption(f"{len(shown)} of {len(order)} queues listed, as the tree above is opened (levels, search).")
    lines = []
    for name, depth in order:
        if name not in shown:
            continue
        q = queues[name]
        marks = badge(ws.findings_about(f"Queue/{name}"))
        extra = [f"weight {q.weight}", q.state]
        if q.priority:
            extra.append(f"priority {q.priority}")
        if not q.reclaimable:
            extra.append("not reclaimable")
        if jobs.get(name):
            extra.append(f"{jobs[name]} job{'s' if jobs[name] > 1 else ''}")
        if hidden.get(name):
            extra.append(f"+{hidden[name]} queues below")
        lines.append(f"{'    ' * depth}- **{md_escape(name)}** · {md_escape(' · '.join(extra))}"
                     f"{' · ' + marks if marks else ''}")
    st.markdown("\n".join(lines) or "No queues.")
    flagged = [(name, found) for name, _depth in order if name in shown
               for found in [[f for f in ws.findings_about(f"Queue/{name}") if f.severity in ("error", "warning")]]
               if found]
    # Many flagged queues (a generated tree repeats one warning per department): folded, counted in the title.
    many = len(flagged) > FINDINGS_OPEN
    with st.expander(f"What Volcano says about {len(flagged)} of these queues ({sum(len(f) for _, f in flagged)} "
                     "findings)") if many else st.container():
        for name, found in flagged:
            st.markdown(f"**{md_escape(name)}**")
            show_findings(found)


def _parents(exclude: str = "") -> list[str]:
    others = sorted(n for n in ws.cluster.queues if n not in (ROOT, exclude))
    return [ROOT, *others] if edit.hierarchy_on(ws.cluster) or ROOT in ws.cluster.queues else ["", *others]


def _add_form() -> None:
    st.subheader("Add a queue")
    show_notice(ws, "queue_add")
    show_problem(ws.errors.get("queue_add"), "Nothing was added; your input is kept below.")
    show_fix(ws, "queue_add")
    parents = _parents()
    defaults = {"qa_name": "", "qa_parent": parents[0], "qa_weight": "1"}
    defaults.update({_quota_key("qa", q, r): "" for q, r, _ in QUOTA_FIELDS})
    seed_form(ws, "queue_add", form_token(ws, "add"), defaults)
    keep_valid("qa_parent", parents, parents[0])
    with st.form("queue_add_form", border=True):
        c = st.columns(3)
        c[0].text_input("New queue name", key="qa_name", placeholder="e.g. team-a")
        c[1].selectbox("Parent", parents, key="qa_parent", format_func=lambda p: p or "(none)")
        c[2].text_input("Weight", key="qa_weight")
        _quota_inputs("qa")
        st.form_submit_button("Add queue", key="qa_submit", on_click=_add, type="primary", icon=":material/add:")


def _edit_form() -> None:
    st.subheader("Edit a queue")
    queues = ws.cluster.queues
    names = [n for n, _ in _preorder()]
    if not names:
        st.info("No queue to edit: add one above.", icon=":material/info:")
        return
    leaves = [n for n in names if not edit.children(ws.cluster, n)]
    # The choice is also kept in a plain key: widget keys are dropped when the user leaves the page.
    remembered = st.session_state.get("queues_editing", "")
    fallback = remembered if remembered in names else (leaves[0] if leaves else names[0])
    keep_valid("qe_choice", names, fallback)
    st.session_state.setdefault("qe_choice", fallback)
    choice = st.selectbox("Queue to edit", names, key="qe_choice")
    st.session_state["queues_editing"] = choice
    q = queues[choice]
    show_findings(ws.findings_about(f"Queue/{choice}"))
    show_notice(ws, "queue_edit")
    show_problem(ws.errors.get("queue_edit"), "Nothing was changed; your input is kept below.")
    show_fix(ws, "queue_edit")
    parents = _parents(exclude=choice)
    parent = q.parent or parents[0]
    if parent not in parents:
        parents.append(parent)
    states = ["Open", "Closed"] + ([q.state] if q.state not in ("Open", "Closed") else [])
    defaults: dict = {"qe_parent": parent, "qe_weight": str(q.weight), "qe_priority": str(q.priority),
                      "qe_reclaimable": q.reclaimable, "qe_state": q.state}
    for quota in QUOTAS:
        current = resource_strings(getattr(q, quota), RESOURCES)
        defaults.update({_quota_key("qe", quota, r): current.get(r, "") for r in RESOURCES})
    seed_form(ws, "queue_edit", form_token(ws, "edit", choice), defaults)
    keep_valid("qe_parent", parents, parent)
    keep_valid("qe_state", states, q.state)
    with st.form("queue_edit_form", border=True):
        c = st.columns(5)
        c[0].selectbox("Parent queue", parents, key="qe_parent", disabled=choice == ROOT,
                       format_func=lambda p: p or "(none)")
        c[1].text_input("Queue weight", key="qe_weight")
        c[2].text_input("Priority", key="qe_priority")
        c[3].selectbox("State", states, key="qe_state")
        c[4].checkbox("Reclaimable", key="qe_reclaimable")
        _quota_inputs("qe")
        st.form_submit_button("Apply changes", key="qe_apply", on_click=_apply, args=(choice,), type="primary",
                              icon=":material/check:")


def _rename_form() -> None:
    st.subheader("Rename or remove a queue")
    show_notice(ws, "queue_rename")
    show_problem(ws.errors.get("queue_rename"), "Nothing was changed.")
    names = sorted(n for n in ws.cluster.queues if n != ROOT)
    if not names:
        st.info("No queue to rename or remove.", icon=":material/info:")
        return
    keep_valid("qr_choice", names, names[0])
    seed_form(ws, "queue_rename", form_token(ws, "rename"), {"qr_name": ""})
    c = st.columns([2, 2, 1, 1], vertical_alignment="bottom")
    c[0].selectbox("Queue to rename or remove", names, key="qr_choice")
    c[1].text_input("New name", key="qr_name")
    c[2].button("Rename", key="qr_rename", on_click=_rename, icon=":material/edit:")
    c[3].button("Remove", key="qr_remove", on_click=_remove, icon=":material/delete:")
    st.caption("Removing is refused for root, `default`, a queue with child queues or with PodGroups, as Volcano's "
               "queue webhook refuses it. Renaming re-points the children's spec.parent and the PodGroups' "
               "spec.queue.")


_numbers()
show_reality(ws)
st.divider()
st.header("Edit the queues")
st.caption("Quantities are Kubernetes quantities: `4`, `500m`, `8Gi`; leave a field blank to unset it. Every edit "
           "is checked as Volcano would check it; an edit Volcano would refuse is refused here with the reason, "
           "and warnings stay next to the queue.")
with st.spinner("Checking every queue as Volcano would…"):
    _tree()
_add_form()
_edit_form()
_rename_form()
