"""The accelerated engine's plugins: where a reference plugin (capacity.plugins) has parts that only an accelerated
session uses, its subclass composed of them (issue 28). The scheduler (capacity.scheduler) opens these in place of
the reference classes of the same name unless the engine switch says `reference`.

    capacity    AcceleratedCapacityPlugin: a memoised queue order (accel/capacity_order.py), victim bounds
                (accel/capacity_bounds.py), the reuse of an earlier session's queue tree and exact leaf-by-leaf
                sums (accel/capacity_open.py)
    predicates  AcceleratedPredicatesPlugin: keeps the NodeFit's copy of each node's Kubernetes mirror current

The plugins' accelerated forms (order keys, vector forms, victim bounds) are attached through Session.add_fast by
accel/plugin_forms.py.
"""

from __future__ import annotations

from typing import Any

from capacity.accel.capacity_bounds import CapacityVictimBounds
from capacity.accel.capacity_open import CapacityOpenReuse
from capacity.accel.capacity_order import CapacityOrderMemo
from capacity.core.model import Task
from capacity.plugins.capacity import CapacityPlugin
from capacity.plugins.predicates import PredicatesPlugin


class AcceleratedCapacityPlugin(CapacityOpenReuse, CapacityOrderMemo, CapacityVictimBounds, CapacityPlugin):
    """CapacityPlugin with its acceleration: every override answers as the reference method it replaces
    (tests/unit/test_engines_agree.py, tests/unit/test_capacity_open_fast.py)."""


class AcceleratedPredicatesPlugin(PredicatesPlugin):
    """PredicatesPlugin whose allocate / deallocate events, after the mirror change predicates.go makes, pass it
    on to the node's NodeFit (accel/nodefit.py), whose vector predicates read the mirror in bulk."""

    def _on_allocate(self, task: Task) -> None:
        node = self.ssn.nodes.get(task.node_name)
        old = node.mirror.get(task.key) if node is not None else None
        super()._on_allocate(task)
        if node is not None and node.fit is not None:
            node.fit.mirror_changed(node, old, task)

    def _on_deallocate(self, task: Task) -> None:
        node = self.ssn.nodes.get(task.node_name)
        old = node.mirror.get(task.key) if node is not None else None
        super()._on_deallocate(task)
        if node is not None and node.fit is not None and old is not None:
            node.fit.mirror_changed(node, old, None)


ACCELERATED_PLUGINS: dict[str, type[Any]] = {cls.name: cls for cls in (AcceleratedCapacityPlugin,
                                                                      AcceleratedPredicatesPlugin)}
"""Per plugin name, the class an accelerated session opens instead of capacity.plugins.REGISTRY's."""
