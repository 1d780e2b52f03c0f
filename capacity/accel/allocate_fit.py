"""allocate's and backfill's node choice from NodeFit: ReferencePlacement's answers, from vectors.

With a NodeFit, predicate_nodes over the whole NodeList answers with a CandidateList of the task's
Placement (its errors built only if read: DeferredErrors), and choose_node reads that Placement's scores
straight away; traced or not, the same code runs (the trace only records). Where NodeFit cannot answer
(no NodeFit, a plugin without a vector form, a task without a placement key), the reference loop does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from capacity.accel.fit_report import fit_report
from capacity.accel.nodefit import CandidateList, DeferredErrors, FitErrors, NodeFit, Placement
from capacity.core.model import FitError, Node, Task
from capacity.core.trace import NodeNames
from capacity.framework.extension_points import TIE_NOTE, ReferencePlacement

if TYPE_CHECKING:
    from capacity.accel.session import AcceleratedSession as Session

_NO_SCORE = float("-inf")  # a Placement's score where the node is not in the gradient


class AcceleratedPlacement(ReferencePlacement):
    """NodePlacement from NodeFit (Acceleration.node_fit)."""

    __slots__ = ()
    ssn: Session  # (the accelerated session: its NodeFit and victim bounds)

    def __init__(self, ssn: Session) -> None:
        super().__init__(ssn)

    def predicate_nodes(self, task: Task, nodes: list[Node]) -> tuple[Sequence[Node], Mapping[str, FitError]]:
        if nodes is self.ssn.node_list:
            fast = _predicate_all_nodes(self.ssn, task)
            if fast is not None:
                return fast
        return super().predicate_nodes(task, nodes)

    def choose_node(self, task: Task, candidates: Sequence[Node]) -> tuple[Node | None, bool]:
        ssn = self.ssn
        fit = ssn.node_fit() if isinstance(candidates, CandidateList) else None
        if fit is None:
            return super().choose_node(task, candidates)
        assert isinstance(candidates, CandidateList)
        placement = candidates.placement
        if placement is not None and candidates.version == len(fit.log):
            return _choose_from_placement(ssn, task, placement)
        return _choose_node_vector(ssn, fit, task, candidates.idx)

    def fit_report(self, errors: Mapping[str, FitError], total: int) -> tuple[str, Mapping[str, str]]:
        return fit_report(errors, total)

    def backfill_nodes(self, task: Task) -> Sequence[Node]:
        pv = self.ssn.predicate_vector(task)
        if pv is None:
            return super().backfill_nodes(task)
        return CandidateList(self.ssn.node_list, np.flatnonzero(pv.passed))


def _candidate_placement(fit: NodeFit, task: Task) -> Placement | None:
    """The task's current Placement if it has a candidate (no list of them needed to know: the first)."""
    placement = fit.placement(task)
    if placement is None:
        return None
    cand = placement.cand
    return placement if cand[int(cand.argmax())] else None


def _predicate_all_nodes(ssn: Session, task: Task) -> tuple[Sequence[Node], Mapping[str, FitError]] | None:
    """predicate_nodes over the whole NodeList with NodeFit: the same answers, errors built on demand."""
    fit = ssn.node_fit()
    if fit is None:
        return None
    placement = _candidate_placement(fit, task)
    if placement is not None:
        version = len(fit.log)
        return (CandidateList(ssn.node_list, None, placement, version),
                DeferredErrors(lambda: _fit_errors(ssn, fit, task), fit, version))
    return _fit_errors(ssn, fit, task)


def _fit_errors(ssn: Session, fit: NodeFit, task: Task) -> tuple[CandidateList, FitErrors] | None:
    fits, failures = fit.fit(task.init_resreq, fit.fi)
    pv = ssn.predicate_vector(task, fits)
    if pv is None:
        return None
    return CandidateList(ssn.node_list, np.flatnonzero(fits & pv.passed)), FitErrors(fit, fits, failures, pv)


def _choose_node_vector(ssn: Session, fit: NodeFit, task: Task, idx: np.ndarray) -> tuple[Node | None, bool]:
    """choose_node on NodeList positions: the first best score of the first non-empty gradient."""
    in_idle, _ = fit.fit(task.init_resreq, fit.idle, idx)
    for gradient, pipelined in ((idx[in_idle], False), (idx[~in_idle], True)):
        if not len(gradient):
            continue
        if len(gradient) == 1:
            return ssn.node_list[int(gradient[0])], pipelined
        scores = ssn.node_scores_vector(task, gradient)
        k = int(scores.argmax())
        if ssn.trace.enabled:
            tied = gradient[scores == scores[k]]
            if len(tied) > 1:
                ssn.trace.event("scoreTie", task.key, fit.names[int(tied[0])], tied=NodeNames(fit.names, tied),
                                note=TIE_NOTE)
        return ssn.node_list[int(gradient[k])], pipelined
    return None, False


def _choose_from_placement(ssn: Session, task: Task, placement: Placement) -> tuple[Node | None, bool]:
    """choose_node from a current Placement: the first best score in G1, else in G2."""
    tracing = ssn.trace.enabled
    for scores, pipelined in ((placement.s1, False), (placement.s2, True)):
        k = int(scores.argmax())  # (the first best; the first NaN if any)
        best = scores.item(k)  # (a Python float: cheaper to compare than numpy's scalar)
        if best == _NO_SCORE:
            continue
        if tracing:
            # Every position scoring `best` (none before k: argmax finds the first), in one vectorised pass:
            # cheaper than a compiled scalar loop finding the best and its ties at once. (A NaN best: none.)
            tied = (scores == best).nonzero()[0]
            if len(tied) > 1:
                names = placement.fit.names
                ssn.trace.event_with("scoreTie", task.key, names[k], {"tied": NodeNames(names, tied), "note": TIE_NOTE})
        return ssn.node_list[k], pipelined
    return None, False
