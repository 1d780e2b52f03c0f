"""What one session's snapshot can hand to the next: empty nodes and NodeFit's node-only arrays.

A replayed cluster is mostly idle (openb: at most 56 pods at a time on 1,523 nodes), yet every session
built a `Node` per cluster node and NodeFit's columns for all of them, a third of each cycle. A
`SnapshotCache`, owned by whoever runs cycle after cycle on one cluster (the `Simulator`), keeps:

* the nodes a session left empty and untouched (no task ever added or removed), which are exactly what
  the next snapshot would build for a node without pods;
* per NodeList, what NodeFit derives from the nodes' allocatable alone (names, the allocatable table,
  the rows an empty node starts with).

Everything is checked before reuse (the same NodeObj and fields, the same allocatable objects), so a
changed cluster only costs a rebuild. Sessions without a cache build everything, as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from capacity.model import Node

if TYPE_CHECKING:
    from capacity.cluster import NodeObj


class SnapshotCache:
    """Reusable snapshot parts of one cluster, from one session to the next."""

    def __init__(self) -> None:
        self._free: dict[str, tuple[NodeObj, Node]] = {}
        self.node_base: Any = None  # capacity.nodefit.NodeBase of the last NodeList (NodeFit keeps it)
        self.plugin_state: dict[str, Any] = {}  # per plugin, what it keeps (each checks it still applies)

    def take(self, obj: NodeObj) -> Node | None:
        """The node the last session left empty and untouched for `obj`, if `obj` is unchanged since."""
        entry = self._free.pop(obj.name, None)
        if entry is None:
            return None
        was, node = entry
        if (was is not obj or node.labels is not obj.labels or node.allocatable is not obj.allocatable
                or node.taints is not obj.taints or node.unschedulable != obj.unschedulable):
            return None
        alloc, idle = obj.allocatable, node.idle
        if idle.cpu != alloc.cpu or idle.memory != alloc.memory or idle.scalars != alloc.scalars:
            return None  # the allocatable was changed in place
        return node

    def keep(self, objs: list[NodeObj], nodes: list[Node]) -> None:
        """After a session: keep its nodes that are still as the snapshot built them, without pods."""
        free = self._free
        free.clear()
        for obj, node in zip(objs, nodes, strict=True):
            if not node.touched and not node.tasks and not node.mirror:
                node.fit = None
                free[obj.name] = (obj, node)
