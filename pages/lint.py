"""Lint: the checks of `python -m capacity lint` on the current scenario (or pasted YAML), grouped by severity,
each with the object, the field, and what Volcano does about it. A few hundred queues can make hundreds of
findings: each severity's table is sent a page at a time, and a search box narrows them on the server."""

from __future__ import annotations

import streamlit as st

from capacity.analysis.lint import RULES, SEVERITIES, Finding, counts, lint_text
from capacity.analysis.views_paging import PAGE_SIZE, counts_by, search_rows
from capacity.core.errors import InputError
from ui.paging import paged_table
from ui.state import Problem, get_workspace
from ui.widgets import scenario_caption, show_problem

ws = get_workspace()
PASTED_KEY = "lint_pasted"
#: The columns the search box looks in.
SEARCHED = ("object", "field", "rule", "problem")


def _rows(findings: list[Finding]) -> list[dict[str, str]]:
    return [{"object": f.obj, "field": f.field, "problem": f.message, "what Volcano does": f.volcano_does,
             "rule": f.rule} for f in findings]


def _show(findings: list[Finding], key: str) -> None:
    """Counts per severity, then each severity's findings a page at a time, narrowed on the server by one search
    box (object, field, rule or problem); a group longer than a page says how many findings each rule made."""
    c = counts(findings)
    m1, m2, m3 = st.columns(3)
    m1.metric("Errors", c["error"])
    m2.metric("Warnings", c["warning"])
    m3.metric("Info", c["info"])
    if not findings:
        st.success("No findings: Volcano takes this configuration as written.", icon=":material/check_circle:")
        return
    search = ""
    if len(findings) > PAGE_SIZE:
        search = st.text_input("Object, field, rule or problem contains", key=f"{key}_search",
                               placeholder="e.g. a queue name or a rule id")
    for severity in SEVERITIES:
        group = [f for f in findings if f.severity == severity]
        if not group:
            continue
        st.subheader(f"{severity.capitalize()} ({len(group)})")
        if len(group) > PAGE_SIZE:
            st.caption(" · ".join(f"{r['count']:,} {r['rule']}" for r in counts_by(_rows(group), "rule")))
        rows = search_rows(_rows(group), search, SEARCHED)
        if not rows:
            st.caption(f"None of the {len(group):,} contains {search.strip()!r}.")
            continue
        paged_table(rows, f"{key}_{severity}", noun="findings")


def _lint_pasted() -> None:
    text = str(st.session_state.get("lint_input") or "")
    try:
        st.session_state[PASTED_KEY] = {"findings": lint_text(text, source="pasted YAML")}
    except InputError as err:
        st.session_state[PASTED_KEY] = {"problem": Problem.from_error(err)}


st.title("Lint")
scenario_caption(ws)
st.markdown("What Volcano will do with the scenario's queues and scheduler configuration: **errors** it rejects, "
            "crashes or stalls on; **warnings** it silently ignores or reinterprets; **info** worth knowing.")
_show(ws.current_findings(), "lint_ws")  # the chosen Volcano release's webhook and scheduler (cached per state)

with st.expander("Lint other YAML (queues, a ConfigMap, a whole dump)"):
    st.caption("Pasted text is read like `python -m capacity lint`, including queue trees the loader refuses "
               "(cycles, self-parents).")
    st.text_area("YAML", key="lint_input", height=200)
    st.button("Lint this", key="lint_btn", on_click=_lint_pasted, icon=":material/rule:")
    pasted = st.session_state.get(PASTED_KEY)
    if pasted:
        show_problem(pasted.get("problem"))
        if "findings" in pasted:
            _show(pasted["findings"], "lint_pasted")

with st.expander(f"Every rule ({len(RULES)})"):
    st.dataframe([{"rule": r, "catches": what} for r, what in RULES.items()], hide_index=True, key="lint_rules")
