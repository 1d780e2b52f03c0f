"""preempt: starving jobs take resources from lower-priority work in their own queue (preempt.go; §7.5).

Two phases per queue. Phase A, between jobs: every starving job evicts preemptable tasks of other jobs
in the same queue, task by task, and keeps the result only if JobPipelined holds afterwards. Phase B,
inside a job: each pending task may evict its own job's tasks, committed task by task, stopping at the
first task that cannot be placed. Like reclaim it never binds: at most it pipelines the preemptor.

Volcano iterates Go maps in places; Capacity Lab uses the canonical orders of spec §10.5: jobs by
ascending UID, node tasks in victim order, predicate results in NodeList order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from capacity.actions.preempt_topology import CandidateLimits, pod_priority, topology_aware_preempt
from capacity.actions.queue_change import file_eviction, file_placement, queues_now
from capacity.actions.reclaim import validate_victims
from capacity.core.conf import get_bool, get_int
from capacity.core.model import PREEMPTABLE_STATUSES, Job, Node, QueueSpec, Task, TaskStatus
from capacity.core.resources import ZERO, Resource
from capacity.framework.extension_points import NodeBound, Skipped, VictimFilter, node_tasks
from capacity.framework.heap import PriorityQueue
from capacity.framework.session import UNRESOLVABLE, Session
from capacity.framework.statement import Statement

ACTION = "preempt"
TOPOLOGY_KEY = "enableTopologyAwarePreemption"
ERROR_CACHE_KEY = "predicateErrorCacheEnable"


@dataclass(frozen=True, slots=True)
class PreemptOptions:
    """The preempt action's arguments (spec §2.3)."""

    topology_aware: bool = False
    predicate_error_cache: bool = True
    limits: CandidateLimits = CandidateLimits()


@dataclass
class PreemptRun:
    """State shared by the whole action: the one PredicateHelper error cache, and the build's queues."""

    ssn: Session
    opts: PreemptOptions
    # per task group: node -> FitError (an accelerated engine's own mapping, filled a mask at a time)
    error_cache: dict[str, Any] = field(default_factory=dict)
    queues: PriorityQueue[QueueSpec] | None = None
    preemptors: dict[str, PriorityQueue[Job]] = field(default_factory=dict)
    task_queues: dict[str, PriorityQueue[Task]] = field(default_factory=dict)
    under_request: dict[str, list[Job]] = field(default_factory=dict)
    # Before PR #5142: every queue's turn ran phase B over the starving jobs of all queues, in build order.
    under_request_all: list[Job] = field(default_factory=list)


def parse_options(ssn: Session) -> PreemptOptions:
    """Read `configurations[preempt].arguments`; malformed integers keep Volcano's defaults."""
    args = ssn.conf.action_arguments(ACTION)
    defaults = CandidateLimits()
    pct, _ = get_int(args, "minCandidateNodesPercentage", defaults.min_percentage)
    low, _ = get_int(args, "minCandidateNodesAbsolute", defaults.min_absolute)
    high, _ = get_int(args, "maxCandidateNodesAbsolute", defaults.max_absolute)
    return PreemptOptions(topology_aware=get_bool(args, TOPOLOGY_KEY, False),
                          predicate_error_cache=get_bool(args, ERROR_CACHE_KEY, True),
                          limits=CandidateLimits(pct, low, high))


def execute(ssn: Session) -> None:
    run = PreemptRun(ssn, parse_options(ssn))
    build(run)
    assert run.queues is not None
    while not run.queues.empty():
        queue = run.queues.pop()  # popped once, never pushed back
        preempt_between_jobs(run, queue)
        preempt_within_jobs(run, queue)


# ---- build ------------------------------------------------------------------------------------------

