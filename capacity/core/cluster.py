"""The cluster as the API server holds it: nodes, queues, PodGroups, pods and the configuration.

A session snapshots this into scheduler objects (`capacity.core.model`); what a cycle decides is written
back here (binds, evictions, PodGroup phases), which is all that survives between cycles in Volcano
(spec actions-framework §11).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from capacity.core.conf import SchedulerConf, default_conf
from capacity.core.model import PodSpec, QueueSpec, TaskStatus
from capacity.core.resources import Resource
from capacity.core.text import safe

_set = object.__setattr__
_stamp = itertools.count(1).__next__


def revision() -> int:
    """A stamp later than every write so far to a PodObj's or PodGroupObj's field (their `rev`) and earlier
    than every later one: what a reader keeps to tell, later, which of them were written since
    (capacity.accel.pod_reading)."""
    return _stamp()


@dataclass(slots=True)
class NodeObj:
    name: str
    labels: dict[str, str]
    allocatable: Resource
    taints: list[dict[str, Any]] = field(default_factory=list)
    unschedulable: bool = False
    ready: bool = True


@dataclass(slots=True)
class PodGroupObj:
    name: str
    namespace: str
    queue: str
    min_member: int
    min_task_member: dict[str, int]
    min_resources: Resource | None
    priority_class_name: str
    phase: str
    annotations: dict[str, str]
    labels: dict[str, str]
    creation: str = ""
    rev: int = field(default=0, init=False, repr=False, compare=False)  # the stamp of the last write (revision)

    @property
    def uid(self) -> str:
        return f"{self.namespace}/{self.name}"

    def __setattr__(self, name: str, value: Any) -> None:
        """Every write stamps `rev`. Fields are written, never changed in place (a dict or Resource field is
        replaced), which is what a stamp, like the snapshot's comparison of fields before it, relies on."""
        _set(self, name, value)
        _set(self, "rev", _stamp())

    def __copy__(self) -> PodGroupObj:
        """Field by field: copy.copy's generic path (__reduce_ex__) costs ten times more, and the simulator
        copies every PodGroup a cycle touches (tests/unit/test_sim_history.py checks every field is here).
        The copy has the original's `rev`: its fields were last written then."""
        out = object.__new__(PodGroupObj)
        _set(out, "name", self.name)
        _set(out, "namespace", self.namespace)
        _set(out, "queue", self.queue)
        _set(out, "min_member", self.min_member)
        _set(out, "min_task_member", self.min_task_member)
        _set(out, "min_resources", self.min_resources)
        _set(out, "priority_class_name", self.priority_class_name)
        _set(out, "phase", self.phase)
        _set(out, "annotations", self.annotations)
        _set(out, "labels", self.labels)
        _set(out, "creation", self.creation)
        _set(out, "rev", self.rev)
        return out


@dataclass(slots=True)
class PodObj:
    name: str
    namespace: str
    uid: str
    group: str
    resreq: Resource
    phase: str
    node_name: str
    deleting: bool
    spec: PodSpec
    role: str
    preemptable: bool
    priority: int
    sch_gated: bool = False
    nominated_node: str = ""
    rev: int = field(default=0, init=False, repr=False, compare=False)  # the stamp of the last write (revision)

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    def __setattr__(self, name: str, value: Any) -> None:
        """Every write stamps `rev` (as PodGroupObj's)."""
        _set(self, name, value)
        _set(self, "rev", _stamp())

    def __copy__(self) -> PodObj:
        """Field by field, as PodGroupObj.__copy__: the simulator copies every pod a cycle touches."""
        out = object.__new__(PodObj)
        _set(out, "name", self.name)
        _set(out, "namespace", self.namespace)
        _set(out, "uid", self.uid)
        _set(out, "group", self.group)
        _set(out, "resreq", self.resreq)
        _set(out, "phase", self.phase)
        _set(out, "node_name", self.node_name)
        _set(out, "deleting", self.deleting)
        _set(out, "spec", self.spec)
        _set(out, "role", self.role)
        _set(out, "preemptable", self.preemptable)
        _set(out, "priority", self.priority)
        _set(out, "sch_gated", self.sch_gated)
        _set(out, "nominated_node", self.nominated_node)
        _set(out, "rev", self.rev)
        return out

    def task_status(self) -> TaskStatus:
        """Pod phase -> TaskStatus (helpers.go:41-67)."""
        phase = self.phase
        if phase == "Running":
            return TaskStatus.RELEASING if self.deleting else TaskStatus.RUNNING
        if phase == "Pending":
            if self.deleting:
                return TaskStatus.RELEASING
            return TaskStatus.BOUND if self.node_name else TaskStatus.PENDING
        if phase == "Succeeded":
            return TaskStatus.SUCCEEDED
        if phase == "Failed":
            return TaskStatus.FAILED
        return TaskStatus.UNKNOWN


