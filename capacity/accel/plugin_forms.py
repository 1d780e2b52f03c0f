"""Which plugin offers which accelerated form (capacity.framework.fast_forms), attached at session open through
`Session.add_fast` (issue 28): the plugins' own files register Volcano's functions only.

    gang         jobOrder OrderKey; preemptable and reclaimable PossibleVictims (a job's surplus)
    priority     jobOrder OrderKey; preemptable PossibleVictims (its rule, which reads no counters)
    conformance  preemptable and reclaimable PossibleVictims (critical pods never go)
    capacity     queueOrder OrderFn, OrderLess, OrderHeap; reclaimable PossibleVictims (accel/capacity_*.py)
    predicates   predicate NodeVector (accel/predicates_vector.py)
    nodeorder    nodeOrder NodeVector (accel/nodeorder_vector.py)
    binpack      nodeOrder NodeVector (accel/binpack_vector.py)

The reference engine (no node_fit, order_keys or victim_bounds) is handed none of them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import numpy as np

from capacity.core.model import Job, Task
from capacity.framework.fast_forms import FastForm, NodeVector, OrderFn, OrderHeap, OrderKey, OrderLess, PossibleVictims
from capacity.plugins.conformance import _critical

if TYPE_CHECKING:
    from capacity.accel.plugins import AcceleratedCapacityPlugin as CapacityPlugin
    from capacity.accel.session import AcceleratedSession as Session
    from capacity.plugins.binpack import BinpackPlugin
    from capacity.plugins.conformance import ConformancePlugin
    from capacity.plugins.gang import GangPlugin
    from capacity.plugins.nodeorder import NodeOrderPlugin
    from capacity.plugins.predicates import PredicatesPlugin
    from capacity.plugins.priority import PriorityPlugin

Offer = Callable[[Any, "Session"], Iterator[tuple[str, FastForm]]]
"""A plugin's forms: (its plugin instance, opened, and the session) -> (point, form) pairs."""


def attach(ssn: Session, name: str, plugin: Any) -> None:
    """Register the accelerated forms of `plugin` (opened as `name`) that the session's engine allows."""
    accel = ssn.accel
    if not (accel.node_fit or accel.order_keys or accel.victim_bounds):
        return
    offer = OFFERS.get(name)
    if offer is not None:
        for point, form in offer(plugin, ssn):
            ssn.add_fast(point, name, form)


# ---- gang (pkg/scheduler/plugins/gang/gang.go) ----------------------------------------------------------------
def gang_order_key(job: Job) -> bool:
    """GangPlugin.job_order as a key: jobs not ready yet first."""
    return job.ready_num + job.pending_best_effort_num >= job.min_available


_NO_JOB = SimpleNamespace(ready_num=1, min_available=0)
"""What `gang_possible_victims`' rows read for a job the session does not have: a surplus, as its test."""


def gang_possible_victims(ssn: Session, preemptor: Task) -> tuple[tuple[()], Callable[[Task], bool],
                                                                   Callable[[Any, np.ndarray], np.ndarray]]:
    """Bound on GangPlugin.victims: only a job already above minAvailable has a surplus to give."""
    jobs = ssn.jobs

    def test(t: Task) -> bool:
        job = jobs.get(t.job)
        return job is None or job.ready_task_num() > job.min_available

    def surplus_rows(table: Any, rows: np.ndarray) -> np.ndarray:
        """`test` for a VictimTable's rows at once: the answer per job of the table (one per job, not one
        per row, and kept while the job's counters do not move: VictimTable.job_answers), then per row."""
        get, uids = jobs.get, table.job_uids

        def answer(ids: np.ndarray) -> list[bool]:
            return [(j := get(uids[k], _NO_JOB)).ready_num > j.min_available for k in ids.tolist()]

        return table.job_answers(ssn, "gang.surplus", answer)[table.job[rows]]

    return (), test, surplus_rows


def _gang(plugin: GangPlugin, ssn: Session) -> Iterator[tuple[str, FastForm]]:
    possible = PossibleVictims(lambda preemptor: gang_possible_victims(ssn, preemptor))
    yield "preemptable", possible
    yield "reclaimable", possible
    yield "jobOrder", OrderKey(gang_order_key)