def build(run: PreemptRun) -> None:
    """Collect starving jobs per queue (preempt.go:112-151), in ascending job UID instead of map order."""
    ssn = run.ssn
    order: list[QueueSpec] = []
    # Before PR #5142, every queue of a valid job, as met (preempt.go:L113-133 @v1.14.0: a Go map).
    met: list[QueueSpec] | None = [] if ssn.options.older("pr5142") else None
    # preempt.go:L112 @ed72c7c8 ranges over ssn.Jobs (an accelerated engine, untraced, over the starving ones
    # only: framework.extension_points.JobLists).
    for job in ssn.job_lists.preempt_jobs(met is not None):
        queue = _preemptor_queue(ssn, job, met)
        if queue is None:
            continue
        if queue.name not in run.preemptors:
            run.preemptors[queue.name] = PriorityQueue(ssn.job_less())
            order.append(queue)
        run.preemptors[queue.name].push(job)
        run.under_request.setdefault(queue.name, []).append(job)
        run.under_request_all.append(job)
        run.task_queues[job.uid] = pending_tasks(ssn, job)
    run.queues = PriorityQueue(ssn.queue_less(), order) if met is None else _queues_as_met(ssn, met, order)


def _queues_as_met(ssn: Session, met: list[QueueSpec], order: list[QueueSpec]) -> PriorityQueue[QueueSpec]:
    """Before PR #5142 preempt ranged over a map of queues (preempt.go:L161 @v1.14.0): Go's random order,
    here the order their first valid job is met in (job UID order), preemptors or not."""
    rank = {q.name: i for i, q in enumerate(met)}
    if ssn.trace.enabled and len(met) > 1:
        by_order = PriorityQueue(ssn.queue_less(), list(order))
        head = [by_order.pop().name for _ in range(len(by_order))]
        ssn.trace.event("preemptQueueOrder", "preempt", [q.name for q in met], switch="pr5142", queueOrder=head,
                        words=f"{ssn.options.older_words('pr5142')}: queues taken as "
                              f"{', '.join(q.name for q in met)}, each turn preempting within the starving jobs "
                              "of every queue")
    return PriorityQueue(lambda a, b: rank[a.name] < rank[b.name], met)


def _preemptor_queue(ssn: Session, job: Job, met: list[QueueSpec] | None = None) -> QueueSpec | None:
    """The job's queue if the job may preempt: not Pending, valid, queue known, starving. `met` (before PR
    #5142) collects the queue of every valid job, starving or not."""
    if job.is_pending():
        return None
    valid, reason = ssn.job_valid(job)
    if not valid:
        ssn.trace.event("preemptSkipJob", job.uid, False, why=reason)
        return None
    queue = ssn.queues.get(job.queue)
    if queue is None:
        return None
    if met is not None and all(q.name != queue.name for q in met):
        met.append(queue)
    if not ssn.job_starving(job):
        return None
    return queue


def pending_tasks(ssn: Session, job: Job) -> PriorityQueue[Task]:
    """The job's Pending, ungated tasks in task order (BestEffort ones included)."""
    return PriorityQueue(ssn.task_less(), [t for t in job.tasks_in(TaskStatus.PENDING) if not t.sch_gated])


# ---- the two phases ---------------------------------------------------------------------------------

def preempt_between_jobs(run: PreemptRun, queue: QueueSpec) -> None:
    """Phase A: each starving job preempts other jobs of its queue; kept only if the job is pipelined."""
    ssn = run.ssn
    jobs = run.preemptors.get(queue.name)
    while jobs:
        job = jobs.pop()
        stmt = Statement(ssn)
        tasks = run.task_queues[job.uid]
        assigned = False
        while ssn.job_starving(job) and not tasks.empty():
            task = tasks.pop()
            assigned = preempt(run, stmt, task, other_jobs_filter(ssn, task, job))
            if not assigned:
                ssn.trace.event("preemptFailed", task.key, False, job=job.uid, phase="betweenJobs")
        if ssn.job_pipelined(job):
            if stmt.operations:
                ssn.trace.event("preemptCommit", job.uid, True, operations=len(stmt.operations))
            stmt.commit()
            if assigned and ssn.options.older("pr5818"):  # preempt.go:L230-232 @v1.15.0: pushed back
                ssn.trace.event("preemptorPushedBack", job.uid, True, switch="pr5818",
                                words=f"{ssn.options.older_words('pr5818')}: {job.uid} goes back into "
                                      f"{queue.name}'s preemptors")
                jobs.push(job)
        else:
            if stmt.operations:
                ssn.trace.event("preemptRollback", job.uid, False, operations=len(stmt.operations),
                                why="the job is not pipelined after its preemption attempts")
            stmt.discard()


