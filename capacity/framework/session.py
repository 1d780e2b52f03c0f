"""One scheduling session: the snapshot, the plugins' registered functions, and how tiers combine them.

Mirrors pkg/scheduler/framework/session.go and session_plugins.go (spec actions-framework §3-4,
queue-plugins §1.10). Every extension-point answer passes through a combinator here, which is where
the decision trace files each plugin's vote with its reason.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from capacity.accel import REFERENCE, Acceleration
from capacity.core.cluster import Cluster
from capacity.core.conf import PluginOption, SchedulerConf
from capacity.core.model import (  # (FitError and the status codes are re-exported: the plugins take them from here)
    ERROR,
    SUCCESS,
    UNRESOLVABLE,
    UNSCHEDULABLE,
    FitError,
    Job,
    Node,
    PodGroupPhase,
    QueueSpec,
    Task,
    TaskStatus,
)
from capacity.core.trace import Trace
from capacity.framework.extension_points import (
    JobLists,
    NodePlacement,
    ReferenceJobLists,
    ReferencePlacement,
    ReferenceVictims,
    VictimPaths,
    exact_integers,
)
from capacity.framework.fast_forms import (
    FastForm,
    Less,
    NodeVector,
    OrderFn,
    OrderHeap,
    OrderKey,
    OrderLess,
    PossibleFn,
    PossibleVictims,
)
from capacity.framework.heap import PriorityQueue
from capacity.framework.options import SessionOptions
from capacity.framework.queue_tree_reuse import NoTreeReuse, QueueTreeReuse
from capacity.framework.reuse import NoReuse, SnapshotReuse
from capacity.framework.snapshot import SessionSnapshot

if TYPE_CHECKING:
    from capacity.accel.snapshot_cache import SnapshotCache

# (the re-exports among them: the plugins and actions take them from here)
__all__ = ["ERROR", "SUCCESS", "UNRESOLVABLE", "UNSCHEDULABLE", "FitError", "Session", "SessionOptions"]

PERMIT = 1
ABSTAIN = 0
REJECT = -1
_VOTE_NAMES = {PERMIT: "Permit", REJECT: "Reject"}  # what the trace calls a vote


@dataclass
class EventHandler:
    allocate: Callable[[Task], None] | None = None
    deallocate: Callable[[Task], None] | None = None


@dataclass
class CycleResult:
    """What one session decided, in the acceptance FORMAT's vocabulary."""

    binds: dict[str, str] = field(default_factory=dict)
    evicted: list[str] = field(default_factory=list)
    pipelined: dict[str, list[str]] = field(default_factory=dict)
    podgroup_phases: dict[str, str] = field(default_factory=dict)
    queues: dict[str, dict[str, Any]] = field(default_factory=dict)
    nominated: dict[str, str] = field(default_factory=dict)
    records: list[Any] = field(default_factory=list)  # this cycle's decision records (capacity.core.trace.Record)
    notes: list[str] = field(default_factory=list)  # the session's notes (plugins' warnings about this cycle)


def compare_task(l: Task, r: Task) -> bool:
    """CompareTask (controllers/job/helpers): name index, then creation, then UID."""
    lp = l.name.split("-")
    rp = r.name.split("-")
    if len(lp) >= 3 and len(rp) >= 3:
        try:
            li, ri = int(lp[-1]), int(rp[-1])
            if li != ri:
                return li < ri
        except ValueError:
            pass
    if l.spec.creation != r.spec.creation:
        return l.spec.creation < r.spec.creation
    return l.uid < r.uid


