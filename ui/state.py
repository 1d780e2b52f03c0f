"""The one place that creates a session's workspace.

Every page calls `get_workspace()` before anything else. With `st.navigation`, `app.py` runs before
each page, but on a freshly started server a direct link such as `/scenario` can run
`pages/scenario.py` on its own: Streamlit treats a `pages/` folder as a legacy multipage app until
some session has called `st.navigation`. Creating the workspace lazily here, rather than only in
`app.py`, makes every page work either way.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

#: The single session-state key that holds the workspace.
WORKSPACE_KEY = "workspace"

DEFAULT_SCENARIO = "default"

#: Placeholder until the engine provides its Workspace (cluster, configuration, history, selections).
Workspace = dict[str, Any]


def new_workspace() -> Workspace:
    """A fresh workspace on the default scenario."""
    return {"scenario": DEFAULT_SCENARIO}


def get_workspace() -> Workspace:
    """Return this session's workspace, creating it on first use."""
    if WORKSPACE_KEY not in st.session_state:
        st.session_state[WORKSPACE_KEY] = new_workspace()
    return st.session_state[WORKSPACE_KEY]
