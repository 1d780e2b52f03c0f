"""The session's snapshot of the cluster: nodes, jobs and tasks built from the cluster objects at open.

Volcano's cache.Snapshot (pkg/scheduler/cache/cache.go @ed72c7c8) and the JobInfo / TaskInfo / NodeInfo it
builds (pkg/scheduler/api). The places where an accelerated engine takes over the nodes, jobs and tasks an
earlier session left as they were built call `self.reuse` (capacity.framework.reuse: NoReuse keeps nothing;
capacity.accel.snapshot_keep.KeptSnapshot wraps a SnapshotCache; SessionSnapshotReuse links their tasks).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from capacity.core.model import Job, Node, QueueSpec, Task, TaskStatus
from capacity.core.resources import Resource

if TYPE_CHECKING:
    from capacity.accel import Acceleration
    from capacity.accel.nodefit import NodeFit
    from capacity.accel.pod_reading import PodReading
    from capacity.accel.snapshot_cache import SnapshotCache
    from capacity.core.cluster import Cluster
    from capacity.framework.extension_points import NodePlacement, VictimPaths
    from capacity.framework.fast_forms import PossibleFn
    from capacity.framework.queue_tree_reuse import QueueTreeReuse
    from capacity.framework.reuse import SnapshotReuse


def _task(pod: Any, job_key: str) -> Task:
    """The session's task of a pod."""
    return Task(pod.uid, pod.name, pod.namespace, job_key, pod.role, pod.resreq, pod.priority, pod.preemptable,
                pod.node_name, pod.task_status(), pod.spec, pod.sch_gated, pod.nominated_node)


class SessionAttrs:
    """What the Session's parts (the snapshot, SessionSnapshot, and the acceleration beside it, capacity.accel's
    SessionSnapshotReuse and SessionFast) read of one another: the fields set at open and the methods each
    part calls of another's, declared once for all of them so that each part is type-checked on its own."""

    cluster: Cluster
    accel: Acceleration
    cache: SnapshotCache | None  # (read by capacity.accel only; the snapshot reaches it through `reuse`)
    reuse: SnapshotReuse  # what an earlier session kept (framework.reuse; chosen at open)
    tree_reuse: QueueTreeReuse  # what of the capacity plugin's queue tree (framework.queue_tree_reuse; the same)
    plugins: dict[str, Any]
    possible_fns: dict[tuple[str, str], PossibleFn]
    queues: dict[str, QueueSpec]
    fresh_jobs: list[Job]
    last_victim_table: Any
    last_jobs: dict[str, Job] | None
    all_tasks: dict[str, Task]
    loose: list[Task]
    kept_jobs: set[str] | None
    may_starve_open: set[str] | None
    jobs: dict[str, Job]
    _last_close: tuple[tuple[str, ...], dict[str, str]] | None
    phase_log: list[Job]
    vector_fns: dict[tuple[str, str], Callable[..., Any]]
    vector_keys: dict[tuple[str, str], Callable[[Task], Any]]
    node_fn_makers: dict[tuple[str, str], Callable[[Task], Any]]
    _node_fit: NodeFit | None
    nodes: dict[str, Node]
    node_list: list[Node]
    node_objs: list[Any]
    total_resource: Resource
    rebuilt_alike: set[str]
    _initial_phase: dict[str, str]
    vectorised: bool
    _bound_exact: bool | None
    _placement_key_fns: Any
    placement: NodePlacement  # allocate's and backfill's node choice (extension_points; chosen in _open_fast)
    victims: VictimPaths  # the nodes reclaim and preempt visit (the same)

    if TYPE_CHECKING:  # (the methods one part calls of another: Session's, SessionSnapshotReuse's)
        def flat(self, point: str) -> tuple[tuple[str, Callable[..., Any]], ...]: ...

        def tiered(self, point: str) -> list[list[tuple[str, Callable[..., Any]]]]: ...

        def _starving_fns(self) -> list[tuple[str, Callable[..., Any]]]: ...

        def _link_changed(self, jobs: dict[str, Job], reused: set[str], reading: PodReading) -> None: ...

        def _add_vector_form(self, point: str, plugin: str, form: Any) -> None: ...

        def job_less(self) -> Callable[[Job, Job], bool]: ...


