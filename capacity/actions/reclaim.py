"""reclaim: starving jobs take resources back from other queues (reclaim.go; spec §7.4).

Never binds: at most pipelines the reclaimer, evicting victims until it fits; commits per job only
when JobPipelined holds, otherwise every eviction is rolled back.
"""

from __future__ import annotations

from capacity.actions.queue_change import file_eviction, file_placement, queues_now
from capacity.core.model import Job, Node, QueueSpec, Task, TaskStatus
from capacity.core.resources import ZERO, Resource, to_dict
from capacity.framework.extension_points import Skipped
from capacity.framework.heap import PriorityQueue
from capacity.framework.session import Session
from capacity.framework.statement import Statement


def execute(ssn: Session) -> None:
    # The queues in the order Volcano pushes them; pushed into the heap only once the loop is over (nothing
    # in it changes a queue's share, so the comparisons are the same), and not at all when no job is
    # starving and the JobLists allow it (reclaim_skips_queues): the heap would only be popped again for nothing.
    pushed: list[QueueSpec] = []
    queued: set[str] = set()
    preemptors: dict[str, PriorityQueue[Job]] = {}
    task_queues: dict[str, PriorityQueue[Task]] = {}
    # reclaim.go:L72-104 @ed72c7c8 ranges over ssn.Jobs (an accelerated engine, untraced, over those that can
    # change what is pushed: framework.extension_points.JobLists; `queued` is read as the loop goes).
    for job in ssn.job_lists.reclaim_jobs(queued):
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
            pushed.append(queue)
        if ssn.job_starving(job):
            preemptors.setdefault(queue.name, PriorityQueue(ssn.job_less())).push(job)
            tq: PriorityQueue[Task] = PriorityQueue(ssn.task_less())
            for t in job.tasks_in(TaskStatus.PENDING):
                if not t.sch_gated:
                    tq.push(t)
            task_queues[job.uid] = tq
    if not preemptors and ssn.job_lists.reclaim_skips_queues():
        return  # the loop below would only ask each queue `overused`, whose answer then has no effect
    queues: PriorityQueue[QueueSpec] = PriorityQueue(ssn.queue_less(), pushed)
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
            elif ssn.options.older("pr4794"):  # reclaim.go:L194-211 @v1.13.0 evicted at once, no statement
                if ssn.trace.enabled and stmt.operations:
                    ssn.trace.event("evictionsKept", job.uid, True, words=ssn.options.older_words("pr4794"),
                                    switch="pr4794")
                stmt.commit()
            else:
                stmt.discard()
            if jobs:
                queues.push(queue)  # harmless, as in Volcano: popped again it has no jobs left


def reclaim_for_task(ssn: Session, stmt: Statement, task: Task, job: Job) -> bool:
    """The node loop of reclaim.go for one task: the first node where the victims make room wins.

    Nodes without reclaimees are passed over silently, as in Volcano; nodes where the task does not fit
    FutureIdle even if every reclaimee left (with tracing off: every reclaimee the plugins could allow)
    are passed over too, with one record for all of them (ssn.victims.reclaim_nodes).
    """
    skipped = Skipped(ssn)
    for node, reclaimees in ssn.victims.reclaim_nodes(task, job, lambda n: _reclaimees(ssn, n, job), skipped):
        if _reclaim_on(ssn, stmt, task, node, reclaimees):
            _file(ssn, skipped, task)
            return True
    _file(ssn, skipped, task)
    return False


def _file(ssn: Session, skipped: Skipped, task: Task) -> None:
    skipped.file(ssn, "victimsInsufficient", task, "the task does not fit FutureIdle even if every running "
                 "preemptable pod of other queues there left")


def _reclaimees(ssn: Session, node: Node, job: Job) -> list[Task]:
    """The node's Running, preemptable tasks of other, reclaimable queues (session tasks, node order)."""
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
    return reclaimees


def _reclaim_on(ssn: Session, stmt: Statement, task: Task, node: Node, reclaimees: list[Task]) -> bool:
    """One node: the plugins' victims, ValidateVictims, then evict in victim order until the task fits."""
    reclaimees = ssn.victims_in_order(reclaimees, task)
    victims = ssn.reclaimable(task, reclaimees) or []
    if not validate_victims(task, node, victims):
        if ssn.trace.enabled:
            ssn.trace.event("victimsInsufficient", task.key, node.name, victims=[v.key for v in victims])
        return False
    # Before PR #4774 (v1.14.0) only what the victims free counted, not the node's idle (reclaim.go:L193-216 @v1.13.0)
    avail = Resource.empty() if ssn.options.older("pr4774") else node.future_idle()
    node_stmt = Statement(ssn)
    evicted = False
    traced = ssn.trace.enabled
    for v in ssn.victims_in_order(victims, task):
        if task.init_resreq.less_equal(avail, ZERO):
            break
        before = queues_now(ssn, v, task) if traced else None
        node_stmt.evict(v, "reclaim")
        if before is not None:
            file_eviction(ssn, "reclaim", task, v, before)
        avail.add(v.resreq)
        evicted = True
    if not task.init_resreq.less_equal(avail, ZERO):
        if traced and ssn.options.older("pr4774"):
            ssn.trace.event("victimsAloneShort", task.key, node.name, words=ssn.options.older_words("pr4774"),
                            switch="pr4774", freed=to_dict(avail))
        if ssn.options.older("pr4794") and evicted:  # reclaim.go:L193-211 @v1.13.0: evicted at once, kept
            stmt.merge(node_stmt)
        else:
            node_stmt.discard()
        return False
    before = queues_now(ssn, task) if traced else None
    node_stmt.pipeline(task, node.name, evicted)
    if before is not None:
        file_placement(ssn, "reclaim", task, node.name, before)
    stmt.merge(node_stmt)
    return True


def validate_victims(task: Task, node, victims: list[Task]) -> bool:  # noqa: ANN001
    """ValidateVictims: the preemptor fits FutureIdle plus everything the victims free."""
    avail = node.future_idle()
    for v in victims:
        avail.add(v.resreq)
    return task.init_resreq.less_equal(avail, ZERO)