class Session(SessionSnapshot):
    """Snapshot of the cluster plus the registry of plugin functions for one cycle: the reference engine.

    It takes no fast path: its Acceleration is always REFERENCE, it keeps nothing from an earlier session,
    and its extension points are the plain loops. The accelerated engine is a subclass composed in
    capacity.accel (accel/session.py: AcceleratedSession), chosen by the scheduler (capacity.scheduler), the
    composition root; nothing here imports capacity.accel's parts."""


    def __init__(self, cluster: Cluster, conf: SchedulerConf | None = None, trace: Trace | None = None,
                 options: SessionOptions | None = None, cache: SnapshotCache | None = None,
                 accel: Acceleration | None = None) -> None:
        self.cluster = cluster
        # The fast paths this session may take: none here (AcceleratedSession takes `accel`, or the engine switch).
        self.accel = accel = self._acceleration(accel)
        self.cache = cache if accel.snapshot_cache else None
        cache = self.cache
        self.conf = conf or cluster.conf
        self.trace = trace or Trace(enabled=False)
        # Whether actions may skip answers whose only effect is their trace record (nothing is traced, and
        # the engine allows it): the reference engine runs the same code traced or not.
        self.shortcuts = accel.untraced_shortcuts and not self.trace.enabled
        self.options = options or SessionOptions()
        self.tiers: list[list[PluginOption]] = self.conf.tiers
        self.fns: dict[str, dict[str, Callable[..., Any]]] = {}
        # The plugins' order forms (add_fast), per point and plugin: OrderKey, OrderLess, OrderHeap, OrderFn.
        self.order_keys: dict[str, dict[str, Callable[[Any], Any]]] = {}
        self.order_lesses: dict[str, dict[str, Callable[[Less], Less]]] = {}
        self.order_heaps: dict[str, dict[str, Callable[[Less, int], Any]]] = {}
        self.order_fns: dict[str, dict[str, Callable[[Any, Any], int]]] = {}
        self.handlers: list[EventHandler] = []
        self.plugins: dict[str, Any] = {}
        self.result = CycleResult()
        self.notes: list[str] = []
        self._tier_cache: dict[str, list[list[tuple[str, Callable[..., Any]]]]] = {}
        self._starving_tier: list[tuple[str, Callable[..., Any]]] | None = None  # (job_starving)
        self.version = 0  # bumped by every allocate / deallocate event (what victim bounds are cached on)
        self.possible_fns: dict[tuple[str, str], PossibleFn] = {}
        self._bound_exact: bool | None = None
        self._flat_cache: dict[str, tuple[tuple[str, Callable[..., Any]], ...]] = {}
        self._less_cache: dict[str, Callable[[Any, Any], bool]] = {}
        self._placement_key_fns: Any = None  # placement_key's plugin keys, once looked up (_key_fns)
        # The jobs on which the session writes outputs of its own (fit errors, order keys), for a SnapshotCache
        # to clear before it hands them on.
        # What an earlier session kept (framework.reuse) and the capacity plugin's part of it
        # (framework.queue_tree_reuse), chosen once.
        self.reuse, self.tree_reuse = self._open_reuse(cache)
        self.output_log: list[Job] = self.reuse.output_log
        self._open_fast()
        # the actions' (framework.extension_points)
        self.placement, self.victims, self.job_lists = self._open_extension_points()
        self._snapshot()

    # ---- the extension points, as the reference engine fills them (AcceleratedSession overrides) ------------
    def _acceleration(self, accel: Acceleration | None) -> Acceleration:
        """The reference engine takes no fast path, whatever it is asked."""
        return REFERENCE

    def _open_reuse(self, cache: SnapshotCache | None) -> tuple[SnapshotReuse, QueueTreeReuse]:
        """Nothing kept: every node, job, task and the queue tree are built from the cluster objects."""
        return NoReuse(), NoTreeReuse()

    def _open_fast(self) -> None:
        """The registries of the accelerated forms: none in the reference engine."""
        self.vectorised = False

    def _open_extension_points(self) -> tuple[NodePlacement, VictimPaths, JobLists]:
        """allocate's node choice, reclaim's / preempt's victim loops and the jobs each action ranges over:
        Volcano's plain loops."""
        return ReferencePlacement(self), ReferenceVictims(self), ReferenceJobLists(self)

    def may_starve_now(self) -> list[Job] | None:
        """The jobs that might starve now, where known: never in the reference engine (every job is asked)."""
        return None

    def starving_candidates(self) -> list[Job] | None:
        """The only jobs JobStarving can answer yes for, where known: never here (every job is asked)."""
        return None

    def has_waiting_task(self) -> bool:
        """Whether a job past Pending holds a Pending, ungated task: the only tasks reclaim and preempt act
        for (their task queues hold nothing else), so without one, and with nothing traced, they decide
        nothing and need not scan the jobs. (A job with a Pending task may starve: only those are asked,
        where known.)"""
        pending = TaskStatus.PENDING
        candidates = self.may_starve_now()
        for job in self.jobs.values() if candidates is None else candidates:
            bucket = job.index.get(pending)
            if bucket and not job.is_pending() and any(not t.sch_gated for t in bucket.values()):
                return True
        return False

    def _closing_jobs(self) -> list[Job]:
        """The jobs whose close answers the session works out: all of them."""
        return list(self.jobs.values())

    def victim_bound_exact(self) -> bool:
        """Whether every request and allocatable is an integer small enough that node sums are exact
        (`exact_integers`): only then does a sum over a superset of victims bound every victim set's sum,
        and may reclaim / preempt pass over a node on that bound (NodeBound). A node holds only clones of
        the jobs' tasks and of the pods outside every job (`loose`)."""
        if self._bound_exact is None:
            tasks = [t.resreq for job in self.jobs.values() for t in job.tasks.values()]
            self._bound_exact = exact_integers(tasks) and exact_integers(t.resreq for t in self.loose) and \
                exact_integers(node.allocatable for node in self.node_list)
        return self._bound_exact


    # ---- registration --------------------------------------------------------------------
    def add_fn(self, point: str, plugin: str, fn: Callable[..., Any]) -> None:
        self.fns.setdefault(point, {})[plugin] = fn
        self._tier_cache.pop(point, None)
        self._starving_tier = None
        self._flat_cache.pop(point, None)
        self._less_cache.pop(point, None)
        self._placement_key_fns = None

    def add_fast(self, point: str, plugin: str, form: FastForm) -> None:
        """The one channel for a plugin's accelerated form of its `point` function (capacity.framework.fast_forms):
        kept only where the session's Acceleration allows that kind, so the reference engine never sees it.
        The forms answer exactly as the functions registered with add_fn (or bound them)."""
        accel = self.accel
        if isinstance(form, NodeVector):
            if accel.node_fit:
                self._add_vector_form(point, plugin, form)
        elif isinstance(form, PossibleVictims):
            if accel.victim_bounds:
                self.possible_fns[(point, plugin)] = form.possible
        elif accel.order_keys:
            if isinstance(form, OrderKey):
                self.order_keys.setdefault(point, {})[plugin] = form.key
            elif isinstance(form, OrderLess):
                self.order_lesses.setdefault(point, {})[plugin] = form.make
            elif isinstance(form, OrderHeap):
                self.order_heaps.setdefault(point, {})[plugin] = form.make
            elif isinstance(form, OrderFn):
                self.order_fns.setdefault(point, {})[plugin] = form.fn
                self._tier_cache.pop(point, None)
                self._flat_cache.pop(point, None)
            self._less_cache.pop(point, None)

    def add_event_handler(self, handler: EventHandler) -> None:
        self.handlers.append(handler)

    def tiered(self, point: str) -> list[list[tuple[str, Callable[..., Any]]]]:
        """Enabled functions for a point, grouped by tier, in configured order."""
        cached = self._tier_cache.get(point)
        if cached is not None:
            return cached
        registered = self.fns.get(point, {})
        faster = self.order_fns.get(point, {})  # (OrderFn: the same answers, what a session fixes kept)
        out: list[list[tuple[str, Callable[..., Any]]]] = []
        for tier in self.tiers:
            row = [(opt.name, faster.get(opt.name, registered[opt.name])) for opt in tier
                   if opt.name in registered and opt.enabled(point)]
            out.append(row)
        self._tier_cache[point] = out
        return out

    def flat(self, point: str) -> tuple[tuple[str, Callable[..., Any]], ...]:
        """`tiered(point)` in one sequence, tier after tier: for the points whose answer is the first
        decisive function's whatever its tier (orders, job_valid, job_ready, allocatable ...)."""
        cached = self._flat_cache.get(point)
        if cached is None:
            cached = self._flat_cache[point] = tuple(pair for tier in self.tiered(point) for pair in tier)
        return cached

    def hierarchy_enabled(self, plugin: str) -> bool:
        opt = self.conf.plugin(plugin)
        return bool(opt and opt.hierarchy)

    # ---- order functions -----------------------------------------------------------------
    def job_order_compare(self, l: Job, r: Job) -> int:
        """JobOrderCompareFn: plugins only, no fallback."""
        for _name, fn in self.flat("jobOrder"):
            j = fn(l, r)
            if j != 0:
                return j
        return 0

    def job_order_fn(self, l: Job, r: Job) -> bool:
        return self.job_less()(l, r)

    def queue_order_fn(self, l: QueueSpec, r: QueueSpec) -> bool:
        return self.queue_less()(l, r)

    def task_order_fn(self, l: Task, r: Task) -> bool:
        return self.task_less()(l, r)

    # The same three orders as closures over the functions registered now: what the actions' heaps
    # call, hundreds of thousands of times a cycle (no tier walk, no attribute lookups per call).
    def job_less(self) -> Callable[[Job, Job], bool]:
        """JobOrderFn (session_plugins.go): the plugins, then creation time, then UID."""
        cached = self._less_cache.get("jobOrder")
        if cached is None:
            cached = self._less_cache["jobOrder"] = _first_decisive(self.flat("jobOrder"), _job_tie)
        return cached

    def job_key(self) -> Callable[[Job], tuple[Any, ...]] | None:
        """The job order as a key, where every enabled jobOrder plugin offers one (OrderKey): never in the
        reference engine (AcceleratedSession's)."""
        return None

    def queue_less(self) -> Callable[[QueueSpec, QueueSpec], bool]:
        """QueueOrderFn: the plugins, then creation time, then name."""
        cached = self._less_cache.get("queueOrder")
        if cached is None:
            pairs = self.flat("queueOrder")
            make = self.order_lesses.get("queueOrder", {}).get(pairs[0][0]) if len(pairs) == 1 else None
            cached = make(_queue_tie) if make is not None else _first_decisive(pairs, _queue_tie)
            self._less_cache["queueOrder"] = cached
        return cached

    def queue_heap(self, pops: int) -> Any:
        """An empty heap of queues in the queue order, for allocate (about `pops` pops to come): the only
        queue-order plugin's own (OrderHeap) where it offers one, else PriorityQueue(queue_less())."""
        pairs = self.flat("queueOrder")
        if len(pairs) == 1:
            make = self.order_heaps.get("queueOrder", {}).get(pairs[0][0])
            heap = make(_queue_tie, pops) if make is not None else None
            if heap is not None:
                return heap
        return PriorityQueue(self.queue_less())

    def task_less(self) -> Callable[[Task, Task], bool]:
        """TaskOrderFn: the plugins, then CompareTask."""
        cached = self._less_cache.get("taskOrder")
        if cached is None:
            cached = self._less_cache["taskOrder"] = _first_decisive(self.flat("taskOrder"), compare_task)
        return cached

    def victim_queue_order_fn(self, l: QueueSpec, r: QueueSpec, preemptor_queue: QueueSpec) -> bool:
        for tier in self.tiered("victimQueueOrder"):
            for _name, fn in tier:
                j = fn(l, r, preemptor_queue)
                if j != 0:
                    return j < 0
        return not self.queue_order_fn(l, r)

    def victim_less(self, preemptor: Task) -> Callable[[Task, Task], bool]:
        """BuildVictimsPriorityQueue's comparator (session_plugins.go:1163-1215): true = evict l first."""
        pjob = self.jobs.get(preemptor.job)
        pqueue = self.queues.get(pjob.queue) if pjob is not None else None
        if self.options.older("pr5115"):  # session_plugins.go:L1093-1130 @v1.14.0: !JobOrderFn, no task tie-break
            return self._victim_less_by_job(pqueue)

        def less(l: Task, r: Task) -> bool:
            if l.job == r.job:
                return not self.task_order_fn(l, r)
            lj = self.jobs.get(l.job)
            rj = self.jobs.get(r.job)
            if lj is None or rj is None:
                if lj is None and rj is not None:
                    return True
                if rj is None and lj is not None:
                    return False
                return not self.task_order_fn(l, r)
            if pqueue is None:
                j = self.job_order_compare(lj, rj)
                if j != 0:
                    return j > 0
                return not self.task_order_fn(l, r)
            if lj.queue != rj.queue:
                return self.victim_queue_order_fn(self.queues[lj.queue], self.queues[rj.queue], pqueue)
            j = self.job_order_compare(lj, rj)
            if j != 0:
                return j > 0
            return not self.task_order_fn(l, r)

        return less

    def _victim_less_by_job(self, pqueue: QueueSpec | None) -> Callable[[Task, Task], bool]:
        """victim_less before PR #5115: victims of two jobs go by !JobOrderFn, whose creation/UID fallback
        puts the newest job's pods first when the plugins rank the jobs equal, whatever the pods' priority."""
        job_less = self.job_less()
        trace = self.trace
        noted: set[frozenset[str]] = set()

        def less(l: Task, r: Task) -> bool:
            if l.job == r.job:
                return not self.task_order_fn(l, r)
            lj, rj = self.jobs.get(l.job), self.jobs.get(r.job)
            if lj is None or rj is None:
                return lj is None if (lj is None) != (rj is None) else not self.task_order_fn(l, r)
            if pqueue is not None and lj.queue != rj.queue:
                return self.victim_queue_order_fn(self.queues[lj.queue], self.queues[rj.queue], pqueue)
            first = not job_less(lj, rj)
            if trace.enabled and frozenset((l.uid, r.uid)) not in noted and self.job_order_compare(lj, rj) == 0 \
                    and first == self.task_order_fn(l, r):  # HEAD would take them the other way round
                noted.add(frozenset((l.uid, r.uid)))
                a, b = (l, r) if first else (r, l)
                aj, bj = (lj, rj) if first else (rj, lj)
                words = (f"{self.options.older_words('pr5115')}: {a.key} is taken before {b.key}: job {aj.uid} "
                         f"comes after job {bj.uid} by creation time and UID (HEAD: by task order)")
                trace.event("victimOrderByJob", a.key, True, switch="pr5115", before=b.key, words=words)
            return first

        return less

    def victims_in_order(self, victims: list[Task], preemptor: Task) -> list[Task]:
        """Victims in the order BuildVictimsPriorityQueue pops them (least important first)."""
        pq = PriorityQueue(self.victim_less(preemptor), victims)
        return [pq.pop() for _ in range(len(pq))]

    def describe_queue(self, queue: QueueSpec) -> dict[str, Any]:
        """What the queue-order plugins know about a queue right now (for the decision trace)."""
        out: dict[str, Any] = {}
        for plugin in self.plugins.values():
            describe = getattr(plugin, "describe_queue", None)
            if describe is not None:
                out.update(describe(queue))
        return out

    # ---- job predicates ------------------------------------------------------------------
    def job_valid(self, job: Job) -> tuple[bool, str]:
        for name, fn in self.flat("jobValid"):
            ok, reason = fn(job)
            if not ok:
                if self.trace.enabled:
                    self.trace.because(name, "jobValid", reason)
                self.trace.vote("jobValid", job.uid, name, False)
                return False, reason
        return True, ""

    def _vote(self, point: str, subject: str, *args: Any) -> bool:
        """JobEnqueueable / JobPipelined voting: a Reject wins, a tier with a Permit decides."""
        tiers = self.tiered(point)
        trace = self.trace
        for ti, tier in enumerate(tiers):
            permit = False
            for name, fn in tier:
                v = fn(*args)
                if trace.enabled:
                    trace.vote(point, subject, name, _VOTE_NAMES.get(v, "Abstain"))
                if v < 0:
                    return False
                if v > 0:
                    permit = True
            if permit:
                if trace.enabled:  # (the names are only read by the record: not listed untraced)
                    later = [n for t in tiers[ti + 1:] for n, _ in t]
                    if later:
                        trace.event(f"{point}TierShortCircuit", subject, True, tier=ti,
                                    quirk=f"a Permit in tier {ti + 1} hides {', '.join(later)} in later tiers")
                return True
        return True

    def job_enqueueable(self, job: Job) -> bool:
        return self._vote("jobEnqueueable", job.uid, job)

    def job_enqueued(self, job: Job) -> None:
        for _name, fn in self.flat("jobEnqueued"):
            fn(job)

    def job_pipelined(self, job: Job) -> bool:
        return self._vote("jobPipelined", job.uid, job)

    def job_ready(self, job: Job) -> bool:
        for _name, fn in self.flat("jobReady"):  # noqa: SIM110 - a loop is cheaper than all(generator)
            if not fn(job):
                return False
        return True


    def _starving_fns(self) -> list[tuple[str, Callable[..., Any]]]:
        """The jobStarving functions that decide: the first tier's that has any."""
        tier = self._starving_tier
        if tier is None:
            tier = self._starving_tier = next((t for t in self.tiered("jobStarving") if t), [])
        return tier

    def job_starving(self, job: Job) -> bool:
        """The first tier with jobStarving functions decides (asked of every job by reclaim and preempt)."""
        tier = self._starving_fns()
        for name, fn in tier:
            if not fn(job):
                if self.trace.enabled:
                    why = getattr(self.plugins.get(name), "not_starving_reason", None)
                    if why is not None:  # the plugin's reason for its False, with its numbers
                        why(job)
                    self.trace.vote("jobStarving", job.uid, name, False)
                return False
        return bool(tier)

    # ---- queue predicates ----------------------------------------------------------------
    def allocatable(self, queue: QueueSpec, task: Task) -> bool:
        trace = self.trace
        for name, fn in self.flat("allocatable"):
            ok = fn(queue, task)
            if trace.enabled:
                trace.vote("allocatable", task.key, name, ok)
            if not ok:
                return False
        return True

    def preemptive(self, queue: QueueSpec, tasks: list[Task]) -> bool:
        subject = tasks[0].key if len(tasks) == 1 else queue.name
        for tier in self.tiered("preemptive"):
            for name, fn in tier:
                ok = fn(queue, tasks)
                self.trace.vote("preemptive", subject, name, ok)
                if not ok:
                    return False
        return True

    def overused(self, queue: QueueSpec) -> bool:
        for name, fn in self.flat("overused"):
            if fn(queue):
                self.trace.vote("overused", queue.name, name, True)
                return True
        return False

    # ---- victims -------------------------------------------------------------------------
    def _victims(self, point: str, preemptor: Task, candidates: list[Task]) -> list[Task] | None:
        """Tiered intersection (session_plugins.go:225-321), including the empty-resets-to-nil quirk."""
        trace = self.trace
        tiers = self.tiered(point)
        for ti, tier in enumerate(tiers):
            victims: list[Task] | None = None
            for name, fn in tier:
                got, vote = fn(preemptor, candidates)
                if vote == ABSTAIN:
                    trace.take()
                    continue
                if trace.enabled:
                    trace.event(f"{point}Vote", preemptor.key, [t.key for t in got], plugin=name, tier=ti)
                if not got:
                    victims = None
                    break
                if victims is None:
                    victims = list(got)
                else:
                    keep = {t.uid for t in got}
                    inter = [t for t in victims if t.uid in keep]
                    victims = inter or None
            if victims is not None:
                if trace.enabled:
                    later = [n for t in tiers[ti + 1:] for n, _ in t]
                    quirk = (f"tier {ti + 1} decided; {', '.join(later)} in later tiers were not consulted "
                             "(Volcano issue #5896)") if later else ""
                    trace.event(f"{point}Result", preemptor.key, [t.key for t in victims], tier=ti,
                                quirk=quirk)
                return victims
        trace.event(f"{point}Result", preemptor.key, [], tier=-1)
        return None

    def reclaimable(self, reclaimer: Task, reclaimees: list[Task]) -> list[Task] | None:
        return self._victims("reclaimable", reclaimer, reclaimees)


    def preemptable(self, preemptor: Task, preemptees: list[Task]) -> list[Task] | None:
        return self._victims("preemptable", preemptor, preemptees)

    # ---- predicates and scoring ----------------------------------------------------------
    def pre_predicate(self, task: Task) -> str | None:
        for _name, fn in self.flat("prePredicate"):
            err = fn(task)
            if err:
                return err
        return None

    def predicate(self, task: Task, node: Node) -> FitError | None:
        for _name, fn in self.flat("predicate"):
            err = fn(task, node)
            if err is not None:
                return err
        return None

    def predicate_for_allocate(self, task: Task, node: Node) -> FitError | None:
        err = self.predicate(task, node)
        if err is None or err.code == SUCCESS:
            return None
        return err

    def predicate_for_preempt(self, task: Task, node: Node) -> FitError | None:
        err = self.predicate(task, node)
        if err is None or err.code in (SUCCESS, UNSCHEDULABLE):
            return None
        return err

    def node_scores(self, task: Task, nodes: Sequence[Node]) -> dict[str, float]:
        """PrioritizeNodes: per-node NodeOrderFn sums plus BatchNodeOrderFn sums."""
        scores = {n.name: 0.0 for n in nodes}
        for tier in self.tiered("nodeOrder"):
            for _name, fn in tier:
                for n in nodes:
                    scores[n.name] += fn(task, n)
        for tier in self.tiered("batchNodeOrder"):
            for _name, fn in tier:
                for node_name, s in fn(task, nodes).items():
                    scores[node_name] += s
        return scores


    # ---- events and operations -----------------------------------------------------------
    def fire_allocate(self, task: Task) -> None:
        self.version += 1
        for h in self.handlers:
            if h.allocate is not None:
                h.allocate(task)

    def fire_deallocate(self, task: Task) -> None:
        self.version += 1
        for h in self.handlers:
            if h.deallocate is not None:
                h.deallocate(task)

    def return_to_pending(self, task: Task) -> None:
        """unallocate / UnPipeline: the task is Pending again, off its node, and the plugins hear of it."""
        job = self.jobs[task.job]
        job.update_task_status(task, TaskStatus.PENDING)
        node = self.nodes.get(task.node_name)
        if node is not None:
            node.remove_task(task)
        self.fire_deallocate(task)
        task.node_name = ""

    def queue_of(self, task: Task) -> QueueSpec | None:
        job = self.jobs.get(task.job)
        return self.queues.get(job.queue) if job is not None else None

    def allocate_now(self, task: Task, node: Node) -> None:
        """Session.Allocate (backfill): allocate, then dispatch every Allocated task once the job is ready."""
        job = self.jobs[task.job]
        job.update_task_status(task, TaskStatus.ALLOCATED)
        task.node_name = node.name
        node.add_task(task)
        self.fire_allocate(task)
        if self.job_ready(job):
            for t in job.tasks_in(TaskStatus.ALLOCATED):
                self.dispatch(t)

    def dispatch(self, task: Task) -> None:
        job = self.jobs[task.job]
        job.update_task_status(task, TaskStatus.BINDING)
        self.result.binds[task.key] = task.node_name
        if self.trace.enabled:
            self.trace.event_with("bind", task.key, task.node_name, {"job": job.uid})

    def record_eviction(self, task: Task, reason: str) -> None:
        if task.key not in self.result.evicted:
            self.result.evicted.append(task.key)
        self.trace.event("evict", task.key, reason, node=task.node_name, job=task.job)

    # ---- close ---------------------------------------------------------------------------
    def close(self) -> CycleResult:
        res = self.result
        res.notes = self.notes
        closing = self.closing_jobs = self._closing_jobs()
        for job in closing:  # (what gang's close writes, from nothing)
            job.conditions = {}
            job.unschedulable_this_session = False
        for plugin in self.plugins.values():
            closer = getattr(plugin, "on_session_close", None)
            if closer is not None:
                closer(self)
        if len(closing) < len(self.jobs):
            res.podgroup_phases = self._last_close[1]  # type: ignore[index]
        initial = self._initial_phase
        moved: set[str] = set()
        for job in closing:
            uid = job.uid
            pipelined = job.tasks_in(TaskStatus.PIPELINED) if TaskStatus.PIPELINED in job.index else None
            if pipelined:
                res.pipelined[uid] = [t.node_name for t in pipelined]
                for t in pipelined:
                    if t.eviction_occurred:
                        res.nominated[t.key] = t.node_name
            phase = self._phase_at_close(job)
            if phase != initial[uid]:
                moved.add(uid)
                self.trace.event_with("phase", uid, phase, {"before": initial[uid]})
            job.phase = phase
            res.podgroup_phases[uid] = phase
        self.reuse.closed(moved, tuple(self.plugins), self.jobs, res.podgroup_phases)
        return res


    def pending_at_open(self) -> bool:
        """Whether a job was Pending (or without a phase) at open: the only jobs that can be Pending later in
        the session (actions move a Pending job to Inqueue, none moves one back). One look over the phases
        at open, in C, instead of a Python pass over the jobs."""
        phases = self._initial_phase.values()
        return PodGroupPhase.PENDING in phases or "" in phases

    def set_inqueue(self, job: Job) -> None:
        """An action moves a Pending job to Inqueue (enqueue, or allocate without enqueue)."""
        job.phase = PodGroupPhase.INQUEUE
        self.phase_log.append(job)

    def release(self) -> None:
        """Break the session's reference cycles once its result is out, so that reference counting frees
        it at once.

        Plugins and cached closures point back at the session, queue attributes at their parents and
        children (AcceleratedSession adds its NodeFit's). Left to the cyclic collector, a cycle's whole session
        (some 140k objects at the openb scale) would be walked by the collection that follows the cycle and by
        later ones before it is freed. The session is unusable afterwards: only `run_cycle`, which never hands
        it out, calls this.
        """
        for plugin in self.plugins.values():
            release = getattr(plugin, "release", None)
            if release is not None:
                release()
            plugin.__dict__.clear()
        self.__dict__.clear()

    def _phase_at_close(self, job: Job) -> str:
        """getPodGroupPhase (session.go:581-635)."""
        index = job.index  # Job.count / scheduled_task_num read straight off the status index
        running = len(index.get(TaskStatus.RUNNING) or ())
        if running > 0 and job.unschedulable_this_session:
            return PodGroupPhase.UNKNOWN
        succeeded = len(index.get(TaskStatus.SUCCEEDED) or ())
        failed = len(index.get(TaskStatus.FAILED) or ())
        scheduled = running + len(index.get(TaskStatus.BOUND) or ()) + failed + succeeded
        if TaskStatus.RELEASING in index:
            releasing = job.releasing_scheduled_task_num()
            if not self.options.older("pr5796"):
                scheduled += releasing
            elif self.trace.enabled and scheduled < job.min_available <= scheduled + releasing:
                # session.go:L586-594 @v1.15.0 counted no terminating pod as scheduled
                self.trace.event("releasingNotCounted", job.uid, False, switch="pr5796", releasing=releasing,
                                 words=f"{self.options.older_words('pr5796')}: {releasing} terminating pod(s) of "
                                       f"{job.uid} not counted, {scheduled} scheduled < minMember "
                                       f"{job.min_available}")
        if scheduled >= job.min_available:
            completed = succeeded + failed
            if scheduled == completed and scheduled > 0:
                return PodGroupPhase.COMPLETED
            return PodGroupPhase.RUNNING
        if job.phase != PodGroupPhase.INQUEUE:
            return PodGroupPhase.PENDING
        return PodGroupPhase.INQUEUE