@dataclass(slots=True)
class LoadWarning:
    """Input Volcano tolerates but the user should hear about, naming object and field."""

    obj: str
    field: str
    message: str

    def __str__(self) -> str:
        """One line; names from input are shown escaped (no raw control characters: capacity.core.text.safe)."""
        obj = self.obj if len(self.obj) <= 200 else f"{self.obj[:200]}... ({len(self.obj)} characters)"
        text = f"{obj}: {self.field}: {self.message}" if self.field else f"{obj}: {self.message}"
        return safe(text)


@dataclass
class Cluster:
    """Everything one scheduling cycle reads. Mutated only by `apply_cycle`."""

    nodes: list[NodeObj] = field(default_factory=list)
    queues: dict[str, QueueSpec] = field(default_factory=dict)
    podgroups: dict[str, PodGroupObj] = field(default_factory=dict)
    pods: dict[str, PodObj] = field(default_factory=dict)
    priority_classes: dict[str, int] = field(default_factory=dict)
    global_default_priority: int | None = None
    namespace_weights: dict[str, int] = field(default_factory=dict)
    conf: SchedulerConf = field(default_factory=default_conf)
    warnings: list[LoadWarning] = field(default_factory=list)
    # Per resource name the units the input wrote it in (quantity.UnitStyles), for showing numbers back so.
    unit_styles: dict[str, str] = field(default_factory=dict)
    # The Volcano release the dump's own scheduler runs ("1.13.2"), read from its image tag while the dump was
    # read (capacity.io.volcano_image), None without one: what `--volcano-version` defaults to.
    scheduler_version: str | None = None

    def copy_state(self) -> Cluster:
        """A copy that later cycles cannot change, at a fraction of `copy.deepcopy`'s cost.

        A cycle's write-back (`apply_cycle`) changes only pods (fields and membership) and PodGroup
        phases, so those objects are copied; nodes, queues, specs and the configuration are shared, which
        is safe because edits (`capacity.authoring.edit`) build a new cluster instead of changing this one.
        """
        return Cluster(nodes=self.nodes, queues=self.queues,
                       podgroups={k: _copy_slots(pg) for k, pg in self.podgroups.items()},
                       pods={k: _copy_slots(p) for k, p in self.pods.items()},
                       priority_classes=self.priority_classes, global_default_priority=self.global_default_priority,
                       namespace_weights=self.namespace_weights, conf=self.conf, warnings=self.warnings,
                       unit_styles=self.unit_styles, scheduler_version=self.scheduler_version)

    def job_priority(self, pg: PodGroupObj) -> int:
        """JobInfo.Priority: the PodGroup's PriorityClass, else the globalDefault, else 0."""
        if pg.priority_class_name and pg.priority_class_name in self.priority_classes:
            return self.priority_classes[pg.priority_class_name]
        if self.global_default_priority is not None:
            return self.global_default_priority
        return 0


def _copy_slots(obj: Any) -> Any:
    """Shallow copy of a PodObj or PodGroupObj."""
    return obj.__copy__()
