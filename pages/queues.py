"""Queues: the queue tree and each queue's numbers, as the capacity plugin computes them."""

from __future__ import annotations

import streamlit as st

from capacity.charts import queue_rows, queue_tree_figure
from ui.state import get_workspace
from ui.views import queue_detail_rows
from ui.widgets import scenario_caption

ws = get_workspace()

st.title("Queues")
scenario_caption(ws)
numbers = ws.queue_numbers()
if not numbers:
    st.info("The scheduler configuration has no `capacity` plugin, so there are no deserved / realCapability "
            "numbers to show. Queues as written in the scenario:", icon=":material/info:")
    st.dataframe(
        [{"queue": q.name, "parent": q.parent, "weight": q.weight, "state": q.state}
         for q in ws.cluster.queues.values()],
        hide_index=True, key="queue_specs",
    )
    st.stop()

st.caption("Numbers as a new scheduling session opens them on the current cluster (what the next cycle starts "
           "from). Colour: share = allocated / deserved on the dominant dimension (1 = at deserved).")
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
