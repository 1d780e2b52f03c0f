"""nodeorder: the node scores that differ between ordinary nodes (spec actions-framework §8.3).

LeastAllocated and BalancedAllocation, computed on the Kubernetes mirror of each node exactly as
kube-scheduler does (integer arithmetic where it uses integers), each times its configured weight.
The same scores for many nodes at once: capacity.accel.nodeorder_vector.
"""

from __future__ import annotations

from capacity.core.model import Node, Task
from capacity.core.resources import Resource
from capacity.framework.session import Session
from capacity.plugins.base import Plugin

DEFAULT_MILLI_CPU = 100.0
DEFAULT_MEMORY = 200.0 * 1024 * 1024
GPU = "nvidia.com/gpu"
def _nonzero(task: Task) -> tuple[float, float]:
    r = task.resreq
    return (r.cpu if r.cpu > 0 else DEFAULT_MILLI_CPU, r.memory if r.memory > 0 else DEFAULT_MEMORY)


class NodeOrderPlugin(Plugin):
    name = "nodeorder"

    def on_session_open(self, ssn: Session) -> None:
        self.ssn = ssn
        w = self.args
        self.least_weight = _weight(w, "leastrequested.weight", 1)
        self.most_weight = _weight(w, "mostrequested.weight", 0)
        self.balanced_weight = _weight(w, "balancedresource.weight", 1)
        ssn.add_fn("nodeOrder", self.name, self.score)

    def score(self, task: Task, node: Node) -> float:
        total = 0.0
        if self.least_weight:
            total += self.least_allocated(task, node) * self.least_weight
        if self.most_weight:
            total += self.most_allocated(task, node) * self.most_weight
        if self.balanced_weight:
            total += self.balanced(task, node) * self.balanced_weight
        return total

    def _requested(self, task: Task, node: Node) -> tuple[float, float]:
        cpu, mem = _nonzero(task)
        for t in node.mirror.values():
            c, m = _nonzero(t)
            cpu += c
            mem += m
        return cpu, mem

    def least_allocated(self, task: Task, node: Node) -> int:
        cpu, mem = self._requested(task, node)
        return least_requested(node.allocatable.cpu, cpu, node.allocatable.memory, mem)

    def most_allocated(self, task: Task, node: Node) -> int:
        cpu, mem = self._requested(task, node)
        return most_requested(node.allocatable.cpu, cpu, node.allocatable.memory, mem)

    def balanced(self, task: Task, node: Node) -> int:
        r = task.resreq
        mirror = node.mirror.values()
        a = node.allocatable
        return balanced_allocation(r, a.cpu, sum(t.resreq.cpu for t in mirror) + r.cpu,
                                   a.memory, sum(t.resreq.memory for t in mirror) + r.memory,
                                   a.get(GPU), sum(t.resreq.get(GPU) for t in mirror) + r.get(GPU))


def least_requested(alloc_cpu: float, req_cpu: float, alloc_mem: float, req_mem: float) -> int:
    """LeastAllocated: 50 per resource the node has, times the free share in whole percent."""
    score = weight = 0
    if alloc_cpu > 0:
        weight = 50
        if req_cpu <= alloc_cpu:
            score = 50 * (int(alloc_cpu - req_cpu) * 100 // int(alloc_cpu))
    if alloc_mem > 0:
        weight += 50
        if req_mem <= alloc_mem:
            score += 50 * (int(alloc_mem - req_mem) * 100 // int(alloc_mem))
    return score // weight if weight else 0


def most_requested(alloc_cpu: float, req_cpu: float, alloc_mem: float, req_mem: float) -> int:
    """MostAllocated: 50 per resource the node has, times the used share in whole percent."""
    score = 0
    weight = 0
    for alloc, req in ((alloc_cpu, req_cpu), (alloc_mem, req_mem)):
        if alloc <= 0:
            continue
        weight += 50
        score += 50 * (int(min(req, alloc)) * 100 // int(alloc))
    return score // weight if weight else 0


def balanced_allocation(r: Resource, alloc_cpu: float, used_cpu: float, alloc_mem: float, used_mem: float,
                        alloc_gpu: float, used_gpu: float) -> int:
    """BalancedAllocation: 100 x (1 - the standard deviation of the used fractions); `used_*` already
    include the task's own request, GPU counts only if the task asks for some."""
    req_gpu = r.get(GPU)
    if r.cpu == 0 and r.memory == 0 and req_gpu == 0:
        return 0
    fractions = []
    if alloc_cpu > 0:
        fractions.append(min(1.0, used_cpu / alloc_cpu))
    if alloc_mem > 0:
        fractions.append(min(1.0, used_mem / alloc_mem))
    if req_gpu != 0 and alloc_gpu > 0:
        fractions.append(min(1.0, used_gpu / alloc_gpu))
    if len(fractions) == 2:
        std = abs(fractions[0] - fractions[1]) / 2
    elif len(fractions) > 2:
        mean = sum(fractions) / len(fractions)
        std = (sum((f - mean) ** 2 for f in fractions) / len(fractions)) ** 0.5
    else:
        std = 0.0
    return int((1 - std) * 100)


def _weight(args: dict, key: str, default: int) -> int:
    v = args.get(key)
    return v if isinstance(v, int) and not isinstance(v, bool) else default
