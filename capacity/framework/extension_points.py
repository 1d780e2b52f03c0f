"""The typed extension points through which the actions reach acceleration (issue 28).

An action calls the same method in both engines: `ssn.placement` (allocate's and backfill's node choice)
and `ssn.victims` (the nodes reclaim and preempt visit). The classes here are the reference forms, plain
loops over the NodeList as Volcano writes them (its framework/util helpers: PredicateNodes,
PrioritizeNodes, SelectBestNode); the accelerated forms (capacity.accel.allocate_fit,
capacity.accel.victim_paths) subclass them and answer the same from NodeFit's vectors. Which class a
session holds is chosen once at open (SessionFast._open_fast), from the Acceleration.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

from capacity.core.model import UNSCHEDULABLE, FitError, Node, Task
from capacity.core.resources import ZERO

if TYPE_CHECKING:
    from capacity.framework.session import Session

TIE_NOTE = "Volcano picks at random among equal scores; Capacity Lab takes the first in node order"


class NodePlacement(Protocol):
    """Where a task may go and which node it gets (allocate, backfill)."""

    def predicate_nodes(self, task: Task, nodes: list[Node]) -> tuple[Sequence[Node], Mapping[str, FitError]]:
        """ph.PredicateNodes with allocate's predicate: the nodes passing it (NodeList order), the others'
        errors."""
        ...

    def choose_node(self, task: Task, candidates: Sequence[Node]) -> tuple[Node | None, bool]:
        """allocate's prioritizeNodes: the node, and whether the task is pipelined there (gradient G2)."""
        ...

    def fit_report(self, errors: Mapping[str, FitError], total: int) -> tuple[str, Mapping[str, str]]:
        """allocate's noFit record: fit_summary(errors, total) and every node's error as text."""
        ...

    def backfill_nodes(self, task: Task) -> Sequence[Node]:
        """backfill's candidates: the nodes passing PredicateForAllocateAction, in NodeList order."""
        ...


def fit_summary(errors: Mapping[str, FitError], total: int) -> str:
    """kube-scheduler style: '0/3 nodes are available: 2 Insufficient cpu, 1 node selector'."""
    counts: dict[str, int] = {}
    for e in errors.values():
        for r in e.reasons:
            counts[r] = counts.get(r, 0) + 1
    parts = ", ".join(f"{n} {r}" for r, n in sorted(counts.items(), key=lambda x: (-x[1], x[0])))
    return f"0/{total} nodes are available: {parts}" if parts else f"0/{total} nodes are available"


class ReferencePlacement:
    """NodePlacement as plain loops over the nodes, asking the plugins node by node."""

    __slots__ = ("ssn",)

    def __init__(self, ssn: Session) -> None:
        self.ssn = ssn

    def allocate_predicate(self, task: Task, node: Node) -> FitError | None:
        """allocate.go:985-993 @ed72c7c8: FutureIdle fit (pods included), then PredicateForAllocateAction."""
        fi = node.future_idle()
        if not task.init_resreq.less_equal(fi, ZERO):
            _, failed = task.init_resreq.less_equal_with_resources_name(fi, ZERO)
            return FitError(node.name, UNSCHEDULABLE, [f"Insufficient {n}" for n in failed])
        return self.ssn.predicate_for_allocate(task, node)

    def predicate_nodes(self, task: Task, nodes: list[Node]) -> tuple[Sequence[Node], Mapping[str, FitError]]:
        ok: list[Node] = []
        errors: dict[str, FitError] = {}
        for n in nodes:
            err = self.allocate_predicate(task, n)
            if err is None:
                ok.append(n)
            else:
                errors[n.name] = err
        return ok, errors

    def choose_node(self, task: Task, candidates: Sequence[Node]) -> tuple[Node | None, bool]:
        """Gradient G1 (fits Idle) then G2 (fits FutureIdle); a single node wins unscored (§8.2)."""
        ssn = self.ssn
        g1 = [n for n in candidates if task.init_resreq.less_equal(n.idle, ZERO)]
        g1_names = {n.name for n in g1}
        g2 = [n for n in candidates if n.name not in g1_names]
        for gradient, pipelined in ((g1, False), (g2, True)):
            if not gradient:
                continue
            if len(gradient) == 1:
                return gradient[0], pipelined
            scores = ssn.node_scores(task, gradient)
            best = max(scores.values())
            tied = [n for n in gradient if scores[n.name] == best]
            if len(tied) > 1:
                ssn.trace.event("scoreTie", task.key, tied[0].name, tied=[n.name for n in tied], note=TIE_NOTE)
            return tied[0], pipelined
        return None, False

    def fit_report(self, errors: Mapping[str, FitError], total: int) -> tuple[str, Mapping[str, str]]:
        return fit_summary(errors, total), {name: str(e) for name, e in errors.items()}

    def backfill_nodes(self, task: Task) -> Sequence[Node]:
        ssn = self.ssn
        return [n for n in ssn.node_list if ssn.predicate_for_allocate(task, n) is None]