class SessionSnapshot(SessionAttrs):
    """Session's open: the snapshot (cache.Snapshot) and the tasks linked to their jobs and nodes."""

    # ---- snapshot (cache.Snapshot) ----------------------------------------------------------
    def _snapshot(self) -> None:
        c = self.cluster
        self.queues = dict(c.queues)
        reuse = self.reuse  # (what an earlier session kept, taken over where its inputs are the same: framework.reuse)
        reuse.read_pods(c.pods)
        offered, since, moved = reuse.offered, reuse.since, reuse.moved
        kept_nodes = reuse.nodes(c.nodes)
        if kept_nodes is not None:
            # node_objs: the cluster's node behind each
            self.node_objs, self.node_list, self.nodes, self.total_resource, reused = kept_nodes
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
        same: set[str] = set()  # the jobs taken as kept, their tasks with them
        # The jobs built anew from the very inputs the last session's job of their uid was built from (that
        # job changed in the session, so it was not kept): each as that job was at its open.
        alike: set[str] = set()
        self.rebuilt_alike = alike
        # The jobs built anew although the last session's were offered (what a kept VictimTable must not have
        # missed), and the VictimTable the last session used (capacity.accel.victim_bound).
        self.fresh_jobs = reuse.fresh_jobs
        self.last_victim_table = reuse.take_victim_table()
        seen = reuse.podgroups_seen((tuple(self.queues), tuple(c.priority_classes.items()),
                                     c.global_default_priority))
        offered_get, gone = offered.jobs.get, offered.gone  # (KeptJobs.get, inline: once per PodGroup)
        same_inputs, built_anew = reuse.same_inputs, reuse.built_anew
        pgs = c.podgroups
        # (`seen` is empty unless the pods' changes are known: `moved` is a set then)
        todo = reuse.podgroups_to_read(pgs) if seen else None
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
            got = same_inputs(uid, pg, priority, pre_raw, alike)
            if got is not None:
                jobs[uid] = got
                same.add(uid)
                continue
            job = jobs[uid] = Job(uid, pg.name, pg.namespace, pg.queue, pg.min_member, dict(pg.min_task_member),
                                  priority, pre_raw == "true", pre_raw is not None, pg.creation,
                                  pg.phase, pg.min_resources, pg.annotations, pg.priority_class_name)
            built_anew(job)
        # The last session's jobs (its `jobs` dict), when this session's have the same uids: each is then
        # the last one's (kept) or built anew in its place (`fresh_jobs`). None otherwise, or nothing kept.
        self.last_jobs = reuse.last_jobs(jobs)
        # The session's task of every pod in a job; the tasks on nodes of the others, in pod order (of no
        # PodGroup, or of one the session leaves out): not in `all_tasks`.
        self.all_tasks = {}
        self.loose = []
        # The jobs taken as the last session left them, if every pod has a uid of its own: their tasks are
        # then the session's tasks of their pods (None: not known so).
        self.kept_jobs = None
        reading = reuse.unique_reading()
        if reading is not None:
            self._link_changed(jobs, reused, reading)
            self.kept_jobs = same
        else:
            self._link(jobs, same, reused)
        # The jobs that might starve at open (Job.may_starve), where known.
        self.may_starve_open = reuse.may_starve(same)
        # (In uid order: the last session's when the uids are the same.)
        # (the bulk take-over's `jobs`, if it has the last session's uids, has them in its order)
        self.jobs = jobs if todo is not None and self.last_jobs is not None else {
            uid: jobs[uid] for uid in (self.last_jobs or sorted(jobs))}
        # The jobs' phases at open, and where kept, the close of the session `last_jobs` was (`close` may take
        # its answers): its plugins and phases.
        self._last_close = None
        last = reuse.take_close()
        if last is not None and last[1] is self.last_jobs is not None:
            self._last_close = (last[0], last[2])
            self._initial_phase = dict(last[2])  # (a kept job's phase is the one the last close gave it)
            for job in self.fresh_jobs:
                self._initial_phase[job.uid] = job.phase
        else:
            self._initial_phase = {uid: j.phase for uid, j in self.jobs.items()}
        # The jobs whose phase an action wrote (set_inqueue).
        self.phase_log = []
        reuse.hand_over(self.jobs, self.all_tasks, self.kept_jobs is not None, c.podgroups)

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
