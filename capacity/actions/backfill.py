"""backfill: place BestEffort tasks, with Session.Allocate (backfill.go:58-201)."""

from __future__ import annotations

from capacity.core.model import Job, Node, QueueSpec, Task, TaskStatus
from capacity.framework.heap import PriorityQueue
from capacity.framework.session import Session


def execute(ssn: Session) -> None:
    if not _best_effort_work(ssn):
        # The loops below would only order jobs: their one trace of it is the jobValid votes, in job order.
        if ssn.trace.enabled:
            for job in ssn.jobs.values():
                if not job.is_pending():
                    ssn.job_valid(job)
        return
    by_queue: dict[str, list[Job]] = {}
    for job in ssn.jobs.values():
        if job.is_pending():
            continue
        valid, _ = ssn.job_valid(job)
        if not valid or job.queue not in ssn.queues:
            continue
        by_queue.setdefault(job.queue, []).append(job)
    queues: PriorityQueue[QueueSpec] = PriorityQueue(ssn.queue_less(), [ssn.queues[q] for q in by_queue])
    ordered: list[Task] = []
    while not queues.empty():
        queue = queues.pop()
        jobs: PriorityQueue[Job] = PriorityQueue(ssn.job_less(), by_queue[queue.name])
        while not jobs.empty():
            job = jobs.pop()
            tasks: PriorityQueue[Task] = PriorityQueue(ssn.task_less())
            for t in job.tasks_in(TaskStatus.PENDING):
                if t.best_effort and not t.sch_gated:
                    tasks.push(t)
            for t in job.tasks_in(TaskStatus.PIPELINED):
                if t.best_effort:
                    ssn.return_to_pending(t)
                    tasks.push(t)
            while not tasks.empty():
                ordered.append(tasks.pop())
    for task in ordered:
        if ssn.pre_predicate(task):
            if _stops_here(ssn, task, ordered):
                break
            continue
        candidates = ssn.placement.backfill_nodes(task)  # PredicateForAllocateAction, in NodeList order
        if not candidates:
            ssn.trace.event("noFit", task.key, f"0/{len(ssn.node_list)} nodes are available")
            if _stops_here(ssn, task, ordered):
                break
            continue
        if len(candidates) == 1:
            chosen: Node | None = candidates[0]
        else:
            chosen, _ = ssn.placement.choose_node(task, candidates)
        if chosen is not None:
            ssn.allocate_now(task, chosen)


def _stops_here(ssn: Session, task: Task, ordered: list[Task]) -> bool:
    """Before PR #4029 (backfill.go:L66-81 @v1.11.0: `break`) a task that failed PrePredicate or fit no node
    ended backfill: the BestEffort tasks after it stayed unplaced."""
    if not ssn.options.older("pr4029"):
        return False
    rest = ordered[ordered.index(task) + 1:]
    if rest and ssn.trace.enabled:
        ssn.trace.event("backfillStopped", task.key, False, switch="pr4029", left=[t.key for t in rest],
                        words=f"{ssn.options.older_words('pr4029')}: backfill stops at {task.key}")
    return True


def _best_effort_work(ssn: Session) -> bool:
    """Whether any job has a Pending or Pipelined BestEffort task, the only tasks backfill handles. (Such a
    job may starve: only those are asked, where known.)"""
    some = ssn.may_starve_now()
    for job in ssn.jobs.values() if some is None else some:
        for status in (TaskStatus.PENDING, TaskStatus.PIPELINED):
            bucket = job.index.get(status)
            if bucket and any(t.best_effort for t in bucket.values()):
                return True
    return False

