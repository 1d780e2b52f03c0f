"""allocate: bind pending tasks queue by queue, job by job, gang by gang (allocate.go).

The loop shape matters (spec actions-framework §7.2, traps 6, 14, 15, 16, 29): a ready job places
one task per pop and is re-pushed; a task that fails Allocatable is dropped for the cycle; a
"pipelined but not ready" statement is neither committed nor discarded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from capacity.accel.fit_report import fit_report
from capacity.accel.nodefit import CandidateList, DeferredErrors, FitErrors, NodeFit, Placement
from capacity.actions.allocate_legacy_ns import allocate_by_namespace
from capacity.core.model import Job, Node, QueueSpec, Task, TaskStatus
from capacity.core.resources import ZERO
from capacity.core.trace import NodeNames
from capacity.framework.heap import KeyedQueue, PriorityQueue
from capacity.framework.session import UNSCHEDULABLE, FitError, Session
from capacity.framework.statement import Statement

_NO_SCORE = float("-inf")  # a Placement's score where the node is not in the gradient
TIE_NOTE = "Volcano picks at random among equal scores; Capacity Lab takes the first in node order"


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
    # With nothing traced and enqueue deciding the Pending jobs, only jobs holding a Pending task matter: all
    # among those that may starve (Session.may_starve_now), where known.
    some = ssn.may_starve_now() if has_enqueue and ssn.shortcuts else None
    for job in ssn.jobs.values() if some is None else some:
        if job.is_pending():
            if has_enqueue:
                continue
            ssn.set_inqueue(job)
        if ssn.shortcuts and not job.index.get(TaskStatus.PENDING):
            continue  # no task to place; JobValid would only leave its trace (none is kept)
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
        # Without a nominated node, the node choice straight from the task's Placement: untraced through
        # _choose_untraced, traced through _traced_placement (no candidate: the general path, for noFit);
        # where that finds none, through predicate_nodes and choose_node.
        best, pipelined = (None, False) if trace.enabled or task.nominated_node else _choose_untraced(ssn, task)
        placement = _traced_placement(ssn, task) if best is None and trace.enabled and not task.nominated_node \
            else None
        if placement is not None:
            # Traced, the task's Placement has candidates: predicate_nodes would hand them over as a
            # CandidateList of it, and choose_node read it alone (_choose_from_placement), as here.
            best, pipelined = _choose_from_placement(ssn, task, placement)
            if best is None:
                continue
            trace.event_with("nodeChosen", task.key, best.name,
                             {"feasible": int(np.count_nonzero(placement.cand)), "pipelined": pipelined})
        elif best is None:
            candidates: Sequence[Node] = _nominated_candidates(ssn, task)
            errors: Mapping[str, FitError] = {}
            if not candidates:
                candidates, errors = predicate_nodes(ssn, task, ssn.node_list)
            if not candidates:
                if not job.nodes_fit_errors:
                    ssn.output_log.append(job)
                job.nodes_fit_errors[task.uid] = errors
                if trace.enabled:
                    verdict, texts = fit_report(errors, len(ssn.node_list))  # fit_summary and str() of each
                    trace.event("noFit", task.key, verdict, errors=texts)
                if job.need_continue_allocating():
                    continue
                break
            best, pipelined = choose_node(ssn, task, candidates)
            if best is None:
                continue
            if trace.enabled:
                trace.event_with("nodeChosen", task.key, best.name,
                                 {"feasible": len(candidates), "pipelined": pipelined})
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


def _choose_untraced(ssn: Session, task: Task) -> tuple[Node | None, bool]:
    """The node choice from the task's current Placement, untraced: what predicate_nodes over the NodeList
    and then choose_node answer where this finds a node. A node is chosen only where it has a score, and
    only candidates have one (Placement: -inf elsewhere), so predicate_nodes would have found candidates:
    a CandidateList of this Placement at the NodeFit's version, from which choose_node reads the Placement
    alone (_choose_from_placement), nothing changing the nodes in between. (None, False) where no node is
    chosen so, or the NodeFit or a placement key is missing: the caller takes the general path, which tells
    no candidate (noFit) from candidates without a score."""
    fit = ssn.node_fit()
    placement = fit.placement(task) if fit is not None else None
    if placement is None:
        return None, False
    return _choose_from_placement(ssn, task, placement)


def _traced_placement(ssn: Session, task: Task) -> Placement | None:
    """The task's current Placement if it has a candidate (where predicate_nodes over the NodeList answers
    with a CandidateList of it: `_predicate_all_nodes`), else None: the caller takes the general path."""
    fit = ssn.node_fit()
    return _candidate_placement(fit, task) if fit is not None else None


def _candidate_placement(fit: NodeFit, task: Task) -> Placement | None:
    """The task's current Placement if it has a candidate (no list of them needed to know: the first)."""
    placement = fit.placement(task)
    if placement is None:
        return None
    cand = placement.cand
    return placement if cand[int(cand.argmax())] else None


