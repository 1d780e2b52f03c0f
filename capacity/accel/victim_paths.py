"""reclaim's and preempt's node loops from NodeFit and the VictimTable: ReferenceVictims' answers, for all
nodes at once (Acceleration.node_fit, victim_bounds).

The same nodes in the same order, the same ones passed over on the room bound and named in the same
record (capacity.accel.victim_bound); with tracing off the bound counts only the victims the plugins'
bounds allow (`possible`). Where NodeFit cannot answer, the reference loops run, with that bound.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from capacity.accel.nodefit import CandidateList, NodeErrors, NodeFit, unresolvable_mask
from capacity.accel.victim_bound import bound_for, victim_table
from capacity.core.model import Job, Node, Task
from capacity.framework.extension_points import (
    NodeBound,
    ReferenceVictims,
    Skipped,
    VictimFilter,
    num_feasible_nodes_to_find,
)

if TYPE_CHECKING:
    from capacity.accel.session import AcceleratedSession as Session

_NOWHERE = np.zeros(0, dtype=np.intp)


class AcceleratedVictims(ReferenceVictims):
    """VictimPaths from NodeFit's vectors and the session's VictimTable."""

    __slots__ = ()
    ssn: Session  # (the accelerated session: its NodeFit and victim bounds)

    def __init__(self, ssn: Session) -> None:
        super().__init__(ssn)

    def possible(self, point: str, task: Task) -> Any:
        return bound_for(self.ssn, point, task)

    def reclaim_nodes(self, task: Task, job: Job, reclaimees: Callable[[Node], list[Task]],
                      skipped: Skipped) -> Iterator[tuple[Node, list[Task]]]:
        ssn = self.ssn
        fit_errors = job.nodes_fit_errors.get(task.uid) or {}
        plan = fast_plan(ssn, task, job, fit_errors, self.possible("reclaimable", task))
        if plan is None:
            yield from super().reclaim_nodes(task, job, reclaimees, skipped)
            return
        visit, passed = plan
        named = 0  # how many of `passed` (NodeList order) are in `skipped` so far: those before the node visited
        for i in visit.tolist():
            if skipped.tracing:  # (the names are for the record only)
                below = int(np.searchsorted(passed, i))
                skipped.extend([ssn.node_list[k].name for k in passed[named:below].tolist()])
                named = below
            node = ssn.node_list[i]
            yield node, reclaimees(node)
        if skipped.tracing:
            skipped.extend([ssn.node_list[k].name for k in passed[named:].tolist()])

    def preempt_predicate_nodes(self, task: Task, error_cache: dict[str, Any], use_cache: bool) -> Sequence[Node]:
        fit = self.ssn.node_fit()
        if fit is not None:
            vector = _predicate_nodes_vector(self.ssn, fit, task, error_cache, use_cache)
            if vector is not None:
                return vector
        return super().preempt_predicate_nodes(task, error_cache, use_cache)

    def node_bound(self, task: Task, nodes: Sequence[Node], keep: VictimFilter) -> NodeBound:
        return TableBound(self.ssn, task, nodes, keep, self.possible("preemptable", task))

    def nodes_by_score(self, task: Task, nodes: Sequence[Node]) -> Sequence[Node]:
        ssn = self.ssn
        idx = getattr(nodes, "idx", None)
        if idx is not None and ssn.node_fit() is not None:
            order = np.argsort(-ssn.node_scores_vector(task, idx), kind="stable")
            return CandidateList(ssn.node_list, idx[order])
        return super().nodes_by_score(task, nodes)


class TableBound(NodeBound):
    """NodeBound for all nodes at once from the VictimTable (`plan`), with `has` telling the nodes without
    any candidate; node by node where NodeFit's sums are not exact."""

    __slots__ = ("_shortcut", "_empty")

    def __init__(self, ssn: Session, task: Task, nodes: Sequence[Node], keep: VictimFilter, possible: Any) -> None:
        super().__init__(ssn, task, keep, possible)
        self._shortcut: list[bool] | None = None
        self._empty: list[bool] | None = None
        fit = ssn.node_fit()
        if fit is None or not fit.exact or not self.exact:
            return
        idx = getattr(nodes, "idx", None)
        if idx is None:
            idx = np.array([n.index for n in nodes], dtype=np.intp)
        among = np.zeros(fit.n, dtype=bool)
        among[idx] = True
        table = victim_table(ssn, fit)
        rows = table.preemptees(ssn, keep.preemptor, keep.queue, keep.preemptor.job)
        self.has, self.room = table.plan(task, rows, among, possible)
        if ssn.shortcuts:
            self._shortcut = (self.room & ~self.has).tolist()
            self._empty = (~self.has).tolist()

    def visits_none(self, nodes: Sequence[Node], skipped: Skipped) -> bool:
        room = self.room
        if room is None or self.has is None:
            return False
        idx = getattr(nodes, "idx", None)
        if idx is None or room[idx].any():
            return False
        if skipped.tracing:  # (the names are for the record only)
            skipped.extend([self.ssn.node_list[i].name for i in np.sort(idx).tolist()])
        return True

    def needs_no_victim(self, node: Node) -> bool:
        shortcut = self._shortcut
        return shortcut is not None and shortcut[node.index]

    def holds_no_candidate(self, node: Node) -> bool:
        empty = self._empty
        return empty is not None and empty[node.index]


