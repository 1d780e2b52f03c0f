"""Scheduler-side objects: tasks, jobs, nodes and queues, as Volcano's scheduler cache sees them.

These mirror `TaskInfo`, `JobInfo`, `NodeInfo` and `QueueInfo` (spec actions-framework §1) so that
the rules of the spec land on fields with the same names. The API objects they are built from live
in `capacity.core.cluster`; a session clones them so that a cycle never mutates its input.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from capacity.core.resources import Resource


class TaskStatus:
    """Volcano's task status bit flags (pkg/scheduler/api/types.go).

    Plain ints rather than an IntFlag: statuses are compared, or-ed and used as dict keys millions of
    times a cycle, and enum arithmetic costs ten times int arithmetic. `TaskStatus.name(s)` gives the
    name. Formatting is unchanged (an IntFlag formats as its integer too).
    """

    PENDING = 1
    ALLOCATED = 2
    PIPELINED = 4
    BINDING = 8
    BOUND = 16
    RUNNING = 32
    RELEASING = 64
    SUCCEEDED = 128
    FAILED = 256
    UNKNOWN = 512

    @staticmethod
    def name(status: int) -> str:
        """The flag names in `status`, joined with '|' as IntFlag names combinations."""
        names = [n for n, v in _STATUS_NAMES if status & v]
        return "|".join(names) if names else str(status)


_STATUS_NAMES = tuple((n, v) for n, v in vars(TaskStatus).items() if n.isupper())

S = TaskStatus
ALLOCATED_STATUSES = S.ALLOCATED | S.BINDING | S.BOUND | S.RUNNING
SCHEDULED_STATUSES = S.RUNNING | S.BOUND | S.FAILED | S.SUCCEEDED
COMPLETED_STATUSES = S.FAILED | S.SUCCEEDED
PREEMPTABLE_STATUSES = S.BOUND | S.RUNNING
READY_STATUSES = frozenset((S.BOUND, S.BINDING, S.RUNNING, S.ALLOCATED, S.SUCCEEDED))
"""The statuses ready_task_num counts (job_info.go ReadyTaskNum)."""


class PodGroupPhase:
    """PodGroup phases as strings, exactly as they appear in YAML."""

    PENDING = "Pending"
    INQUEUE = "Inqueue"
    RUNNING = "Running"
    UNKNOWN = "Unknown"
    COMPLETED = "Completed"


@dataclass(slots=True)
class PodSpec:
    """The parts of a pod that the predicates and orderings read; shared, never mutated."""

    labels: dict[str, str]
    annotations: dict[str, str]
    node_selector: dict[str, str]
    affinity: dict[str, Any] | None
    tolerations: list[dict[str, Any]]
    preemption_policy: str
    priority_class_name: str
    owner_kind: str
    owner_name: str
    creation: str
    has_priority: bool
    raw_priority: int


class Task:
    """A pod as a schedulable task (TaskInfo). Cloned per session; `clone` is on the hot path."""

    __slots__ = (
        "uid", "name", "namespace", "job", "role", "resreq", "init_resreq", "priority",
        "preemptable", "best_effort", "node_name", "status", "spec", "sch_gated",
        "nominated_node", "eviction_occurred", "last_transaction", "key",
    )

    def __init__(self, uid: str, name: str, namespace: str, job: str, role: str, resreq: Resource,
                 priority: int, preemptable: bool, node_name: str, status: int,
                 spec: PodSpec, sch_gated: bool = False, nominated_node: str = "") -> None:
        self.uid = uid
        self.name = name
        self.namespace = namespace
        self.job = job
        self.role = role
        self.resreq = resreq
        self.init_resreq = resreq
        self.priority = priority
        self.preemptable = preemptable
        self.best_effort = resreq.is_empty()
        self.node_name = node_name
        self.status = status
        self.spec = spec
        self.sch_gated = sch_gated
        self.nominated_node = nominated_node
        self.eviction_occurred = False
        self.last_transaction: tuple[int, str] | None = None
        self.key = f"{namespace}/{name}"

    def clone(self) -> Task:
        t = Task.__new__(Task)
        t.uid = self.uid
        t.name = self.name
        t.namespace = self.namespace
        t.job = self.job
        t.role = self.role
        t.resreq = self.resreq
        t.init_resreq = self.init_resreq
        t.priority = self.priority
        t.preemptable = self.preemptable
        t.best_effort = self.best_effort
        t.node_name = self.node_name
        t.status = self.status
        t.spec = self.spec
        t.sch_gated = self.sch_gated
        t.nominated_node = self.nominated_node
        t.eviction_occurred = self.eviction_occurred
        t.last_transaction = self.last_transaction
        t.key = self.key
        return t

    def __repr__(self) -> str:
        return f"Task({self.key}, {TaskStatus.name(self.status)}, node={self.node_name or '-'})"


class Job:
    """A PodGroup with its tasks (JobInfo), with Volcano's status index and counters."""

    __slots__ = ("uid", "name", "namespace", "queue", "min_available", "task_min_available",
                 "task_min_available_total", "roles_to_check", "priority", "preemptable", "has_preemptable_key",
                 "creation", "phase", "min_resources", "annotations", "priority_class_name", "tasks", "index",
                 "ready_num", "pending_best_effort_num", "allocated", "total_request", "nodes_fit_errors",
                 "conditions", "unschedulable_this_session", "changed", "inqueue", "request_facts", "accum_facts",
                 "order_key", "pod_affinity", "change_log")

    def __init__(self, uid: str, name: str, namespace: str, queue: str, min_available: int,
                 task_min_available: dict[str, int], priority: int, preemptable: bool,
                 has_preemptable_key: bool, creation: str, phase: str,
                 min_resources: Resource | None, annotations: dict[str, str],
                 priority_class_name: str = "") -> None:
        self.uid = uid
        self.name = name
        self.namespace = namespace
        self.queue = queue
        self.min_available = min_available
        self.task_min_available = task_min_available
        self.task_min_available_total = sum(task_min_available.values())
        # Whether check_task_valid has roles to count at all (both inputs are fixed for the session).
        self.roles_to_check = min_available >= self.task_min_available_total and any(
            n > 0 for n in task_min_available.values())
        self.priority = priority
        self.preemptable = preemptable
        self.has_preemptable_key = has_preemptable_key
        self.creation = creation
        self.phase = phase
        self.min_resources = min_resources
        self.annotations = annotations
        self.priority_class_name = priority_class_name
        self.tasks: dict[str, Task] = {}
        self.index: dict[int, dict[str, Task]] = {}
        # Kept in step with `index` by _index_add / _index_remove, so that the gang counters the job
        # order reads on every heap comparison cost O(1): tasks indexed under READY_STATUSES, and
        # best-effort tasks indexed under PENDING.
        self.ready_num = 0
        self.pending_best_effort_num = 0
        self.allocated = Resource.empty()
        self.total_request = Resource.empty()
        self.nodes_fit_errors: dict[str, Any] = {}
        self.conditions: dict[str, dict[str, str]] = {}
        self.unschedulable_this_session = False
        # Whether a task's status moved after the snapshot built the job (what makes a SnapshotCache build
        # it again instead of handing it to the next session).
        self.changed = False
        # capacity's inqueue share of the job, worked out while nothing changed (kept with the job by a
        # SnapshotCache): valid while `changed` is False.
        self.inqueue: Any = None
        # What NodeFit reads of the tasks' requests (nodefit.request_facts), kept while no task is added: a
        # task's requests never change, and a SnapshotCache hands kept jobs over with their tasks.
        self.request_facts: Any = None
        # What capacity's tree build reads of the requests and minResources (whether every value is an
        # integer, the sums of their magnitudes), kept likewise while no task is added.
        self.accum_facts: Any = None
        # Whether a task names a pod (anti-)affinity (predicates), kept likewise while no task is added.
        self.pod_affinity: bool | None = None
        # The session's job order as one comparable key (Session.job_less with plugins' order keys), kept
        # while the gang counters it reads stay put; None: not made yet.
        self.order_key: Any = None
        # Where the job puts itself when `changed` first turns True (a SnapshotCache's list, like
        # Node.touch_log), so that nobody has to scan every job to find the changed ones; None: nobody asks.
        self.change_log: list[Job] | None = None

    # ---- task index --------------------------------------------------------------------
    def _index_add(self, status: int, task: Task) -> None:
        bucket = self.index.get(status)
        if bucket is None:
            bucket = self.index[status] = {}
        old = bucket.get(task.uid)
        if old is not None:
            self._index_forget(status, old)
        bucket[task.uid] = task
        self._index_count(status, task)

    def _index_count(self, status: int, task: Task) -> None:
        """The counters of a task just filed under `status` (`_index_forget` takes them back)."""
        if status in READY_STATUSES:
            self.ready_num += 1
            self.order_key = None
        elif status == S.PENDING and task.best_effort:
            self.pending_best_effort_num += 1
            self.order_key = None

    def _index_remove(self, status: int, uid: str) -> None:
        bucket = self.index.get(status)
        if bucket is not None:
            old = bucket.pop(uid, None)
            if old is not None:
                self._index_forget(status, old)

    def _index_forget(self, status: int, task: Task) -> None:
        if status in READY_STATUSES:
            self.ready_num -= 1
            self.order_key = None
        elif status == S.PENDING and task.best_effort:
            self.pending_best_effort_num -= 1
            self.order_key = None

    def add_task(self, task: Task) -> None:
        self.tasks[task.uid] = task
        self.request_facts = None
        self.accum_facts = None
        self.pod_affinity = None
        self._index_add(task.status, task)
        self.total_request.add(task.resreq)
        if task.status & ALLOCATED_STATUSES:
            self.allocated.add(task.resreq)

    def update_task_status(self, task: Task, status: int) -> None:
        """JobInfo.UpdateTaskStatus: re-index the task so Allocated stays the sum of its tasks.

        `_index_remove(old, uid)` then `_index_add(status, task)`, their bucket steps written out (allocate
        moves every placed task twice, Allocated then Binding), their counter rules shared
        (`_index_forget`, `_index_count`): the same buckets and counters, changed in the same order."""
        old = task.status
        if not self.changed:
            self.changed = True
            if self.change_log is not None:
                self.change_log.append(self)
        uid = task.uid
        index = self.index
        bucket = index.get(old)
        if bucket is not None:
            gone = bucket.pop(uid, None)
            if gone is not None:
                self._index_forget(old, gone)
        task.status = status
        bucket = index.get(status)
        if bucket is None:
            bucket = index[status] = {}
        else:
            gone = bucket.get(uid)
            if gone is not None:
                self._index_forget(status, gone)
        bucket[uid] = task
        self._index_count(status, task)
        was_alloc = old & ALLOCATED_STATUSES
        now_alloc = status & ALLOCATED_STATUSES
        if was_alloc and not now_alloc:
            self.allocated.sub(task.resreq)
        elif now_alloc and not was_alloc:
            self.allocated.add(task.resreq)

    def count(self, status: int) -> int:
        bucket = self.index.get(status)
        return len(bucket) if bucket else 0

    def tasks_in(self, status: int) -> list[Task]:
        bucket = self.index.get(status)
        return list(bucket.values()) if bucket else []

    # ---- counters (job_info.go) ----------------------------------------------------------
    def min_resources_or_empty(self) -> Resource:
        return self.min_resources if self.min_resources is not None else Resource.empty()

    def ready_task_num(self) -> int:
        """Bound + Binding + Running + Allocated + Succeeded (kept as a counter, see _index_add)."""
        return self.ready_num

    def waiting_task_num(self) -> int:
        return self.count(S.PIPELINED)

    def scheduled_task_num(self) -> int:
        c = self.count
        return c(S.RUNNING) + c(S.BOUND) + c(S.FAILED) + c(S.SUCCEEDED)

    def releasing_scheduled_task_num(self) -> int:
        bucket = self.index.get(S.RELEASING)
        if not bucket:
            return 0
        return sum(1 for t in bucket.values() if t.node_name)

    def is_ready(self) -> bool:
        return self.ready_num + self.pending_best_effort_num >= self.min_available

    def is_pipelined(self) -> bool:
        return self.waiting_task_num() + self.ready_num + self.pending_best_effort_num >= self.min_available

    def may_starve(self) -> bool:
        """Fewer ready and pipelined tasks than its tasks or its minAvailable: what the jobStarving of both
        priority (ready + pipelined < tasks) and gang (ready + pipelined < minAvailable) need to answer yes.
        A job with a Pending task may starve."""
        return self.ready_num + len(self.index.get(S.PIPELINED) or ()) < max(len(self.tasks), self.min_available)

    def is_starving(self) -> bool:
        return self.waiting_task_num() + self.ready_num < self.min_available

    def is_pending(self) -> bool:
        return self.phase in (PodGroupPhase.PENDING, "")

    def elastic_resources(self) -> Resource:
        from capacity.core.resources import exceeded_part
        return exceeded_part(self.allocated, self.min_resources_or_empty())

    # ---- role checks (job_info.go:1072-1175) --------------------------------------------
    def _role_counts(self, statuses: int, best_effort_pending: bool) -> dict[str, int]:
        counts: dict[str, int] = {}
        for t in self.tasks.values():
            if t.status & statuses or (best_effort_pending and t.status == S.PENDING and t.best_effort):
                counts[t.role] = counts.get(t.role, 0) + 1
        return counts

    def check_task_valid(self) -> bool:
        if not self.roles_to_check:
            return True  # minAvailable below the roles' sum, or all() over no role below
        counts = self._role_counts(S.PENDING | S.PIPELINED | ALLOCATED_STATUSES | S.SUCCEEDED, False)
        return all(counts.get(role, 0) >= n for role, n in self.task_min_available.items() if n > 0)

    def check_task_ready(self) -> bool:
        if self.min_available < self.task_min_available_total or not self.task_min_available:
            return True
        counts = self._role_counts(ALLOCATED_STATUSES | S.SUCCEEDED, True)
        return all(counts.get(role, 0) >= n for role, n in self.task_min_available.items())

    def check_task_pipelined(self) -> bool:
        if self.min_available < self.task_min_available_total or not self.task_min_available:
            return True
        counts = self._role_counts(ALLOCATED_STATUSES | S.SUCCEEDED | S.PIPELINED, True)
        return all(counts.get(role, 0) >= n for role, n in self.task_min_available.items())

    def need_continue_allocating(self) -> bool:
        """NeedContinueAllocating (job_info.go:985-1047) for the default subjob."""
        if self.min_available == len(self.tasks):
            return False
        if self.min_available >= len(self.tasks):
            return False
        if self.min_available < self.task_min_available_total:
            failed_roles = {self.tasks[uid].role for uid in self.nodes_fit_errors if uid in self.tasks}
            pending_ok = sum(1 for t in self.tasks_in(S.PENDING) if t.role not in failed_roles)
            return self.ready_task_num() + pending_ok >= self.min_available
        failed_roles = {self.tasks[uid].role for uid in self.nodes_fit_errors if uid in self.tasks}
        counts = self._role_counts(ALLOCATED_STATUSES | S.SUCCEEDED, True)
        for role in failed_roles:
            need = self.task_min_available.get(role, 0)
            if need > 0 and counts.get(role, 0) < need:
                return False
        return True

    def task_has_fit_errors(self, task: Task) -> bool:
        if not task.role:
            return False
        return any(self.tasks[uid].role == task.role for uid in self.nodes_fit_errors if uid in self.tasks)

    def __repr__(self) -> str:
        return f"Job({self.uid}, queue={self.queue}, phase={self.phase})"


