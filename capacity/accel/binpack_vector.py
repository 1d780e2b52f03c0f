"""binpack's scores for many nodes at once, from NodeFit's Allocatable and Used columns: the NodeVector form
of BinpackPlugin.score (capacity.plugins.binpack), registered through Session.add_fast
(capacity.accel.plugin_forms) when the engine has node_fit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from capacity.accel.session import AcceleratedSession

import numpy as np

from capacity.core.model import Task
from capacity.plugins.binpack import MAX_NODE_SCORE, BinpackPlugin


class BinpackVector:
    """BinpackPlugin.score for the nodes at NodeList positions, for one session's plugin."""

    def __init__(self, plugin: BinpackPlugin) -> None:
        self.ssn: AcceleratedSession = cast("AcceleratedSession", plugin.ssn)
        self.weight = plugin.weight
        self.resources = plugin.resources

    def score_vector(self, task: Task, idx: np.ndarray) -> np.ndarray | None:
        """`score` for the nodes at NodeList positions idx, from NodeFit's Allocatable and Used columns."""
        fit = self.ssn.node_fit()
        if fit is None:
            return None
        total = np.zeros(len(idx))
        weight_sum = 0
        req = task.resreq
        for rn in req.resource_names():
            request = req.get(rn)
            if request == 0:
                continue
            w = self.resources.get(rn)
            if w is None:
                continue
            c = fit.col.get(rn)
            capacity = fit.alloc[c, idx] if c is not None else np.zeros(len(idx))
            used = fit.used[c, idx] if c is not None else np.zeros(len(idx))
            used_finally = request + used
            keep = (capacity != 0) & (w != 0) & ~(used_finally > capacity)
            total += np.where(keep, used_finally * float(w) / np.where(keep, capacity, 1.0), 0.0)
            weight_sum += w
        if weight_sum > 0:
            total /= float(weight_sum)
        return total * float(MAX_NODE_SCORE * self.weight)