def preempt_within_jobs(run: PreemptRun, queue: QueueSpec) -> None:
    """Phase B: tasks of each job that was starving at build time preempt their own job's tasks.

    Committed per task; the first task that cannot be placed ends the job's turn.
    """
    ssn = run.ssn
    jobs = run.under_request.get(queue.name, [])
    older = ssn.options.older("pr5142")
    if older:  # preempt.go:L229 @v1.14.0: `for _, job := range underRequest`, all queues'
        jobs = run.under_request_all
    for job in jobs:
        tasks = pending_tasks(ssn, job)
        if older:  # preempt.go:L231 @v1.14.0 (before PR #5141, which came with #5142): it replaced the job's
            run.task_queues[job.uid] = tasks  # phase-A queue, so a later queue's turn lost what this one popped
        while not tasks.empty():
            task = tasks.pop()
            stmt = Statement(ssn)
            if not preempt(run, stmt, task, own_job_filter(task)):
                _end_failed_within_job(ssn, stmt, task)
                ssn.trace.event("preemptFailed", task.key, False, job=job.uid, phase="withinJob",
                                why="no placement; the rest of this job's pending tasks are not tried")
                break
            stmt.commit()


def _end_failed_within_job(ssn: Session, stmt: Statement, task: Task) -> None:
    """A within-job attempt that placed nothing is discarded (preempt.go:L279-285 @v1.15.0); before PR
    #5010 it was committed, with the evictions its failed nodes kept (preempt.go:L271 @v1.14.0)."""
    if not ssn.options.older("pr5010"):
        stmt.discard()
        return
    if stmt.operations:
        evicted = [op.task.key for op in stmt.operations]
        ssn.trace.event("preemptFailedKept", task.key, True, operations=len(stmt.operations), switch="pr5010",
                        evictions=evicted,
                        words=f"{ssn.options.older_words('pr5010')}: {', '.join(evicted)} stay evicted though "
                              f"{task.key} was not placed")
    stmt.commit()


def other_jobs_filter(ssn: Session, preemptor: Task, job: Job) -> VictimFilter:
    """Phase A candidates: Bound/Running, BestEffort rule, preemptable, another job in the same queue."""
    def keep(t: Task) -> bool:
        if not _basic_victim(preemptor, t):
            return False
        vjob = ssn.jobs.get(t.job)
        return vjob is not None and vjob.queue == job.queue and t.job != preemptor.job
    return VictimFilter(keep, preemptor, job.queue)


def own_job_filter(preemptor: Task) -> VictimFilter:
    """Phase B candidates: Bound/Running, BestEffort rule, preemptable, the preemptor's own job."""
    def keep(t: Task) -> bool:
        return _basic_victim(preemptor, t) and t.job == preemptor.job
    return VictimFilter(keep, preemptor, None)


def _basic_victim(preemptor: Task, t: Task) -> bool:
    """PreemptableStatus, a BestEffort preemptor takes only BestEffort victims, and the pod is preemptable."""
    if not t.status & PREEMPTABLE_STATUSES:
        return False
    if preemptor.best_effort and not t.best_effort:
        return False
    return t.preemptable


# ---- one preemptor -----------------------------------------------------------------------------------

def preempt(run: PreemptRun, stmt: Statement, task: Task, keep: VictimFilter) -> bool:
    """preempt.go preempt(): eligibility, PrePredicate, candidate nodes, then normal or topology-aware."""
    ssn = run.ssn
    why = ineligible_reason(ssn, task)
    if why:
        ssn.trace.event("preemptNotEligible", task.key, False, why=why)
        return False
    err = ssn.pre_predicate(task)
    if err:
        ssn.trace.event("prePredicateFailed", task.key, err)
        return False
    job = ssn.jobs.get(task.job)
    queue = ssn.queues.get(job.queue) if job is not None else None
    if queue is None:
        return False
    nodes = predicate_nodes(run, task)
    if not nodes:
        ssn.trace.event("preemptNoNodes", task.key, False, why="no node passes PredicateForPreemptAction")
        return False

    def candidates_on(node: Node) -> list[Task]:
        return node_preemptees(ssn, node, task, keep)

    bound = ssn.victims.node_bound(task, nodes, keep)
    if run.opts.topology_aware:
        return topology_aware_preempt(ssn, stmt, task, queue, nodes, candidates_on, run.opts.limits, bound)
    return normal_preempt(ssn, stmt, task, queue, nodes, candidates_on, bound)