# Kubernetes framework status codes used by predicates (Volcano's api.Status codes).
SUCCESS = "Success"
UNSCHEDULABLE = "Unschedulable"
UNRESOLVABLE = "UnschedulableAndUnresolvable"
ERROR = "Error"


@dataclass(slots=True)
class FitError:
    """A predicate failure on one node: the status code and the reasons (api/unschedule_info.go FitError)."""

    node: str
    code: str
    reasons: list[str]

    def __str__(self) -> str:
        return f"{self.node}: {', '.join(self.reasons)}"


@dataclass(slots=True)
class QueueSpec:
    """A Queue object as the scheduler reads it (QueueInfo plus the spec fields plugins read)."""

    name: str
    weight: int = 1
    priority: int = 0
    parent: str = ""
    state: str = "Open"
    reclaimable: bool = True
    capability: Resource | None = None
    deserved: Resource | None = None
    guarantee: Resource | None = None
    creation: str = ""
    annotations: dict[str, str] = field(default_factory=dict)

    @property
    def uid(self) -> str:
        return self.name

    def is_open(self) -> bool:
        return self.state == "Open"


class Node:
    """A node's Volcano-side accounting (NodeInfo) plus the Kubernetes mirror's pod list."""

    __slots__ = ("name", "labels", "allocatable", "capacity", "taints", "unschedulable", "idle", "used", "releasing",
                 "pipelined", "tasks", "mirror", "index", "fit", "touched", "touch_log", "changed")

    def __init__(self, name: str, labels: dict[str, str], allocatable: Resource,
                 taints: list[dict[str, Any]], unschedulable: bool) -> None:
        self.name = name
        self.labels = labels
        self.allocatable = allocatable
        self.capacity = allocatable
        self.taints = taints
        self.unschedulable = unschedulable
        self.idle = allocatable.clone()
        self.used = Resource.empty()
        self.releasing = Resource.empty()
        self.pipelined = Resource.empty()
        self.tasks: dict[str, Task] = {}
        self.mirror: dict[str, Task] = {}
        self.index = -1  # position in the session's NodeList, set by capacity.accel.nodefit.NodeFit
        self.fit: Any = None  # the session's NodeFit, told about every accounting change
        # Whether a task was ever added or removed: an untouched node without tasks is as a fresh snapshot
        # builds it, which lets a SnapshotCache hand it to the next session and NodeFit skip its columns.
        self.touched = False
        # Where the node puts itself when first touched (a SnapshotCache's list), so that nobody has to scan
        # every node to find the touched ones; None: nobody asks.
        self.touch_log: list[Node] | None = None
        # Whether anything changed the node after the snapshot built it (a task added or removed, its mirror
        # changed): an occupied node without such a change can serve the next snapshot (SnapshotCache).
        self.changed = False

    def max_task_num(self) -> int:
        return self.allocatable.max_task_num

    def mark_touched(self) -> None:
        """A task was added to or removed from the node, or its Kubernetes mirror changed."""
        self.changed = True
        if not self.touched:
            self.touched = True
            if self.touch_log is not None:
                self.touch_log.append(self)

    def future_idle(self) -> Resource:
        return self.idle.clone().add(self.releasing).sub_without_assert(self.pipelined)

    def _account(self, task: Task, sign: int) -> None:
        req = task.resreq
        status = task.status
        if status == S.RELEASING:
            if sign > 0:
                self.idle.sub_without_assert(req)
                self.releasing.add(req)
                self.used.add(req)
            else:
                self.releasing.sub_without_assert(req)
                self.idle.add(req)
                self.used.sub_without_assert(req)
        elif status == S.PIPELINED:
            if sign > 0:
                self.pipelined.add(req)
            else:
                self.pipelined.sub_without_assert(req)
        elif sign > 0:
            self.idle.sub_without_assert(req)
            self.used.add(req)
        else:
            self.idle.add(req)
            self.used.sub_without_assert(req)

    def add_task(self, task: Task) -> None:
        """NodeInfo.AddTask: store a clone keyed by namespace/name and account by status."""
        if task.key in self.tasks:
            raise ValueError(f"task {task.key} already on node {self.name}")
        clone = task.clone()
        self.tasks[task.key] = clone
        self.changed = True
        if not self.touched:
            self.mark_touched()
        self._account(clone, +1)
        if self.fit is not None:
            self.fit.touch(self)

    def add_task_unfitted(self, task: Task) -> None:
        """`add_task` for a node no NodeFit follows yet (the session snapshot): the same clone and
        accounting, with `_account` written out for the one sign."""
        if self.fit is not None:
            self.add_task(task)
            return
        key = task.key
        tasks = self.tasks
        if key in tasks:
            raise ValueError(f"task {key} already on node {self.name}")
        clone = task.clone()
        tasks[key] = clone
        if not self.touched:  # (as mark_touched, but what the snapshot adds is no change)
            self.touched = True
            if self.touch_log is not None:
                self.touch_log.append(self)
        req = clone.resreq
        status = clone.status
        if status == S.RELEASING:
            self.idle.sub_without_assert(req)
            self.releasing.add(req)
            self.used.add(req)
        elif status == S.PIPELINED:
            self.pipelined.add(req)
        else:
            self.idle.sub_without_assert(req)
            self.used.add(req)

    def remove_task(self, task: Task) -> None:
        stored = self.tasks.pop(task.key, None)
        if stored is not None:
            self.changed = True
            if not self.touched:
                self.mark_touched()
            self._account(stored, -1)
            if self.fit is not None:
                self.fit.touch(self)

    def update_task(self, task: Task) -> None:
        self.remove_task(task)
        self.add_task(task)

    def __repr__(self) -> str:
        return f"Node({self.name})"
