"""One scheduling session: the snapshot, the plugins' registered functions, and how tiers combine them.

Mirrors pkg/scheduler/framework/session.go and session_plugins.go (spec actions-framework §3-4,
queue-plugins §1.10). Every extension-point answer passes through a combinator here, which is where
the decision trace files each plugin's vote with its reason.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from capacity import nodefit
from capacity.cluster import Cluster
from capacity.conf import PluginOption, SchedulerConf
from capacity.framework.heap import PriorityQueue
from capacity.framework.pod_reading import PodReading
from capacity.framework.snapshot_cache import KeptJobs, SnapshotCache
from capacity.model import (
    ALLOCATED_STATUSES,
    Job,
    Node,
    PodGroupPhase,
    QueueSpec,
    Task,
    TaskStatus,
)
from capacity.resources import Resource
from capacity.trace import Trace

_STARVING_NEEDS_MAY_STARVE = frozenset({"priority", "gang"})
"""The plugins whose jobStarving answers yes only for a job that Job.may_starve."""

PERMIT = 1
ABSTAIN = 0
REJECT = -1
_VOTE_NAMES = {PERMIT: "Permit", REJECT: "Reject"}  # what the trace calls a vote

# Kubernetes framework status codes used by predicates.
SUCCESS = "Success"
UNSCHEDULABLE = "Unschedulable"
UNRESOLVABLE = "UnschedulableAndUnresolvable"
ERROR = "Error"


@dataclass(slots=True)
class FitError:
    """A predicate failure on one node: the status code and the reasons."""

    node: str
    code: str
    reasons: list[str]

    def __str__(self) -> str:
        return f"{self.node}: {', '.join(self.reasons)}"


#: The version switch (capacity/versions/switches.py) behind each seed compatibility flag.
_SEED_FLAGS = (("leaf_only_allocatable", "pr3940"), ("seed004_root_init", "pr4973"),
               ("legacy_namespace_fairshare", "pr2757"))


@dataclass(slots=True)
class SessionOptions:
    """Which upstream changes this session lacks (capacity/versions): the one place the engine reads
    a release's older behaviour from. All empty = Volcano HEAD. The three seed flags are switches of the
    same table under their older names: a flag set turns its switch off, and a release lacking the switch
    sets the flag."""

    leaf_only_allocatable: bool = False      # seed 003: hierarchical allocate checks only the leaf
    seed004_root_init: bool = False          # seed 004: root capability/deserved := cluster total
    legacy_namespace_fairshare: bool = False  # seed 002: Volcano <= 1.7 namespace weights
    lacking: frozenset[str] = frozenset()    # switch ids whose older behaviour applies
    version: str = "HEAD"                    # the release chosen ("v1.13"), as a trace names it

    def __post_init__(self) -> None:
        self.lacking = frozenset(self.lacking)
        for flag, switch in _SEED_FLAGS:
            if switch in self.lacking:
                setattr(self, flag, True)

    def older(self, switch: str) -> bool:
        """True when the session runs the behaviour from before `switch`'s change."""
        return switch in self.lacking or any(s == switch and getattr(self, f) for f, s in _SEED_FLAGS)

    def set_by_release(self, flag: str) -> bool:
        """True when the chosen release lacks the switch behind a seed flag (the flag cannot be turned off)."""
        return any(f == flag and s in self.lacking for f, s in _SEED_FLAGS)

    def all_lacking(self) -> frozenset[str]:
        """Every switch this session runs the older behaviour of: the release's and the seed flags'."""
        return self.lacking | {s for f, s in _SEED_FLAGS if getattr(self, f)}

    def older_words(self, switch: str) -> str:
        """The trace's words for a decision the older behaviour made ("v1.13: ... (before PR #4659 ...)")."""
        from capacity.versions import older_words
        return older_words(switch, self.version)


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
    records: list[Any] = field(default_factory=list)  # this cycle's decision records (capacity.trace.Record)
    notes: list[str] = field(default_factory=list)  # the session's notes (plugins' warnings about this cycle)


class PluginBound:
    """One plugin's bound (Session.add_possible_fn) for one preemptor: its test and the key under which
    its answers may be reused (None: not reusable)."""

    __slots__ = ("key", "test", "vector")

    def __init__(self, key: Any, test: Callable[[Task], bool],
                 vector: Callable[[Any, Any], Any] | None = None) -> None:
        self.key = key
        self.test = test
        self.vector = vector  # (table, rows) -> `test` of each of a VictimTable's rows at once, or None


