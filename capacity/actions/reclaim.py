"""reclaim: starving jobs take resources back from other queues (reclaim.go; spec §7.4).

Never binds: at most pipelines the reclaimer, evicting victims until it fits; commits per job only
when JobPipelined holds, otherwise every eviction is rolled back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from capacity.framework.heap import PriorityQueue
from capacity.framework.session import UNRESOLVABLE, Session
from capacity.framework.statement import Statement
from capacity.model import Job, Node, QueueSpec, Task, TaskStatus
from capacity.nodefit import unresolvable_mask
from capacity.resources import ZERO


def execute(ssn: Session) -> None:
    queues: PriorityQueue[QueueSpec] = PriorityQueue(ssn.queue_order_fn)
    queued: set[str] = set()
    preemptors: dict[str, PriorityQueue[Job]] = {}
    task_queues: dict[str, PriorityQueue[Task]] = {}
    for job in ssn.jobs.values():
        if job.is_pending():
            continue
        valid, _ = ssn.job_valid(job)
        if not valid:
            continue
        queue = ssn.queues.get(job.queue)
        if queue is None:
            continue
        if queue.name not in queued:
            queued.add(queue.name)
            queues.push(queue)
        if ssn.job_starving(job):
            preemptors.setdefault(queue.name, PriorityQueue(ssn.job_order_fn)).push(job)
            tq: PriorityQueue[Task] = PriorityQueue(ssn.task_order_fn)
            for t in job.tasks_in(TaskStatus.PENDING):
                if not t.sch_gated:
                    tq.push(t)
            task_queues[job.uid] = tq
    while not queues.empty():
        queue = queues.pop()
        if ssn.overused(queue):
            ssn.trace.event("queueOverused", queue.name, True)
            continue
        jobs = preemptors.get(queue.name)
        while jobs:
            job = jobs.pop()
            stmt = Statement(ssn)
            tasks = task_queues[job.uid]
            while ssn.job_starving(job) and not tasks.empty():
                task = tasks.pop()
                if task.spec.preemption_policy == "Never":
                    ssn.trace.event("preemptionPolicyNever", task.key, False)
                    continue
                if not ssn.preemptive(queue, [task]):
                    ssn.trace.event("notPreemptive", task.key, False, queue=queue.name)
                    continue
                if ssn.pre_predicate(task):
                    continue
                reclaim_for_task(ssn, stmt, task, job)
            if ssn.job_pipelined(job):
                stmt.commit()
            else:
                stmt.discard()
            if jobs:
                queues.push(queue)  # harmless, as in Volcano: popped again it has no jobs left


def reclaim_for_task(ssn: Session, stmt: Statement, task: Task, job: Job) -> bool:
    fit_errors = job.nodes_fit_errors.get(task.uid) or {}
    candidates = _candidate_nodes(ssn, task, job, fit_errors)
    if candidates is None:
        nodes = [n for n in ssn.node_list
                 if not (n.name in fit_errors and fit_errors[n.name].code == UNRESOLVABLE)]
        candidates = [n for n in nodes if ssn.predicate_for_preempt(task, n) is None]
    for node in candidates:
        reclaimees: list[Task] = []
        for nt in node.tasks.values():
            t = ssn.all_tasks.get(nt.uid)
            if t is None or t.status != TaskStatus.RUNNING or not t.preemptable:
                continue
            vjob = ssn.jobs.get(t.job)
            if vjob is None or vjob.queue == job.queue:
                continue
            vqueue = ssn.queues.get(vjob.queue)
            if vqueue is None or not vqueue.reclaimable:
                continue
            reclaimees.append(t)
        if not reclaimees:
            continue
        reclaimees = ssn.victims_in_order(reclaimees, task)
        victims = ssn.reclaimable(task, reclaimees) or []
        if not validate_victims(task, node, victims):
            ssn.trace.event("victimsInsufficient", task.key, node.name, victims=[v.key for v in victims])
            continue
        avail = node.future_idle()
        node_stmt = Statement(ssn)
        evicted = False
        for v in ssn.victims_in_order(victims, task):
            if task.init_resreq.less_equal(avail, ZERO):
                break
            node_stmt.evict(v, "reclaim")
            avail.add(v.resreq)
            evicted = True
        if not task.init_resreq.less_equal(avail, ZERO):
            node_stmt.discard()
            continue
        node_stmt.pipeline(task, node.name, evicted)
        stmt.merge(node_stmt)
        return True
    return False


def _candidate_nodes(ssn: Session, task: Task, job: Job, fit_errors: Mapping[str, Any]) -> list[Node] | None:
    """The nodes the loop above visits, with NodeFit: not unresolvable, passing PredicateForPreemptAction,
    and holding a preemptable Bound/Running task of another queue (elsewhere the reclaimee list is empty
    and the node is passed over without a trace). With tracing off also only nodes where the task fits
    FutureIdle plus all those tasks' requests: elsewhere no victim set validates, and the node is passed
    over with only a trace record. None: use the per-node reference."""
    fit = ssn.node_fit()
    if fit is None:
        return None
    keep = ~unresolvable_mask(fit, fit_errors)
    pv = ssn.predicate_vector(task, keep)
    if pv is None:
        return None
    keep &= ~pv.unresolvable & (fit.victims_outside_queue(job.queue) > 0)
    if fit.exact and not ssn.trace.enabled and keep.any():
        keep &= fit.fit(task.init_resreq, fit.bound(fit.victim_sums_outside_queue(job.queue)))[0]
    return [ssn.node_list[i] for i in np.flatnonzero(keep).tolist()]


def validate_victims(task: Task, node, victims: list[Task]) -> bool:  # noqa: ANN001
    """ValidateVictims: the preemptor fits FutureIdle plus everything the victims free."""
    avail = node.future_idle()
    for v in victims:
        avail.add(v.resreq)
    return task.init_resreq.less_equal(avail, ZERO)
