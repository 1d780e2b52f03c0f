"""binpack: prefer nodes that the task fills up (pkg/scheduler/plugins/binpack/binpack.go).

Spec actions-framework §8.3 and §9.5. For every dimension the task requests (> 0) that has a weight
(cpu, memory, and the names listed in `binpack.resources`), add
`w × (request + node.Used) / node.Allocatable`, or 0 for that dimension when it would not fit or the
node has none of it (its weight still counts); the node's score is `Σ / Σw × 100 × binpack.weight`.
`Used` is Volcano's node accounting: Releasing tasks count, Pipelined ones do not.
The same scores for many nodes at once: capacity.accel.binpack_vector.
"""

from __future__ import annotations

from typing import Any

from capacity.core.conf import get_int
from capacity.core.model import Node, Task
from capacity.framework.session import Session
from capacity.plugins.base import Plugin

MAX_NODE_SCORE = 100

WEIGHT = "binpack.weight"
CPU = "binpack.cpu"
MEMORY = "binpack.memory"
RESOURCES = "binpack.resources"
RESOURCES_PREFIX = RESOURCES + "."


def calculate_weights(args: dict[str, Any], notes: list[str] | None = None) -> tuple[int, dict[str, int]]:
    """calculateWeight: (binpack.weight, per-resource weights). Integers only (Arguments.GetInt); a
    negative cpu/memory/resource weight falls back to 1, a negative binpack.weight is kept."""

    def get(key: str, default: int) -> int:
        v, warn = get_int(args, key, default)
        if warn and notes is not None:
            notes.append(f"binpack: {warn}")
        return v

    weight = get(WEIGHT, 1)
    cpu = get(CPU, 1)
    if cpu < 0:
        cpu = 1
    memory = get(MEMORY, 1)
    if memory < 0:
        memory = 1
    raw = args.get(RESOURCES)
    if raw is not None and not isinstance(raw, str) and notes is not None:
        notes.append(f"binpack: {RESOURCES} must be a comma-separated string, got {raw!r}; Volcano ignores it")
    resources: dict[str, int] = {}
    for name in (raw if isinstance(raw, str) else "").split(","):
        name = name.strip()
        if not name:
            continue
        w = get(RESOURCES_PREFIX + name, 1)
        resources[name] = 1 if w < 0 else w
    resources["cpu"] = cpu
    resources["memory"] = memory
    return weight, resources


def resource_score(requested: float, capacity: float, used: float, weight: int) -> float:
    """ResourceBinPackingScore: (requested + used) × weight / capacity, 0 if it does not fit."""
    if capacity == 0 or weight == 0:
        return 0.0
    used_finally = requested + used
    if used_finally > capacity:
        return 0.0
    return used_finally * float(weight) / capacity


class BinpackPlugin(Plugin):
    name = "binpack"

    def on_session_open(self, ssn: Session) -> None:
        self.ssn = ssn
        self.weight, self.resources = calculate_weights(self.args, ssn.notes)
        if self.weight != 0:
            ssn.add_fn("nodeOrder", self.name, self.score)

    def score(self, task: Task, node: Node) -> float:
        """BinPackingScore."""
        total = 0.0
        weight_sum = 0
        req = task.resreq
        for rn in req.resource_names():
            request = req.get(rn)
            if request == 0:
                continue
            w = self.resources.get(rn)
            if w is None:
                continue
            total += resource_score(request, node.allocatable.get(rn), node.used.get(rn), w)
            weight_sum += w
        if weight_sum > 0:
            total /= float(weight_sum)
        return total * float(MAX_NODE_SCORE * self.weight)