def _nominated_candidates(ssn: Session, task: Task) -> Sequence[Node]:
    name = task.nominated_node
    node = ssn.nodes.get(name) if name else None
    if node is None or not task.init_resreq.less_equal(node.future_idle(), ZERO):
        return []
    cands, _ = predicate_nodes(ssn, task, [node])
    return cands


def alloc_predicate(ssn: Session, task: Task, node: Node) -> FitError | None:
    """allocate.go:985-993: FutureIdle fit (pods included), then PredicateForAllocateAction."""
    fi = node.future_idle()
    if not task.init_resreq.less_equal(fi, ZERO):
        _, failed = task.init_resreq.less_equal_with_resources_name(fi, ZERO)
        return FitError(node.name, UNSCHEDULABLE, [f"Insufficient {n}" for n in failed])
    return ssn.predicate_for_allocate(task, node)


def predicate_nodes(ssn: Session, task: Task, nodes: list[Node]) -> tuple[Sequence[Node], Mapping[str, FitError]]:
    """predicateNodes: the nodes passing alloc_predicate, and the others' errors (NodeList order)."""
    if nodes is ssn.node_list:
        fast = _predicate_all_nodes(ssn, task)
        if fast is not None:
            return fast
    ok: list[Node] = []
    errors: dict[str, FitError] = {}
    for n in nodes:
        err = alloc_predicate(ssn, task, n)
        if err is None:
            ok.append(n)
        else:
            errors[n.name] = err
    return ok, errors


def _predicate_all_nodes(ssn: Session, task: Task) -> tuple[CandidateList, Mapping[str, FitError]] | None:
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


def fit_summary(errors: Mapping[str, FitError], total: int) -> str:
    """kube-scheduler style: '0/3 nodes are available: 2 Insufficient cpu, 1 node selector'."""
    counts: dict[str, int] = {}
    for e in errors.values():
        for r in e.reasons:
            counts[r] = counts.get(r, 0) + 1
    parts = ", ".join(f"{n} {r}" for r, n in sorted(counts.items(), key=lambda x: (-x[1], x[0])))
    return f"0/{total} nodes are available: {parts}" if parts else f"0/{total} nodes are available"


def choose_node(ssn: Session, task: Task, candidates: Sequence[Node]) -> tuple[Node | None, bool]:
    """Gradient G1 (fits Idle) then G2 (fits FutureIdle); a single node wins unscored (§8.2)."""
    fit = ssn.node_fit() if isinstance(candidates, CandidateList) else None
    if fit is not None:
        placement = candidates.placement  # type: ignore[attr-defined]
        if placement is not None and candidates.version == len(fit.log):  # type: ignore[attr-defined]
            return _choose_from_placement(ssn, task, placement)
        return _choose_node_vector(ssn, fit, task, candidates.idx)  # type: ignore[attr-defined]
    g1 = [n for n in candidates if task.init_resreq.less_equal(n.idle, ZERO)]
    g1_names = {n.name for n in g1}
    g2 = [n for n in candidates if n.name not in g1_names]
    for gradient, pipelined in ((g1, False), (g2, True)):
        if not gradient:
            continue
        if len(gradient) == 1:
            return gradient[0], pipelined
        scores = ssn.node_scores(task, gradient)
        best = max(scores.values())
        tied = [n for n in gradient if scores[n.name] == best]
        if len(tied) > 1:
            ssn.trace.event("scoreTie", task.key, tied[0].name, tied=[n.name for n in tied], note=TIE_NOTE)
        return tied[0], pipelined
    return None, False


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