def _job_tie(l: Job, r: Job) -> bool:
    if l.creation != r.creation:
        return l.creation < r.creation
    return l.uid < r.uid


def _queue_tie(l: QueueSpec, r: QueueSpec) -> bool:
    if l.creation != r.creation:
        return l.creation < r.creation
    return l.name < r.name


def _first_decisive(pairs: tuple[tuple[str, Callable[..., Any]], ...],
                    tie: Callable[[Any, Any], bool]) -> Callable[[Any, Any], bool]:
    """An order's `less`: the first plugin answer that is not 0 decides (negative = l first), else `tie`.
    Written out for one and two plugins, the usual cases, to save the loop on every heap comparison."""
    fns = tuple(fn for _name, fn in pairs)
    if len(fns) == 1:
        f0 = fns[0]

        def less1(l: Any, r: Any) -> bool:
            j = f0(l, r)
            if j != 0:
                return j < 0
            return tie(l, r)

        return less1
    if len(fns) == 2:
        f0, f1 = fns

        def less2(l: Any, r: Any) -> bool:
            j = f0(l, r)
            if j != 0:
                return j < 0
            j = f1(l, r)
            if j != 0:
                return j < 0
            return tie(l, r)

        return less2

    def less(l: Any, r: Any) -> bool:
        for fn in fns:
            j = fn(l, r)
            if j != 0:
                return j < 0
        return tie(l, r)

    return less