def ineligible_reason(ssn: Session, task: Task) -> str:
    """taskEligibleToPreempt (preempt.go:440-477): why the task may not preempt, or "" if it may.

    The pod's DisruptionTarget condition is not modelled: a pod that was already terminating when the
    session opened counts as terminating because of preemption.
    """
    if task.spec.preemption_policy == "Never":
        return "preemptionPolicy is Never"
    name = task.nominated_node
    if not name:
        return ""
    node = ssn.nodes.get(name)
    if node is None:
        return f"nominated node {name} is not in the session"
    err = ssn.predicate(task, node)
    if err is None:
        return f"nominated node {name} is already schedulable"
    if err.code == UNRESOLVABLE:
        return ""
    mine = pod_priority(task)
    for nt in node.tasks.values():
        pod = ssn.cluster.pods.get(nt.key)
        if pod is not None and pod.deleting and pod_priority(nt) < mine:
            return f"{nt.key} on nominated node {name} is still terminating after an earlier preemption"
    return ""


def predicate_nodes(run: PreemptRun, task: Task) -> Sequence[Node]:
    """FilterOutUnschedulableAndUnresolvableNodesForTask, then PredicateNodes with PredicateForPreemptAction.

    One error cache serves the whole action, keyed "<job>/<role>"; it is read only for tasks with a role.
    Nodes are checked in NodeList order starting at index 0 (Volcano: a rotating global index).
    """
    return run.ssn.victims.preempt_predicate_nodes(task, run.error_cache, run.opts.predicate_error_cache)


def node_preemptees(ssn: Session, node: Node, preemptor: Task, keep: VictimFilter) -> list[Task]:
    """The node's tasks that pass the phase's filter, as session tasks, in victim order (not map order)."""
    return ssn.victims_in_order([t for t in node_tasks(ssn, node) if keep(t)], preemptor)


# ---- normal preemption -------------------------------------------------------------------------------

def normal_preempt(ssn: Session, stmt: Statement, task: Task, queue: QueueSpec, nodes: Sequence[Node],
                   candidates_on: Callable[[Node], list[Task]], bound: NodeBound | None = None) -> bool:
    """normalPreempt: nodes by score, evict victims in victim order until the task fits, else roll back.

    Nodes that `bound` passes over are skipped (one record names them all, in NodeList order). With
    NodeFit, a node without candidates matters only if the task fits it as it is, and then only if the
    queue is Allocatable, which cannot change while nothing else changes: with tracing off that is asked
    once, not per node (with tracing on such nodes are visited, to record why not).
    """
    skipped = Skipped(ssn)
    if bound is not None and bound.visits_none(nodes, skipped):  # no node to visit: no need to order them
        _file(ssn, skipped, task)
        return False
    ordered = nodes_by_score(ssn, task, nodes)
    allocatable: bool | None = None
    for node in ordered:
        if bound is not None and not bound.passes(node):
            skipped.add(node)
            continue
        if bound is not None and bound.needs_no_victim(node):
            if allocatable is None:
                allocatable = ssn.allocatable(queue, task)
            if not allocatable:
                continue
        victims = ssn.preemptable(task, candidates_on(node)) or []
        if not validate_victims(task, node, victims):
            if ssn.trace.enabled:
                ssn.trace.event("preemptNoVictims", task.key, node.name, victims=[v.key for v in victims],
                                why=NO_VICTIMS)
            continue
        if try_node(ssn, stmt, task, queue, node, victims):
            _file(ssn, skipped, task)
            return True
        allocatable = None  # a rolled-back attempt: ask again rather than trust float round trips
    _file(ssn, skipped, task)
    return False


