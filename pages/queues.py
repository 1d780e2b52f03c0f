"""Queues: the queue tree and each queue's numbers, as the queue plugin (capacity or proportion) computes them."""

from __future__ import annotations

import streamlit as st

from capacity.charts import queue_rows, queue_tree_figure
from ui.state import get_workspace
from ui.views import queue_detail_rows
from ui.widgets import no_numbers_reason, queue_numbers_picker, scenario_caption

ws = get_workspace()

st.title("Queues")
scenario_caption(ws)
numbers = queue_numbers_picker(ws, key="queues_numbers")
if not numbers:
    st.info(f"{no_numbers_reason(ws)} Queues as written in the scenario:", icon=":material/info:")
    st.dataframe(
        [{"queue": q.name, "parent": q.parent, "weight": q.weight, "state": q.state}
         for q in ws.cluster.queues.values()],
        hide_index=True, key="queue_specs",
    )
    st.stop()

st.caption("Colour: share = allocated / deserved on the dominant dimension (1 = at deserved).")
st.plotly_chart(queue_tree_figure(numbers), key="queue_tree", width="stretch")

st.subheader("All queues")
st.dataframe(
    queue_rows(numbers), hide_index=True, key="queue_table",
    column_config={"share": st.column_config.NumberColumn("share", format="%.3f"),
                   "depth": None},
)

st.subheader("One queue, per resource")
names = list(numbers)
leaves = [n for n in names if not any(numbers[o].get("parent") == n for o in names)]
choice = st.selectbox("Queue", names, index=names.index(leaves[0]) if leaves else 0, key="queue_choice")
q = numbers[choice]
st.markdown(f"**{choice}** · parent `{q.get('parent') or '-'}` · share **{float(q.get('share', 0.0)):.4g}**")
st.dataframe(queue_detail_rows(q), hide_index=True, key="queue_detail")