class VictimBound:
    """Session.victim_possible's answer: what `_victims` can answer for one preemptor, tier by tier.

    `tiers` holds, per tier with plugins, the bounds of its plugins that have one and the bound of its
    last plugin (None if that one has none). A tier answers nothing on a node where one of those plugins
    allows none of the candidates (that plugin answers empty, which ends the tier); elsewhere it answers
    at most what its last plugin allows (its answer is intersected with, or after an empty intersection
    replaces, what came before), or anything if that plugin has no bound.
    """

    __slots__ = ("tiers",)

    def __init__(self, tiers: list[tuple[list[PluginBound], PluginBound | None]]) -> None:
        self.tiers = tiers

    def allowed(self, candidates: list[Task]) -> list[Task]:
        """The candidates (of one node, all of them) that `_victims` could name, in their order."""
        keep: set[int] = set()
        for bounds, last in self.tiers:
            if any(not any(b.test(t) for t in candidates) for b in bounds):
                continue
            if last is None:
                return list(candidates)
            keep.update(k for k, t in enumerate(candidates) if last.test(t))
        return [t for k, t in enumerate(candidates) if k in keep]


def _task(pod: Any, job_key: str) -> Task:
    """The session's task of a pod."""
    return Task(pod.uid, pod.name, pod.namespace, job_key, pod.role, pod.resreq, pod.priority, pod.preemptable,
                pod.node_name, pod.task_status(), pod.spec, pod.sch_gated, pod.nominated_node)


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