# ---- priority (pkg/scheduler/plugins/priority/priority.go) ----------------------------------------------------
def priority_key(job: Job) -> int:
    """PriorityPlugin's job order as a key: higher priority first."""
    return -job.priority


def priority_possible_victims(ssn: Session, preemptor: Task) -> tuple[Any, Callable[[Task], bool]]:
    """Bound on PriorityPlugin.preemptable: exactly its rule, which reads no counters."""
    jobs = ssn.jobs
    pjob = jobs.get(preemptor.job)

    def test(t: Task) -> bool:
        job = jobs.get(t.job)
        if job is None or pjob is None:
            return True
        if job.uid != pjob.uid:
            return job.priority < pjob.priority
        return t.priority < preemptor.priority

    key = None if pjob is None else (pjob.uid, pjob.priority, preemptor.priority)
    return key, test


def _priority(plugin: PriorityPlugin, ssn: Session) -> Iterator[tuple[str, FastForm]]:
    yield "jobOrder", OrderKey(priority_key)
    yield "preemptable", PossibleVictims(lambda preemptor: priority_possible_victims(ssn, preemptor))


# ---- conformance (pkg/scheduler/plugins/conformance/conformance.go) --------------------------------------------
def _not_critical(t: Task) -> bool:
    return not _critical(t)


def _not_critical_rows(table: Any, rows: Any) -> Any:
    return table.static_answers(_not_critical, rows)


def conformance_possible_victims(preemptor: Task) -> tuple[tuple[()], Callable[[Task], bool],
                                                           Callable[[Any, Any], Any]]:
    """Bound on ConformancePlugin.victims: critical pods never go. Being critical is a fixed fact of the
    pod, so a VictimTable keeps the answers for its rows (`static_answers`)."""
    return (), _not_critical, _not_critical_rows


def _conformance(plugin: ConformancePlugin, ssn: Session) -> Iterator[tuple[str, FastForm]]:
    possible = PossibleVictims(conformance_possible_victims)
    yield "preemptable", possible
    yield "reclaimable", possible


# ---- capacity (pkg/scheduler/plugins/capacity/capacity.go; the forms: accel/capacity_order.py, _bounds.py) ----
def _capacity(plugin: CapacityPlugin, ssn: Session) -> Iterator[tuple[str, FastForm]]:
    yield "queueOrder", OrderFn(plugin.queue_order)
    yield "queueOrder", OrderLess(plugin.queue_less)
    yield "queueOrder", OrderHeap(plugin.queue_heap)
    if not ssn.options.older("pr4919"):  # the bound reads today's rules; an older release has none
        yield "reclaimable", PossibleVictims(plugin.reclaimable_possible)


# ---- the vector forms over NodeFit ------------------------------------------------------------------------------
def _predicates(plugin: PredicatesPlugin, ssn: Session) -> Iterator[tuple[str, FastForm]]:
    from capacity.accel.predicates_vector import PredicatesVector
    vec = PredicatesVector(plugin)
    yield "predicate", NodeVector(vec.predicate_vector, vec.vector_key, vec.node_predicate)


def _nodeorder(plugin: NodeOrderPlugin, ssn: Session) -> Iterator[tuple[str, FastForm]]:
    from capacity.accel.nodeorder_vector import NodeOrderVector
    vec = NodeOrderVector(plugin)
    yield "nodeOrder", NodeVector(vec.score_vector, lambda task: (), vec.node_score)


def _binpack(plugin: BinpackPlugin, ssn: Session) -> Iterator[tuple[str, FastForm]]:
    if plugin.weight == 0:  # (then binpack registers no nodeOrder function)
        return
    from capacity.accel.binpack_vector import BinpackVector
    vec = BinpackVector(plugin)
    yield "nodeOrder", NodeVector(vec.score_vector, lambda task: ())


OFFERS: dict[str, Offer] = {
    "gang": _gang,
    "priority": _priority,
    "conformance": _conformance,
    "capacity": _capacity,
    "predicates": _predicates,
    "nodeorder": _nodeorder,
    "binpack": _binpack,
}
"""Per plugin name, its forms."""
