"""Small Streamlit pieces several pages share: the scenario caption and error boxes."""

from __future__ import annotations

import streamlit as st

from ui.state import Problem, Workspace


def scenario_caption(ws: Workspace) -> None:
    """Which scenario and which cycle the page shows."""
    after = f"after cycle {ws.cycle}" if ws.cycle else "before the first cycle"
    st.caption(f"Scenario **{ws.scenario}** · {after}")


def show_problem(problem: Problem | None, kept: str = "") -> None:
    """An input error naming object and field, next to the input that caused it."""
    if problem is None:
        return
    where = " · ".join(f"`{p}`" for p in (problem.obj, problem.field) if p)
    tail = f"\n\n{kept}" if kept else ""
    st.error(f"{where}: {problem.message}{tail}", icon=":material/error:")