NO_VICTIMS = "the task does not fit FutureIdle even with every allowed victim gone"


def _file(ssn: Session, skipped: Skipped, task: Task) -> None:
    if len(skipped.names) > 1:  # (in NodeList order)
        pos = {n.name: i for i, n in enumerate(ssn.node_list)}
        skipped.names.sort(key=lambda name: pos.get(name, 0))
    skipped.file(ssn, "preemptNoVictims", task, NO_VICTIMS)


def nodes_by_score(ssn: Session, task: Task, nodes: Sequence[Node]) -> Sequence[Node]:
    """PrioritizeNodes + SortNodes: score descending; equal scores keep predicate (NodeList) order."""
    return ssn.victims.nodes_by_score(task, nodes)


def try_node(ssn: Session, stmt: Statement, task: Task, queue: QueueSpec, node: Node,
             victims: list[Task]) -> bool:
    """Evict on one node in a node statement until fitsOnNode; merge on success, discard otherwise."""
    node_stmt = Statement(ssn)
    preempted = Resource.empty()
    fits = fits_on_node(ssn, queue, task, node)
    traced = ssn.trace.enabled
    for victim in ssn.victims_in_order(victims, task):
        if fits:
            break
        before = queues_now(ssn, victim, task) if traced else None
        node_stmt.evict(victim, "preempt")
        if before is not None:
            file_eviction(ssn, "preempt", task, victim, before)
        preempted.add(victim.resreq)
        fits = fits_on_node(ssn, queue, task, node)
    if not fits:
        _end_failed_node(ssn, stmt, node_stmt, task, node)
        return False
    # Volcano: evictionOccurred = !preempted.IsEmpty(), so evicting only BestEffort pods leaves it false.
    before = queues_now(ssn, task) if traced else None
    node_stmt.pipeline(task, node.name, not preempted.is_empty())
    if before is not None:
        file_placement(ssn, "preempt", task, node.name, before)
    stmt.merge(node_stmt)
    return True


def _end_failed_node(ssn: Session, stmt: Statement, node_stmt: Statement, task: Task, node: Node) -> None:
    """The evictions on a node where the task still does not fit are undone (preempt.go:L425-426 @v1.15.0).

    Before PR #5010 they were made on the caller's statement and stayed (preempt.go:L381-416 @v1.14.0):
    later nodes see them, and they are committed with it (between jobs: if the job is pipelined).
    """
    if not node_stmt.operations:
        return
    evicted = [op.task.key for op in node_stmt.operations]
    if ssn.options.older("pr5010"):
        ssn.trace.event("preemptEvictionsKept", task.key, node.name, evictions=evicted, switch="pr5010",
                        words=f"{ssn.options.older_words('pr5010')}: the evictions of {', '.join(evicted)} on "
                              f"{node.name} are not undone though {task.key} does not fit there")
        stmt.merge(node_stmt)
        return
    ssn.trace.event("preemptRollback", task.key, node.name, evictions=evicted,
                    why="the task still does not fit (queue Allocatable, FutureIdle or predicate)")
    node_stmt.discard()


def fits_on_node(ssn: Session, queue: QueueSpec, task: Task, node: Node) -> bool:
    """preemptorFitsOnNode (preempt.go:L434-438 @ed72c7c8): queue Allocatable, InitResreq within FutureIdle, and
    the full predicate. Before PR #5843 (not in a release yet) the predicate was not asked
    (preempt.go:L390, L410 @v1.15.1)."""
    if not (ssn.allocatable(queue, task) and task.init_resreq.less_equal(node.future_idle(), ZERO)):
        return False
    if ssn.options.older("pr5843"):
        if ssn.trace.enabled and ssn.predicate(task, node) is not None:
            ssn.trace.event("preemptPredicateUnasked", task.key, node.name, switch="pr5843",
                            words=f"{ssn.options.older_words('pr5843')}: {task.key} is taken to fit {node.name} "
                                  "though its predicate still fails there")
        return True
    return ssn.predicate(task, node) is None
