"""enqueue, accelerated: the reference loop (capacity.actions.enqueue) without the turns that decide nothing.

The same jobs are tried in the same order and admitted the same (tests/unit/test_engines_agree.py)."""

from __future__ import annotations

from operator import is_

from capacity.actions.enqueue import pending_by_queue
from capacity.actions.enqueue import try_enqueue as _try_enqueue
from capacity.core.model import Job, QueueSpec
from capacity.framework.heap import KeyedQueue, PriorityQueue, memoized
from capacity.framework.session import Session


def execute(ssn: Session) -> None:
    # No allocation happens here, so queue shares (what queue orders read) stay put, and the queue heap,
    # popped and pushed once per job, can answer each comparison of two queues once (heap.memoized).
    if not ssn.pending_at_open() or not any(job.is_pending() for job in ssn.jobs.values()):
        return  # every turn below would pop a queue and find no job: comparisons only, nothing decided
    # (a job's order key moves only with its tasks, and none moves here: KeyedQueue when there is one)
    job_key = ssn.job_key()
    job_less = ssn.job_less()
    order: list[QueueSpec] = []  # the queues in the order Volcano pushes them
    pending: dict[str, PriorityQueue[Job] | KeyedQueue[Job]] = pending_by_queue(
        ssn, order.append, lambda: PriorityQueue(job_less) if job_key is None else KeyedQueue(job_key))
    # A turn on a queue without jobs pops it and decides nothing: the heap matters only while two queues or
    # more have jobs to try (pushed only then; the order and the comparisons are the same).
    left = len(pending)
    queues: PriorityQueue[QueueSpec] = PriorityQueue(memoized(ssn.queue_less()), order if left > 1 else ())
    items = queues.items
    while left:
        if left == 1:
            # The heap would hand this queue's jobs over one by one, in their own order, between turns that
            # decide nothing.
            name, jobs = next((name, jobs) for name, jobs in pending.items() if jobs)
            queue = ssn.queues[name]
            while jobs:
                _try_enqueue(ssn, queue, jobs.pop())
            return
        before = items[:]
        queue = queues.pop()
        turn = pending.get(queue.name)
        if not turn:
            continue
        _try_enqueue(ssn, queue, turn.pop())
        queues.push(queue)
        if len(items) == len(before) and all(map(is_, items, before)):
            # Popping this queue and pushing it back left the heap as it was: with an order that cannot
            # change here (memoized), every further turn would pop it again and leave the heap so, until
            # its jobs run out; then the turn that finds none pops it for good.
            while turn:
                _try_enqueue(ssn, queue, turn.pop())
            queues.pop()
        if not turn:
            left -= 1


