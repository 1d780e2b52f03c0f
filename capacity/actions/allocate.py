"""allocate: bind pending tasks queue by queue, job by job, gang by gang (allocate.go).

The loop shape matters (spec actions-framework §7.2, traps 6, 14, 15, 16, 29): a ready job places
one task per pop and is re-pushed; a task that fails Allocatable is dropped for the cycle; a
"pipelined but not ready" statement is neither committed nor discarded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from capacity.actions.allocate_legacy_ns import allocate_by_namespace
from capacity.core.model import Job, Node, QueueSpec, Task, TaskStatus
from capacity.core.resources import ZERO
from capacity.framework.heap import KeyedQueue, PriorityQueue
from capacity.framework.session import UNSCHEDULABLE, FitError, Session
from capacity.framework.statement import Statement


def execute(ssn: Session) -> None:
    legacy = ssn.options.legacy_namespace_fairshare
    queues, jobs_by_queue, worksheets = build_worksheets(ssn, keyed=not legacy)
    if legacy:
        allocate_by_namespace(ssn, jobs_by_queue, worksheets, allocate_for_tasks)  # type: ignore[arg-type]
        return
    allocate_queues(ssn, queues, jobs_by_queue, worksheets)


def build_worksheets(ssn: Session, keyed: bool = False) -> tuple[Any,
                                                                dict[str, PriorityQueue[Job] | KeyedQueue[Job]],
                                                                dict[str, PriorityQueue[Task]]]:
    """buildAllocateContext: the jobs to place, their pending tasks, and the queues holding them (in
    Session.queue_heap: a PriorityQueue, or the queue-order plugin's own).

    `keyed`: the job heaps are KeyedQueues when the job order has a key (Session.job_key): in allocate a
    job's tasks move only while it is out of its heap, so the keys in a heap stay put."""
    has_enqueue = "enqueue" in ssn.conf.actions
    queued: dict[str, QueueSpec] = {}  # (in the order Volcano pushes them: pushed once the jobs are counted)
    jobs_by_queue: dict[str, PriorityQueue[Job] | KeyedQueue[Job]] = {}
    worksheets: dict[str, PriorityQueue[Task]] = {}
    task_less, job_less = ssn.task_less(), ssn.job_less()
    job_key = ssn.job_key() if keyed else None
    # allocate.go:L152 @ed72c7c8 ranges over ssn.Jobs (an accelerated engine, untraced, over fewer: the
    # jobs that can place a task; framework.extension_points.JobLists).
    for job in ssn.job_lists.allocate_jobs(has_enqueue):
        if job.is_pending():
            if has_enqueue:
                continue
            ssn.set_inqueue(job)
        valid, reason = ssn.job_valid(job)
        if not valid:
            ssn.trace.event("skipJob", job.uid, reason)
            continue
        queue = ssn.queues.get(job.queue)
        if queue is None:
            continue
        tasks: PriorityQueue[Task] = PriorityQueue(task_less)
        for t in job.tasks_in(TaskStatus.PENDING):
            if t.sch_gated or t.best_effort:
                continue
            tasks.push(t)
        if tasks.empty():
            continue
        worksheets[job.uid] = tasks
        jobs = jobs_by_queue.get(queue.name)
        if jobs is None:
            jobs = jobs_by_queue[queue.name] = PriorityQueue(job_less) if job_key is None else KeyedQueue(job_key)
        jobs.push(job)
        if queue.name not in queued:
            queued[queue.name] = queue
    queues = ssn.queue_heap(len(worksheets))
    for queue in queued.values():
        queues.push(queue)
    return queues, jobs_by_queue, worksheets


def allocate_queues(ssn: Session, queues: Any,
                    jobs_by_queue: dict[str, PriorityQueue[Job] | KeyedQueue[Job]],
                    worksheets: dict[str, PriorityQueue[Task]]) -> None:
    """allocateResources: pop a queue, pop its best job, place that job's tasks, push both back."""
    trace = ssn.trace
    # Session.describe_queue's plugins, looked up once: what allocateJob records of the queue.
    describers = [d for p in ssn.plugins.values() if (d := getattr(p, "describe_queue", None)) is not None] \
        if trace.enabled else []
    queue = queues.pop() if queues else None
    while queue is not None:
        if _allocate_turn(ssn, queue, jobs_by_queue, worksheets, describers):
            queue = queues.push_pop(queue)  # (pushed back, and the next pop: in one step where the heap can)
        else:
            queue = queues.pop() if queues else None


def _allocate_turn(ssn: Session, queue: QueueSpec, jobs_by_queue: dict[str, PriorityQueue[Job] | KeyedQueue[Job]],
                   worksheets: dict[str, PriorityQueue[Task]], describers: list[Any]) -> bool:
    """One turn of allocateResources on a popped queue: its best job's tasks placed; True if the queue goes
    back into the heap."""
    trace = ssn.trace
    if ssn.overused(queue):
        trace.event("queueOverused", queue.name, True)
        return False
    jobs = jobs_by_queue.get(queue.name)
    if not jobs:
        return False
    job = jobs.pop()
    if trace.enabled:
        detail = {"priority": job.priority, "ready": job.ready_task_num()}
        for describe in describers:
            detail.update(describe(queue))
        trace.event_with("allocateJob", job.uid, queue.name, detail)
    tasks = worksheets[job.uid]
    stmt, ready = _allocate_for_tasks(ssn, job, tasks, queue)
    if stmt is not None and ready:
        stmt.commit()
        if tasks.items:
            jobs.push(job)
    return True


def allocate_for_tasks(ssn: Session, job: Job, tasks: PriorityQueue[Task], queue: QueueSpec) -> Statement | None:
    return _allocate_for_tasks(ssn, job, tasks, queue)[0]


def _allocate_for_tasks(ssn: Session, job: Job, tasks: PriorityQueue[Task],
                        queue: QueueSpec) -> tuple[Statement | None, bool]:
    """allocateResourcesForTasks, with JobReady as the statement leaves the job (the caller asks next):
    asked once where Volcano asks up to three times with nothing changing the job in between."""
    trace = ssn.trace
    if not ssn.node_list:
        # allocate.go:724-728 @ed72c7c8: no node under the hyperNode (the cluster's top one holds every
        # node of the snapshot, none when no node is Ready): no statement, no task popped, no fit error.
        if trace.enabled:
            trace.event("noNodes", job.uid, "the session has no node: no node is Ready (Volcano's snapshot "
                        "leaves NotReady nodes out), so allocate places nothing", queue=queue.name)
        return None, False
    stmt = Statement(ssn)
    ready = False
    while tasks.items:
        task = tasks.pop()
        if not ssn.allocatable(queue, task):
            if trace.enabled:
                trace.event("notAllocatable", task.key, False, queue=queue.name)
            continue
        if task.sch_gated:
            continue
        if job.nodes_fit_errors and job.task_has_fit_errors(task):
            if trace.enabled:
                trace.event("roleAlreadyFailed", task.key, False, role=task.role)
            continue
        err = ssn.pre_predicate(task)
        if err:
            if not job.nodes_fit_errors:
                ssn.output_log.append(job)
            job.nodes_fit_errors[task.uid] = {n.name: FitError(n.name, UNSCHEDULABLE, [err]) for n in ssn.node_list}
            trace.event("prePredicateFailed", task.key, err)
            if job.need_continue_allocating():
                continue
            break
        # allocate.go:793-835 @ed72c7c8: the nominated node first, else every node; PredicateNodes, then
        # prioritizeNodes (ssn.placement: the plain loops, or their accelerated form; the same code traced
        # or not: the trace only records).
        placement = ssn.placement
        candidates: Sequence[Node] = _nominated_candidates(ssn, task)
        errors: Mapping[str, FitError] = {}
        if not candidates:
            candidates, errors = placement.predicate_nodes(task, ssn.node_list)
        if not candidates:
            if not job.nodes_fit_errors:
                ssn.output_log.append(job)
            job.nodes_fit_errors[task.uid] = errors
            if trace.enabled:
                verdict, texts = placement.fit_report(errors, len(ssn.node_list))  # fit_summary and str() of each
                trace.event("noFit", task.key, verdict, errors=texts)
            if job.need_continue_allocating():
                continue
            break
        best, pipelined = placement.choose_node(task, candidates)
        if best is None:
            continue
        if trace.enabled:
            trace.event_with("nodeChosen", task.key, best.name, {"feasible": len(candidates), "pipelined": pipelined})
        if not pipelined:
            stmt.allocate(task, best)
        else:
            stmt.pipeline(task, best.name, False)
        if ssn.job_ready(job):
            ready = True
            break
    if not ready:
        ready = ssn.job_ready(job)
    if ready or ssn.job_pipelined(job):
        return stmt, ready
    stmt.discard()
    if trace.enabled:
        trace.event("gangDiscard", job.uid, False, ready=job.ready_task_num(), minAvailable=job.min_available)
    return None, False


def _nominated_candidates(ssn: Session, task: Task) -> Sequence[Node]:
    name = task.nominated_node
    node = ssn.nodes.get(name) if name else None
    if node is None or not task.init_resreq.less_equal(node.future_idle(), ZERO):
        return []
    cands, _ = ssn.placement.predicate_nodes(task, [node])
    return cands
