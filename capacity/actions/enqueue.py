"""enqueue: Pending PodGroups become Inqueue when the plugins admit them (enqueue.go:44-104)."""

from __future__ import annotations

from capacity.framework.heap import PriorityQueue
from capacity.framework.session import Session
from capacity.model import Job, PodGroupPhase, QueueSpec


def execute(ssn: Session) -> None:
    queues: PriorityQueue[QueueSpec] = PriorityQueue(ssn.queue_order_fn)
    seen: set[str] = set()
    pending: dict[str, PriorityQueue[Job]] = {}
    for job in ssn.jobs.values():
        queue = ssn.queues.get(job.queue)
        if queue is None:
            continue
        if queue.name not in seen:
            seen.add(queue.name)
            queues.push(queue)
        if job.is_pending():
            pending.setdefault(queue.name, PriorityQueue(ssn.job_order_fn)).push(job)
    while not queues.empty():
        queue = queues.pop()
        jobs = pending.get(queue.name)
        if not jobs:
            continue
        job = jobs.pop()
        if job.min_resources is None or ssn.job_enqueueable(job):
            ssn.job_enqueued(job)
            job.phase = PodGroupPhase.INQUEUE
            ssn.trace.event("enqueue", job.uid, True, queue=queue.name,
                            why="no minResources" if job.min_resources is None else "admitted by plugins")
        else:
            ssn.trace.event("enqueue", job.uid, False, queue=queue.name)
        queues.push(queue)