class Session:
    """Snapshot of the cluster plus the registry of plugin functions for one cycle."""

    def __init__(self, cluster: Cluster, conf: SchedulerConf | None = None, trace: Trace | None = None,
                 options: SessionOptions | None = None, cache: SnapshotCache | None = None) -> None:
        self.cluster = cluster
        self.cache = cache
        self.conf = conf or cluster.conf
        self.trace = trace or Trace(enabled=False)
        self.options = options or SessionOptions()
        self.tiers: list[list[PluginOption]] = self.conf.tiers
        self.fns: dict[str, dict[str, Callable[..., Any]]] = {}
        # Per point, plugins whose order function is also a key (add_order_key).
        self.order_keys: dict[str, dict[str, Callable[[Any], Any]]] = {}
        self.order_lesses: dict[str, dict[str, Callable[[Any], Callable[[Any, Any], bool]]]] = {}  # add_order_less
        self.order_heaps: dict[str, dict[str, Callable[[Any, int], Any]]] = {}  # add_order_heap
        self.handlers: list[EventHandler] = []
        self.plugins: dict[str, Any] = {}
        self.result = CycleResult()
        self.notes: list[str] = []
        self._tier_cache: dict[str, list[list[tuple[str, Callable[..., Any]]]]] = {}
        self._starving_tier: list[tuple[str, Callable[..., Any]]] | None = None  # (job_starving)
        self.version = 0  # bumped by every allocate / deallocate event (what victim bounds are cached on)
        self.possible_fns: dict[tuple[str, str], Callable[[Task], tuple[Any, Callable[[Task], bool]]]] = {}
        self._bound_exact: bool | None = None
        self._flat_cache: dict[str, tuple[tuple[str, Callable[..., Any]], ...]] = {}
        self._less_cache: dict[str, Callable[[Any, Any], bool]] = {}
        self._placement_key_fns: Any = None  # placement_key's plugin keys, once looked up (_key_fns)
        # The jobs on which the session writes outputs of its own (fit errors, order keys), for a SnapshotCache
        # to clear before it hands them on.
        self.output_log: list[Job] = cache.output_log if cache is not None else []
        self._snapshot()

    # ---- snapshot (cache.Snapshot) ----------------------------------------------------------
    def _snapshot(self) -> None:
        c = self.cluster
        self.vectorised = nodefit.ENABLED
        self.vector_fns: dict[tuple[str, str], Callable[..., Any]] = {}
        self.vector_keys: dict[tuple[str, str], Callable[[Task], Any]] = {}
        self.node_fn_makers: dict[tuple[str, str], Callable[[Task], Any]] = {}
        self._node_fit: nodefit.NodeFit | None = None
        self.queues: dict[str, QueueSpec] = dict(c.queues)
        cache = self.cache
        in_job: dict[str, tuple[tuple[Any, ...], ...]] = {}
        offered = KeptJobs({}, {}, set())  # (with a cache: the jobs it kept)
        since = 0  # (with a cache: when the pods were last read)
        moved: set[str] | None = None
        seen: dict[str, Any] = {}  # (with a cache: the PodGroups as last read, if still to be trusted)
        if cache is not None:
            # Per node and per job, every field of their pods that the snapshot reads (what a node or a job
            # a SnapshotCache kept was built from), in pod order: the fields read last time, those of the
            # pods written since read again (PodReading).
            reading = cache.pod_reading
            since = reading.stamp
            cache.job_log.clear()
            offered = cache.take_jobs()
            moved = reading.read(c.pods)  # the jobs whose pods' fields changed (None: any)
            in_job = reading.in_job
            # node_objs: the cluster's node behind each
            self.node_objs, self.node_list, self.nodes, self.total_resource, reused = \
                cache.nodes(c.nodes, reading.occupied)
        else:
            reused = set()
            self.nodes = {}
            self.node_list = []
            self.node_objs = []
            for n in c.nodes:
                if not n.ready:
                    continue
                node = Node(n.name, n.labels, n.allocatable, n.taints, n.unschedulable)
                self.nodes[n.name] = node
                self.node_list.append(node)
                self.node_objs.append(n)
            self.total_resource = Resource.empty()
            for node in self.node_list:
                self.total_resource.add(node.allocatable)
        jobs: dict[str, Job] = {}
        # Per job: what it was built from (for the cache), in the last session's dict (which may name more).
        built = offered.built
        same: set[str] = set()  # the jobs taken as kept, their tasks with them
        # The jobs built anew from the very inputs the last session's job of their uid was built from (that
        # job changed in the session, so it was not kept): each as that job was at its open.
        alike = self.rebuilt_alike = set()
        # The jobs built anew although a cache was given (what a kept VictimTable must not have missed), and
        # the VictimTable the last session used (capacity.actions.victim_bound).
        self.fresh_jobs: list[Job] = []
        self.last_victim_table: Any = cache.take_victim_table() if cache is not None else None
        if cache is not None:
            # A PodGroup not written since the last snapshot, the same object, whose pods did not change, under
            # the same queues and priority classes, has the inputs its kept job was built from (if one was).
            seen = reading.podgroups
            world = (tuple(self.queues), tuple(c.priority_classes.items()), c.global_default_priority)
            if moved is None or world != reading.world:
                seen = {}
            reading.world = world
        offered_get, gone = offered.jobs.get, offered.gone  # (KeptJobs.get, inline: once per PodGroup)
        pgs = c.podgroups
        todo = reading.podgroups_to_read(pgs, since, moved, offered.jobs, gone) if seen else None  # type: ignore[arg-type]
        if todo is not None:
            # The same loop over the PodGroups in `todo` only, every other one's kept job taken in bulk: the
            # kept jobs, in the last session's order (`jobs` is looked up, never iterated in order, but for
            # `self.jobs` below), those of `todo` replaced in place, added or dropped.
            jobs = dict(offered.jobs)
            same.update(jobs)
            same.difference_update(todo)
        for uid, pg in (pgs.items() if todo is None else zip(todo, map(pgs.__getitem__, todo), strict=True)):
            if todo is None and pg.rev < since and seen.get(uid) is pg and uid not in moved:  # type: ignore[operator]
                got = offered_get(uid)
                if got is not None and uid not in gone:
                    jobs[uid] = got
                    same.add(uid)
                    continue
            if pg.queue not in self.queues:
                if todo is not None:
                    jobs.pop(uid, None)
                continue
            pre_raw = pg.annotations.get("volcano.sh/preemptable", pg.labels.get("volcano.sh/preemptable"))
            priority = c.job_priority(pg)
            if cache is not None:
                sig = (pg.name, pg.namespace, pg.queue, pg.min_member, tuple(pg.min_task_member.items()), priority,
                       pre_raw, pg.creation, pg.phase, pg.min_resources, pg.annotations, pg.priority_class_name,
                       in_job.get(uid, ()))
                got = offered.get(uid)
                if got is not None and built[uid] == sig:
                    jobs[uid] = got
                    same.add(uid)
                    continue
                if uid in offered.jobs and built.get(uid) == sig:
                    alike.add(uid)
                built[uid] = sig
            job = jobs[uid] = Job(uid, pg.name, pg.namespace, pg.queue, pg.min_member, dict(pg.min_task_member),
                                  priority, pre_raw == "true", pre_raw is not None, pg.creation,
                                  pg.phase, pg.min_resources, pg.annotations, pg.priority_class_name)
            if cache is not None:
                self.fresh_jobs.append(job)
                job.change_log = cache.job_log
        # The last session's jobs (its `jobs` dict), when this session's have the same uids: each is then
        # the last one's (kept) or built anew in its place (`fresh_jobs`). None otherwise, or without a cache.
        self.last_jobs: dict[str, Job] | None = None
        if cache is not None and len(offered.jobs) == len(jobs) and all(job.uid in offered.jobs
                                                                        for job in self.fresh_jobs):
            self.last_jobs = offered.jobs
        # The session's task of every pod in a job; the tasks on nodes of the others, in pod order (of no
        # PodGroup, or of one the session leaves out): not in `all_tasks`.
        self.all_tasks: dict[str, Task] = {}
        self.loose: list[Task] = []
        # The jobs taken as the last session left them, if every pod has a uid of its own: their tasks are
        # then the session's tasks of their pods (None: not known so).
        self.kept_jobs: set[str] | None = None
        if cache is not None and not reading.shared_uids:
            self._link_changed(jobs, reused, reading)
            self.kept_jobs = same
        else:
            self._link(jobs, same, reused)
        # The jobs that might starve at open (Job.may_starve), with a cache: a kept job's tasks and their
        # statuses are those the last session opened with, so its answer is the one then.
        self.may_starve_open: set[str] | None = None
        if cache is not None:
            self.may_starve_open = cache.may_starve = {uid for uid in cache.may_starve if uid in same}.union(
                job.uid for job in self.fresh_jobs if job.may_starve())
        # (In uid order: the last session's when the uids are the same.)
        # (the bulk take-over's `jobs`, if it has the last session's uids, has them in its order)
        self.jobs: dict[str, Job] = jobs if todo is not None and self.last_jobs is not None else {
            uid: jobs[uid] for uid in (self.last_jobs or sorted(jobs))}
        # The jobs' phases at open, and with a cache, the close of the session `last_jobs` was (`close` may take
        # its answers): its plugins and phases.
        self._last_close: tuple[tuple[str, ...], dict[str, str]] | None = None
        last = None
        if cache is not None:
            last, cache.close_phases = cache.close_phases, None
        if last is not None and last[1] is self.last_jobs is not None:
            self._last_close = (last[0], last[2])
            self._initial_phase = dict(last[2])  # (a kept job's phase is the one the last close gave it)
            for job in self.fresh_jobs:
                self._initial_phase[job.uid] = job.phase
        else:
            self._initial_phase = {uid: j.phase for uid, j in self.jobs.items()}
        # The jobs whose phase an action wrote (set_inqueue).
        self.phase_log: list[Job] = []
        if cache is not None:
            if self.kept_jobs is not None:  # (all_tasks from _link_changed: every job's tasks)
                cache.all_tasks = (self.jobs, self.all_tasks)
            reading.podgroups = dict(c.podgroups)
            if len(built) > 2 * len(jobs) + 64:  # (entries of jobs long gone)
                built = {uid: built[uid] for uid in jobs}
            cache.hand_jobs(self.jobs, built)

    def _link(self, jobs: dict[str, Job], same: set[str], reused: set[str]) -> None:
        """Every pod's task (its kept job's, else a new one, added to its job), on its node unless the node
        was taken as it is (`reused`), in its node's Kubernetes mirror, in `all_tasks` or `loose`."""
        c = self.cluster
        all_tasks = self.all_tasks
        nodes_get = self.nodes.get
        jobs_get = jobs.get
        done = (TaskStatus.SUCCEEDED, TaskStatus.FAILED)
        for pod in c.pods.values():
            job_key = f"{pod.namespace}/{pod.group}" if pod.group else ""
            job = jobs_get(job_key) if job_key else None
            if job is not None and job_key in same:
                task = job.tasks[pod.uid]  # (a kept job: its task of this very pod)
            else:
                task = _task(pod, job_key)
                if job is not None:
                    job.add_task(task)
            node = nodes_get(pod.node_name) if pod.node_name else None
            if node is not None and task.status not in done:
                if pod.node_name not in reused:
                    node.add_task_unfitted(task)
                node.mirror[task.key] = task  # (a kept node: this session's task in its pod's place)
                if job is None:
                    self.loose.append(task)
            if job is not None:
                all_tasks[task.uid] = task

    def _all_tasks(self, jobs: dict[str, Job]) -> None:
        """`all_tasks`: every job's tasks. With the last session's jobs and their tasks at hand (the same
        uids, SnapshotCache.all_tasks, made of the very jobs dict `last_jobs` is) those of the jobs built anew
        replace their predecessors' only."""
        cache = self.cache
        last = cache.all_tasks if cache is not None else None
        if last is not None and last[0] is self.last_jobs is not None:
            all_tasks = self.all_tasks = dict(last[1])
            for job in self.fresh_jobs:
                for uid in self.last_jobs[job.uid].tasks:  # type: ignore[index]
                    del all_tasks[uid]
            for job in self.fresh_jobs:
                all_tasks.update(job.tasks)
        else:
            all_tasks = self.all_tasks
            for job in jobs.values():
                all_tasks.update(job.tasks)

    def _link_changed(self, jobs: dict[str, Job], reused: set[str], reading: PodReading) -> None:
        """`_link` from what the SnapshotCache's PodReading knows, visiting only what it must: the pods of
        jobs built anew and of none, and the nodes not taken as they are. A kept job holds the tasks of the
        very pods it was built from; a node taken as it is holds the same pods, its tasks and its mirror as
        the last session left them (no op changed it), which is this session's task wherever the pod's job
        was kept. Pods' uids are unique (else `_link`): `all_tasks` is then every job's tasks."""
        pods = self.cluster.pods
        done = (TaskStatus.SUCCEEDED, TaskStatus.FAILED)
        made: dict[str, Task] = {}  # per pod key, the task made for it
        for job in self.fresh_jobs:
            for key in reading.pods_of(job.uid):
                task = made[key] = _task(pods[key], job.uid)
                job.add_task(task)
        jobless = reading.jobless(jobs)
        for key in jobless:
            pod = pods[key]
            made[key] = _task(pod, f"{pod.namespace}/{pod.group}" if pod.group else "")
        self._all_tasks(jobs)
        nodes_get = self.nodes.get
        for name in reading.occupied:
            if name in reused:
                continue
            node = nodes_get(name)
            if node is None:
                continue
            for key in reading.pods_on(name):
                task = made.get(key)
                if task is None:
                    task = reading.task_of(key, jobs)
                if task.status not in done:
                    node.add_task_unfitted(task)
                    node.mirror[task.key] = task
        for key, task in made.items():
            name = reading.node_of(key)
            if name in reused and task.status not in done:
                self.nodes[name].mirror[task.key] = task  # (this session's task in its pod's place)
        for key in jobless:
            task = made[key]
            name = reading.node_of(key)
            if name and name in self.nodes and task.status not in done:
                self.loose.append(task)

    # ---- registration --------------------------------------------------------------------
    def add_fn(self, point: str, plugin: str, fn: Callable[..., Any]) -> None:
        self.fns.setdefault(point, {})[plugin] = fn
        self._tier_cache.pop(point, None)
        self._starving_tier = None
        self._flat_cache.pop(point, None)
        self._less_cache.pop(point, None)
        self._placement_key_fns = None

    def add_order_key(self, point: str, plugin: str, key: Callable[[Any], Any]) -> None:
        """`plugin`'s order function at `point` as a key: fn(l, r) < 0 iff key(l) < key(r), and 0 iff equal.
        When every enabled plugin of the point has one, the heaps compare one tuple per item (job_less)."""
        self.order_keys.setdefault(point, {})[plugin] = key
        self._less_cache.pop(point, None)

    def add_order_less(self, point: str, plugin: str, make: Callable[[Any], Callable[[Any, Any], bool]]) -> None:
        """`plugin`'s order at `point` and the tie-break after it as one `less`: make(tie) answers as
        `_first_decisive` over that plugin alone would. Used when it is the point's only enabled plugin."""
        self.order_lesses.setdefault(point, {})[plugin] = make
        self._less_cache.pop(point, None)

    def add_order_heap(self, point: str, plugin: str, make: Callable[[Any, int], Any]) -> None:
        """`plugin`'s own heap for allocate at `point`: make(tie, pops) answers an empty heap that pops as
        PriorityQueue over the plugin's order then `tie` would, or None (then that PriorityQueue is used);
        `pops`: about how many pops are to come (what a heap that costs more to set up weighs).
        Used when it is the point's only enabled plugin."""
        self.order_heaps.setdefault(point, {})[plugin] = make

    def add_event_handler(self, handler: EventHandler) -> None:
        self.handlers.append(handler)

    def tiered(self, point: str) -> list[list[tuple[str, Callable[..., Any]]]]:
        """Enabled functions for a point, grouped by tier, in configured order."""
        cached = self._tier_cache.get(point)
        if cached is not None:
            return cached
        registered = self.fns.get(point, {})
        out: list[list[tuple[str, Callable[..., Any]]]] = []
        for tier in self.tiers:
            row = [(opt.name, registered[opt.name]) for opt in tier
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

    def plugin_option(self, name: str) -> PluginOption | None:
        return self.conf.plugin(name)

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

    def task_compare(self, l: Task, r: Task) -> int:
        for _name, fn in self.flat("taskOrder"):
            j = fn(l, r)
            if j != 0:
                return j
        return 0

    def task_order_fn(self, l: Task, r: Task) -> bool:
        return self.task_less()(l, r)

    # The same three orders as closures over the functions registered now: what the actions' heaps
    # call, hundreds of thousands of times a cycle (no tier walk, no attribute lookups per call).
    def job_less(self) -> Callable[[Job, Job], bool]:
        """JobOrderFn (session_plugins.go): the plugins, then creation time, then UID."""
        cached = self._less_cache.get("jobOrder")
        if cached is None:
            key = self.job_key()
            cached = _keyed_job_less(key) if key is not None else _first_decisive(self.flat("jobOrder"), _job_tie)
            self._less_cache["jobOrder"] = cached
        return cached

    def job_key(self) -> Callable[[Job], tuple[Any, ...]] | None:
        """The job order as a key when every enabled jobOrder plugin has one (add_order_key): the plugins'
        keys in tier order, creation, UID, made once per job and kept on it (Job.order_key, dropped when
        its gang counters move). job_less(l, r) is then key(l) < key(r), and no two jobs' keys are equal."""
        pairs = self.flat("jobOrder")
        keys = self.order_keys.get("jobOrder", {})
        if not pairs or not all(name in keys for name, _fn in pairs):
            return None
        return _job_key(tuple(keys[name] for name, _fn in pairs), self.output_log)

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
        queue-order plugin's own (add_order_heap) where it offers one, else PriorityQueue(queue_less())."""
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

    def victims_in_order(self, victims: list[Task], preemptor: Task) -> list[Task]:
        """Victims in the order BuildVictimsPriorityQueue pops them (least important first)."""
        from capacity.framework.heap import PriorityQueue
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

    def may_starve_now(self) -> list[Job] | None:
        """The jobs that might starve now (Job.may_starve), in the session's job order, with a cache: those
        that might at open and those a task moved in since (Job.change_log); None without a cache."""
        if self.may_starve_open is None or self.cache is None:
            return None
        jobs = self.jobs
        uids = self.may_starve_open.union(job.uid for job in self.cache.job_log)
        return [jobs[uid] for uid in sorted(uids) if uid in jobs]

    def starving_candidates(self) -> list[Job] | None:
        """`may_starve_now` if the deciding jobStarving functions are only priority's and gang's, which
        answer yes only for such a job; else None (ask every job)."""
        tier = self._starving_fns()
        if not tier or any(name not in _STARVING_NEEDS_MAY_STARVE for name, _fn in tier):
            return None
        return self.may_starve_now()

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

    def add_possible_fn(self, point: str, plugin: str,
                        fn: Callable[[Task], tuple[Any, Callable[[Task], bool]]]) -> None:
        """A bound on the plugin's `point` ("reclaimable" / "preemptable") function, for skipping nodes.

        `fn(preemptor)` returns `(key, test)`, or `(key, test, vector)` where `vector(table, rows)`
        answers `test` for the rows (positions) of a VictimTable all at once. `test(t)` False promises
        that in the session's current state the plugin, asked about any candidate list, does not name `t`
        among preemptor's victims (so it answers empty if it allows no candidate), and that it never
        abstains. `key` (hashable, or None for "do not reuse") names everything the answers depend on
        besides the session state: callers may reuse them across preemptors with equal keys until the
        next allocate / deallocate event (`version`).
        """
        self.possible_fns[(point, plugin)] = fn

    def victim_possible(self, point: str, preemptor: Task) -> VictimBound:
        """What `_victims(point, preemptor, candidates)` can answer now, from the plugins' bounds
        (add_possible_fn): see VictimBound."""
        tiers: list[tuple[list[PluginBound], PluginBound | None]] = []
        for tier in self.tiered(point):
            if not tier:
                continue
            bounds: list[PluginBound] = []
            last: PluginBound | None = None
            for name, _fn in tier:
                make = self.possible_fns.get((point, name))
                last = None
                if make is not None:
                    key, test, *vector = make(preemptor)
                    last = PluginBound(None if key is None else (point, name, key), test, *vector)
                    bounds.append(last)
            tiers.append((bounds, last))
        return VictimBound(tiers)

    def victim_bound_exact(self) -> bool:
        """Whether every request and allocatable is an integer small enough that node sums are exact
        (NodeFit's `exact`, over the same values): only then does a sum over a superset of victims bound
        every victim set's sum, and may reclaim / preempt pass over nodes on that bound."""
        if self._bound_exact is None:
            if self._node_fit is not None:
                self._bound_exact = self._node_fit.exact
            else:
                facts = nodefit.session_request_facts(self)
                facts.add(nodefit.request_facts([node.allocatable for node in self.node_list]))
                self._bound_exact = all(exact for _, exact in facts)
        return self._bound_exact

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

    def node_scores(self, task: Task, nodes: list[Node]) -> dict[str, float]:
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

    # ---- the same questions for all nodes at once (capacity.nodefit) --------------------------------
    def add_vector_fn(self, point: str, plugin: str, fn: Callable[..., Any],
                      key: Callable[[Task], Any] | None = None,
                      node_fn: Callable[[Task], Callable[[int], Any] | None] | None = None) -> None:
        """A plugin's whole-NodeList form of its `point` function, answering exactly as the per-node one.

        `key(task)`, if given, promises that the plugin's answer for a node depends only on that node's
        own state and on what the key (a hashable, or None for "no such promise for this task") names,
        besides the task's requests: answers are then reused across tasks until the node changes.
        `node_fn(task)`, if given, returns the vector form's answer for one NodeList position as a plain
        Python function of that position (or None when it has none for this task): the vector form's
        `passed[i]` for "predicate", its score for "nodeOrder". It reads the NodeFit as it is when
        called (current at the last refresh), like the vector form, and stays good for the session and
        for every task with the same `placement_key` (allocate's Placements keep it).
        """
        self.vector_fns[(point, plugin)] = fn
        self._placement_key_fns = None
        if key is not None:
            self.vector_keys[(point, plugin)] = key
        if node_fn is not None:
            self.node_fn_makers[(point, plugin)] = node_fn

    def node_fns(self, point: str, task: Task) -> list[Callable[[int], Any]] | None:
        """Every enabled plugin's per-node form of `point` for `task`, in tier order (see add_vector_fn);
        None if one has none. Predicates pass where all pass; nodeOrder scores add up in this order."""
        if point == "nodeOrder" and self.flat("batchNodeOrder"):
            return None
        out = []
        makers = self.node_fn_makers
        for name, _fn in self.flat(point):
            make = makers.get((point, name))
            got = make(task) if make is not None else None
            if got is None:
                return None
            out.append(got)
        return out

    def placement_key(self, task: Task) -> tuple[Any, ...] | None:
        """What allocate's node choice for `task` depends on besides node state, or None if unknown."""
        fns = self._placement_key_fns
        if fns is None:
            fns = self._placement_key_fns = self._key_fns()
        if fns is False:
            return None
        init, req = task.init_resreq, task.resreq
        k0 = _resource_key(init)
        keys: list[Any] = [k0, k0 if req is init else _resource_key(req)]
        for kf in fns:
            k = kf(task)
            if k is None:
                return None
            keys.append(k)
        return tuple(keys)

    def _key_fns(self) -> tuple[Callable[[Task], Any], ...] | bool:
        """placement_key's plugin keys in tier order (predicates, then node orders), looked up once the
        plugins are open; False when one has none or batchNodeOrder is in play (no key for any task)."""
        if self.flat("batchNodeOrder"):
            return False
        fns = []
        for point in ("predicate", "nodeOrder"):
            for name, _fn in self.flat(point):
                kf = self.vector_keys.get((point, name))
                if kf is None:
                    return False
                fns.append(kf)
        return tuple(fns)

    def node_fit(self) -> nodefit.NodeFit | None:
        """The session's NodeFit, current with every accounting change; None on the reference path."""
        fit = self._node_fit
        if fit is None:
            if not self.vectorised:
                return None
            fit = self._node_fit = nodefit.NodeFit(self)
        elif fit.dirty:
            fit.refresh()
        return fit

    def predicate_vector(self, task: Task, among: Any = None, idx: Any = None) -> nodefit.PredicateVector | None:
        """Session.Predicate for every node (or the NodeList positions idx); `among` (a bool mask over all
        nodes) marks the nodes whose answer is used, so a plugin may skip its costly per-node checks
        elsewhere. None if a plugin has no vector form."""
        fit = self.node_fit()
        if fit is None:
            return None
        parts = []
        for name, _fn in self.flat("predicate"):
            vf = self.vector_fns.get(("predicate", name))
            if vf is None:
                return None
            parts.append(vf(task, among, idx))
        return nodefit.PredicateVector.combine(parts, fit.n if idx is None else len(idx))

    def node_scores_vector(self, task: Task, idx: Any) -> Any:
        """node_scores for the nodes at NodeList positions `idx`, as a float64 array in that order."""
        import numpy as np
        acc = np.zeros(len(idx))
        nodes = self.node_list
        for name, fn in self.flat("nodeOrder"):
            vf = self.vector_fns.get(("nodeOrder", name))
            got = vf(task, idx) if vf is not None else None
            if got is None:
                got = np.array([fn(task, nodes[i]) for i in idx.tolist()], dtype=float)
            acc += got
        batch = [fn for _name, fn in self.flat("batchNodeOrder")]
        if batch:
            chosen = [nodes[i] for i in idx.tolist()]
            pos = {n.name: k for k, n in enumerate(chosen)}
            for fn in batch:
                for node_name, s in fn(task, chosen).items():
                    acc[pos[node_name]] += s
        return acc

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
        if self.cache is not None:
            self.cache.phase_moved = moved
            self.cache.close_phases = (tuple(self.plugins), self.jobs, dict(res.podgroup_phases))
        return res

    def _closing_jobs(self) -> list[Job]:
        """The jobs whose close answers (gang's conditions, the phase, the pipelined tasks) the session must
        work out, in job order: all of them, or, with the last session's close at hand (`_last_close`) under
        the same plugins, only those built anew, those in which a task moved (the SnapshotCache's job_log)
        and those whose phase an action wrote (`phase_log`). Every other job is one the last session handed
        over as it closed it (SnapshotCache.keep: no task moved, its phase unchanged by the close) and
        nothing changed since: the same tasks in the same statuses, the same phase, the same plugins closing,
        so the same answers, already on the job (conditions) and in the last close's phases; and, no task
        having moved, none pipelined."""
        last = self._last_close
        if last is None or last[0] != tuple(self.plugins):
            return list(self.jobs.values())
        todo = {job.uid for job in self.fresh_jobs}
        todo.update(job.uid for job in self.cache.job_log)  # type: ignore[union-attr]
        todo.update(job.uid for job in self.phase_log)
        jobs = self.jobs
        return [jobs[uid] for uid in sorted(todo)]

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

        Plugins and cached closures point back at the session, nodes at their NodeFit and it at them,
        placements at the NodeFit, queue attributes at their parents and children. Left to the cyclic
        collector, a cycle's whole session (some 140k objects at the openb scale) would be walked by the
        collection that follows the cycle and by later ones before it is freed. The session is unusable
        afterwards: only `run_cycle`, which never hands it out, calls this.
        """
        fit = self._node_fit
        if fit is not None and self.cache is not None:
            self.cache.fit_tables = fit.tables()
        if fit is not None:  # only a NodeFit points nodes at itself
            for placement in fit.placements.values():
                placement.per_node = placement.loop_args = placement.fit = placement.ssn = None
            for node in fit.nodes:
                node.fit = None
            fit.__dict__.clear()
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
            scheduled += job.releasing_scheduled_task_num()
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


def _job_key(key_fns: tuple[Callable[[Job], Any], ...], log: list[Job]) -> Callable[[Job], tuple[Any, ...]]:
    """Session.job_key over the plugins' order keys `key_fns`; the jobs keyed go to `log`
    (Session.output_log)."""

    def key(job: Job) -> tuple[Any, ...]:
        k = job.order_key
        if k is None:
            k = job.order_key = (*[f(job) for f in key_fns], job.creation, job.uid)
            log.append(job)
        return k

    if len(key_fns) != 2:
        return key
    f0, f1 = key_fns

    def key2(job: Job) -> tuple[Any, ...]:
        """`key` for two plugin keys (the usual priority and gang), the tuple written out."""
        k = job.order_key
        if k is None:
            k = job.order_key = (f0(job), f1(job), job.creation, job.uid)
            log.append(job)
        return k

    return key2


def _keyed_job_less(key: Callable[[Job], tuple[Any, ...]]) -> Callable[[Job, Job], bool]:
    """`_first_decisive` for job orders that all have keys (the usual priority and gang): a heap comparison
    is one comparison of the two jobs' kept keys (Session.job_key): the first differing field decides as
    the first decisive plugin, then _job_tie, would."""

    def less(l: Job, r: Job) -> bool:
        kl = l.order_key
        if kl is None:
            kl = key(l)
        kr = r.order_key
        if kr is None:
            kr = key(r)
        return kl < kr  # type: ignore[no-any-return]

    return less


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


def _resource_key(r: Resource) -> tuple[Any, ...]:
    return r.cpu, r.memory, None if r.scalars is None else tuple(r.scalars.items())


def allocated_tasks(job: Job) -> list[Task]:
    return [t for t in job.tasks.values() if t.status & ALLOCATED_STATUSES]
