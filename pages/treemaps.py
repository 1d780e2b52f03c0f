"""Treemaps: each queue's deserved, allocated, guarantee, capability or realCapability on one resource."""

from __future__ import annotations

import streamlit as st

from capacity.analysis.charts import TREEMAP_METRICS, overflow_message, resource_names, treemap
from ui.state import get_workspace
from ui.text import md_escape
from ui.views import treemap_levels
from ui.widgets import no_numbers_reason, queue_numbers_picker, scenario_caption

ws = get_workspace()

st.title("Treemaps")
scenario_caption(ws)
numbers = queue_numbers_picker(ws, key="treemaps_numbers")
if not numbers:
    st.info(no_numbers_reason(ws), icon=":material/info:")
    st.stop()

metric = st.radio("Quantity", TREEMAP_METRICS, horizontal=True, key="treemap_metric")
resource = st.radio("Resource", resource_names(numbers), horizontal=True, key="treemap_resource",
                    format_func=md_escape)
styles = ws.cluster.unit_styles
tm = treemap(numbers, metric, resource, styles)
if tm.branchvalues == "remainder":
    st.warning(md_escape(overflow_message(tm, numbers, metric, resource, styles)), icon=":material/warning:")
if tm.empty:
    st.info(f"Every queue's {metric} on {md_escape(resource)} is zero: there is nothing to draw.",
            icon=":material/info:")
levels = treemap_levels(tm.figure, len(numbers))  # a large tree: a few levels at a time, opened by clicking
if levels:
    st.caption(levels)
st.plotly_chart(tm.figure, key="treemap", width="stretch")
when = st.session_state.get("treemaps_numbers", 0)
st.caption(("Numbers at the opening of the next session. " if not when else
            f"Numbers at the end of cycle {when}, as it closed. ") +
           "Tile size: the quantity; colour: the queue's share (allocated / deserved on its dominant dimension, "
           "1 = at deserved). Hover a tile for the exact value.")
