"""enqueue: Pending PodGroups become Inqueue when the plugins admit them (enqueue.go:44-104 @ed72c7c8).

The reference loop as Volcano writes it; capacity.accel.enqueue skips its turns that decide nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar

from capacity.core.model import Job, QueueSpec
from capacity.framework.heap import PriorityQueue
from capacity.framework.session import Session


def execute(ssn: Session) -> None:
    """Every job's queue into the queue heap, every Pending job into its queue's job heap; then pop a queue,
    try its best job, push the queue back, until the heap is empty (enqueue.go:48-103)."""
    queues: PriorityQueue[QueueSpec] = PriorityQueue(ssn.queue_order_fn)
    jobs_map = pending_by_queue(ssn, queues.push, lambda: PriorityQueue(ssn.job_order_fn))
    while not queues.empty():
        queue = queues.pop()
        jobs = jobs_map.get(queue.name)
        if jobs is None or jobs.empty():
            continue
        try_enqueue(ssn, queue, jobs.pop())
        queues.push(queue)


class JobHeap(Protocol):
    def push(self, job: Job, /) -> None: ...


H = TypeVar("H", bound=JobHeap)


def pending_by_queue(ssn: Session, push_queue: Callable[[QueueSpec], None], new_heap: Callable[[], H]) -> dict[str, H]:
    """enqueue.go:52-77: each job's queue, the first time it is met, to `push_queue`; each Pending job into
    its queue's own heap (made by `new_heap`). Jobs of a queue the session does not know are left out."""
    queue_set: set[str] = set()
    jobs_map: dict[str, H] = {}
    for job in ssn.jobs.values():
        queue = ssn.queues.get(job.queue)
        if queue is None:
            continue
        if queue.name not in queue_set:
            queue_set.add(queue.name)
            push_queue(queue)
        if job.is_pending():
            jobs = jobs_map.get(queue.name)
            if jobs is None:
                jobs = jobs_map[queue.name] = new_heap()
            jobs.push(job)
    return jobs_map


def try_enqueue(ssn: Session, queue: QueueSpec, job: Job) -> None:
    """enqueue.go:92-97: a job without minResources, or one the plugins admit, becomes Inqueue."""
    trace = ssn.trace
    if job.min_resources is None or ssn.job_enqueueable(job):
        ssn.job_enqueued(job)
        ssn.set_inqueue(job)
        if trace.enabled:
            trace.event_with("enqueue", job.uid, True, {
                "queue": queue.name, "why": "no minResources" if job.min_resources is None else "admitted by plugins"})
    elif trace.enabled:
        trace.event("enqueue", job.uid, False, queue=queue.name)