def fast_plan(ssn: Session, task: Task, job: Job, fit_errors: Mapping[str, Any],
              possible: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """reclaim's node choices with NodeFit, or None to run the reference loop.

    Among the nodes not unresolvable and passing PredicateForPreemptAction, in NodeList order: the
    positions to visit (holding reclaimees, and room on the bound) and those passed over on the bound.
    """
    fit = ssn.node_fit()
    if fit is None or not fit.exact or not ssn.victim_bound_exact():
        return None
    table = victim_table(ssn, fit)
    cand = table.reclaimees(ssn, job.queue)
    if possible is not None and table.room_nowhere(task, cand, possible, "reclaim"):
        # (no node to visit; the nodes passed over are named only in a trace, and with tracing on
        # `possible` is None)
        return _NOWHERE, _NOWHERE
    keep = ~unresolvable_mask(fit, fit_errors)
    pv = ssn.predicate_vector(task, keep)
    if pv is None:
        return None
    keep &= ~pv.unresolvable
    has, room = table.plan(task, cand, keep, possible, pool="reclaim")
    has &= keep
    return (has & room).nonzero()[0], (has & ~room).nonzero()[0]


def _predicate_nodes_vector(ssn: Session, fit: NodeFit, task: Task, error_cache: dict[str, Any],
                            use_cache: bool) -> Sequence[Node] | None:
    """preempt's predicate_nodes with NodeFit: the same nodes, the same cache entries (filled lazily)."""
    fit_errors = ssn.jobs[task.job].nodes_fit_errors.get(task.uid) or {}
    considered = ~unresolvable_mask(fit, fit_errors)
    limit = num_feasible_nodes_to_find(int(np.count_nonzero(considered)))
    group = f"{task.job}/{task.role}"
    cached = error_cache.get(group)
    if cached is not None and not isinstance(cached, NodeErrors):
        return None
    visit = considered
    if use_cache and bool(task.role) and cached is not None:
        visit = considered & ~cached.mask
    pv = ssn.predicate_vector(task, visit)
    if pv is None:
        return None
    fail = visit & pv.unresolvable
    ok = (visit & ~fail).nonzero()[0]
    if len(ok) >= limit > 0:
        ok = ok[:limit]
        fail[int(ok[-1]) + 1:] = False  # the loop stops at the limit-th feasible node
    if fail.any():
        if cached is None:
            cached = error_cache[group] = NodeErrors(fit)
        cached.add(fail, pv)
    return CandidateList(ssn.node_list, ok)
