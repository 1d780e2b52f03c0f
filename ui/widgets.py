"""Small Streamlit pieces several pages share: the scenario caption and error boxes."""

from __future__ import annotations

from collections.abc import Iterable

import streamlit as st

from capacity.analysis.lint import Finding
from ui.state import Problem, Workspace
from ui.text import md_code, md_escape


def use_app_navigation() -> None:
    """Run the page through `app.py` even when a direct link is the first visit of a fresh server.

    Streamlit treats a `pages/` folder as a legacy multipage app until some session has called
    `st.navigation`: such a first run executes the page file alone, under a sidebar of lowercase file names
    ("app", "compare", ...). The flag is process-wide and `st.navigation` clears it, so clearing it here and
    rerunning makes Streamlit run `app.py`, which opens the same page (page hashes come from the URL path)
    with the real navigation, title and layout. Later runs see the flag cleared and do nothing.
    """
    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()


def scenario_caption(ws: Workspace) -> None:
    """Which scenario and which cycle the page shows."""
    use_app_navigation()
    after = f"after cycle {ws.cycle}" if ws.cycle else "before the first cycle"
    st.caption(f"Scenario **{md_escape(ws.scenario)}** · {after}")


def show_problem(problem: Problem | None, kept: str = "") -> None:
    """An input error naming object and field, next to the input that caused it."""
    if problem is None:
        return
    # Object, field and message quote the input (names, bad values): escaped, so they show as typed.
    where = " · ".join(md_code(p) for p in (problem.obj, problem.field) if p)
    tail = f"\n\n{kept}" if kept else ""
    st.error(f"{where}: {md_escape(problem.message)}{tail}", icon=":material/error:")


def show_findings(findings: Iterable[Finding], *, infos: bool = False) -> None:
    """Lint findings as error / warning boxes, each naming the field and what Volcano does.

    A finding's message quotes names and values from the dump, so it is shown as text: escaped, the field
    and rule in code spans.
    """
    for f in findings:
        text = (f"{md_code(f.field or f.obj)}: {md_escape(f.message)}\n\n*Volcano:* {md_escape(f.volcano_does)}"
                f" · {md_code(f.rule)}")
        if f.severity == "error":
            st.error(text, icon=":material/error:")
        elif f.severity == "warning":
            st.warning(text, icon=":material/warning:")
        elif infos:
            st.info(text, icon=":material/info:")


def queue_numbers_picker(ws: Workspace, key: str) -> dict:
    """Let the user choose which queue numbers to look at: the current state or the end of a past cycle.

    "Now" is what a new session opens on the current cluster; "end of cycle k" is what the capacity
    plugin reported when cycle k closed (its `CycleResult.queues`).
    """
    options = [0, *reversed([s.cycle for s in ws.history])]
    choice = st.selectbox(
        "Numbers", options, key=key,
        format_func=lambda c: "now (as the next cycle opens)" if c == 0 else f"at the end of cycle {c}",
    )
    if choice == 0:
        with st.spinner("Opening a session on the current cluster for its queue numbers…"):
            return ws.queue_numbers()
    return ws.step_at(choice).result.queues


def no_numbers_reason(ws: Workspace) -> str:
    """Why a scenario has no queue numbers to show."""
    conf = ws.cluster.conf
    if conf.plugin("capacity") is None and conf.plugin("proportion") is None:
        return "The scheduler configuration has no queue plugin (`capacity` or `proportion`): no queue numbers."
    if not ws.cluster.queues:
        return "The scenario has no queues."
    return "The queue plugin reports no queue (`proportion` only tracks queues that have jobs)."
