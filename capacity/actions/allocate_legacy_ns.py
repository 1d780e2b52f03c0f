"""Volcano <= v1.7 namespace fair share in allocate (compatibility switch for seed 002; spec §6.4).

HEAD removed this (PR #2757): namespaces are no longer weighted. With the switch on, allocate pops the
namespace with the lowest weighted dominant share first (weight from ResourceQuota
`volcano.sh/namespace.weight`, default 1, ties by name), then that namespace's best queue (overused
queues skipped and forgotten), then that (namespace, queue)'s best job.
"""

from __future__ import annotations

from collections.abc import Callable

from capacity.core.model import Job, QueueSpec, Task
from capacity.framework.heap import PriorityQueue
from capacity.framework.session import Session
from capacity.framework.statement import Statement

AllocateForTasks = Callable[[Session, Job, PriorityQueue[Task], QueueSpec], Statement | None]


def namespace_share(ssn: Session, namespace: str) -> float:
    """Dominant share of everything the namespace's jobs hold, against the cluster total."""
    total = ssn.total_resource
    names = total.resource_names()
    alloc = dict.fromkeys(names, 0.0)
    for job in ssn.jobs.values():
        if job.namespace != namespace:
            continue
        for n in names:
            alloc[n] += job.allocated.cpu if n == "cpu" else job.allocated.memory if n == "memory" else \
                job.allocated.get(n)
    share = 0.0
    for n in names:
        t = total.cpu if n == "cpu" else total.memory if n == "memory" else total.get(n)
        if t > 0:
            share = max(share, alloc[n] / t)
    return share


def allocate_by_namespace(ssn: Session, jobs_by_queue: dict[str, PriorityQueue[Job]],
                          worksheets: dict[str, PriorityQueue[Task]], allocate_for_tasks: AllocateForTasks) -> None:
    """allocate's queue loop with a namespace turn first; `allocate_for_tasks` is allocate's own (passed in,
    so that this module does not import allocate, which imports it)."""
    weights = ssn.cluster.namespace_weights
    per_ns: dict[str, dict[str, PriorityQueue[Job]]] = {}
    for queue_name, jobs in jobs_by_queue.items():
        for job in jobs.items:
            per_ns.setdefault(job.namespace, {}).setdefault(queue_name, PriorityQueue(ssn.job_order_fn)).push(job)

    def weighted(ns: str) -> float:
        return namespace_share(ssn, ns) / max(weights.get(ns, 1), 1)

    def less(a: str, b: str) -> bool:
        wa, wb = weighted(a), weighted(b)
        return wa < wb if wa != wb else a < b

    namespaces: PriorityQueue[str] = PriorityQueue(less, sorted(per_ns))
    overused: set[str] = set()
    while not namespaces.empty():
        ns = namespaces.pop()
        queues = per_ns[ns]
        best = None
        for name in sorted(queues):
            if name in overused or not queues[name].items:
                continue
            if ssn.overused(ssn.queues[name]):
                overused.add(name)
                continue
            if best is None or ssn.queue_order_fn(ssn.queues[name], ssn.queues[best]):
                best = name
        if best is None:
            ssn.trace.event("namespaceDone", ns, True)
            continue
        job = queues[best].pop()
        ssn.trace.event("allocateJob", job.uid, best, namespace=ns, weightedShare=weighted(ns),
                        namespaceWeight=weights.get(ns, 1), quirk="legacy namespace fair share (Volcano <= v1.7)")
        tasks = worksheets[job.uid]
        stmt = allocate_for_tasks(ssn, job, tasks, ssn.queues[best])
        if stmt is not None and ssn.job_ready(job):
            stmt.commit()
            if not tasks.empty():
                queues[best].push(job)
        namespaces.push(ns)
