"""capacity.go's queueAttr and the rules over it: shares, queue order levels, accumulating jobs, the flat
limits, the enqueue and allocate fits, the ancestor walks of reclaim.

pkg/scheduler/plugins/capacity/capacity.go @ed72c7c8 (spec queue-plugins §2-4). `CapacityBase` names what the
plugin's parts (capacity.py, capacity_tree.py, capacity_figures.py and the acceleration beside them in
capacity.accel) share: capacity.go's capacityPlugin fields.
"""

from __future__ import annotations

from typing import Any

from capacity.core.model import ALLOCATED_STATUSES, Job, PodGroupPhase, QueueSpec, TaskStatus
from capacity.core.resources import (
    INFINITY,
    MAX_FLOAT,
    MIN_RESOURCE,
    SCALAR_INFINITY,
    Resource,
    exceeded_part,
    is_scalar_resource_name,
    to_dict,
)
from capacity.core.trace import Reason, Trace
from capacity.framework.session import Session
from capacity.plugins.base import Plugin

ROOT = "root"


class QueueAttr:
    """capacity.go's queueAttr."""

    __slots__ = ("name", "queue", "deserved", "allocated", "request", "elastic", "inqueue",
                 "capability", "real_capability", "guarantee", "share", "children", "ancestors", "fixed", "dirty")

    def __init__(self, queue: QueueSpec) -> None:
        self.name = queue.name
        self.queue = queue
        self.deserved = queue.deserved.clone() if queue.deserved is not None else Resource.empty()
        self.allocated = Resource.empty()
        self.request = Resource.empty()
        self.elastic = Resource.empty()
        self.inqueue = Resource.empty()
        self.capability = Resource.empty()
        self.real_capability = Resource.empty()
        self.guarantee = queue.guarantee.clone() if queue.guarantee is not None else Resource.empty()
        self.share = 0.0
        self.children: dict[str, QueueAttr] = {}
        self.ancestors: list[QueueAttr] = []
        self.fixed: FixedNumbers | None = None
        self.dirty = False  # changed by the session after the build (an allocation, an enqueued job)

    @classmethod
    def from_fixed(cls, queue: QueueSpec, fixed: FixedNumbers) -> QueueAttr:
        """An attribute whose tree-fixed numbers come from an earlier session's build (CapacityPlugin's
        cached tree); they are shared, never changed after the build."""
        attr = cls.__new__(cls)
        attr.name = queue.name
        attr.queue = queue
        attr.deserved, attr.capability, attr.guarantee, attr.real_capability = fixed.values
        attr.allocated = Resource.empty()
        attr.request = Resource.empty()
        attr.elastic = Resource.empty()
        attr.inqueue = Resource.empty()
        attr.share = fixed.idle_share
        attr.children = {}
        attr.ancestors = []
        attr.fixed = fixed
        attr.dirty = False
        return attr

    def path(self) -> str:
        return "/".join([a.name for a in self.ancestors] + [self.name])

    def reset(self) -> None:
        """Back to what `from_fixed` makes: nothing allocated, requested, in queue or elastic (new
        objects: whatever kept the old ones keeps their values)."""
        self.allocated = Resource.empty()
        self.request = Resource.empty()
        self.elastic = Resource.empty()
        self.inqueue = Resource.empty()
        self.share = self.fixed.idle_share  # type: ignore[union-attr]

    def summary(self) -> dict[str, Any]:
        """The queue's numbers as a cycle reports them (CycleResult.queues); read-only, as the numbers
        fixed by the tree and those of a queue without jobs are the same dicts in every session."""
        fixed = self.fixed
        if fixed is not None and _zero(self.allocated) and _zero(self.request) and _zero(self.inqueue) \
                and _zero(self.elastic):
            return self.idle_summary()
        if fixed is not None:
            # A busy queue's numbers mostly stay from one cycle to the next: the same values, the same dict.
            key = (_values(self.allocated), _values(self.inqueue), _values(self.elastic), _values(self.request),
                   self.share, self.ancestors[-1].name if self.ancestors else "")
            last = fixed.last_summary
            if last is not None and last[0] == key:
                return last[1]
            deserved, capability, guarantee, real = fixed.dicts
            as_dict = fixed.as_dict
            allocated, inqueue = as_dict(0, self.allocated, key[0]), as_dict(1, self.inqueue, key[1])
            elastic, request = as_dict(2, self.elastic, key[2]), as_dict(3, self.request, key[3])
            out = {"deserved": deserved, "allocated": allocated, "realCapability": real, "share": self.share,
                   "capability": capability, "guarantee": guarantee, "inqueue": inqueue, "elastic": elastic,
                   "request": request, "parent": key[5]}
            fixed.last_summary = (key, out)
            return out
        deserved, capability = to_dict(self.deserved), to_dict(self.capability)
        guarantee, real = to_dict(self.guarantee), to_dict(self.real_capability)
        allocated, inqueue = to_dict(self.allocated), to_dict(self.inqueue)
        elastic, request = to_dict(self.elastic), to_dict(self.request)
        return {"deserved": deserved, "allocated": allocated,
                "realCapability": real, "share": self.share,
                "capability": capability, "guarantee": guarantee,
                "inqueue": inqueue, "elastic": elastic,
                "request": request, "parent": self.ancestors[-1].name if self.ancestors else ""}

    def idle_summary(self) -> dict[str, Any]:
        """`summary` of an attribute made by `from_fixed` with nothing allocated, requested, in queue or
        elastic since: the same dict every time (FixedNumbers.idle)."""
        fixed = self.fixed
        assert fixed is not None
        idle = fixed.idle
        parent = self.ancestors[-1].name if self.ancestors else ""
        if idle is None or idle["share"] != self.share or idle["parent"] != parent:
            d, c, g, r = fixed.dicts
            idle = fixed.idle = {"deserved": d, "allocated": {"cpu": 0, "memory": 0}, "realCapability": r,
                                 "share": self.share, "capability": c, "guarantee": g,
                                 "inqueue": {"cpu": 0, "memory": 0}, "elastic": {"cpu": 0, "memory": 0},
                                 "request": {"cpu": 0, "memory": 0}, "parent": parent}
        return idle


class FixedNumbers:
    """A queue's numbers that the hierarchical build fixes from the queue specs and the cluster total
    alone (deserved, capability, guarantee, realCapability), with their summary dicts."""

    __slots__ = ("values", "dicts", "idle", "idle_share", "last", "last_summary")

    def __init__(self, attr: QueueAttr, best_effort_share: float = 1.0) -> None:
        self.values = (attr.deserved, attr.capability, attr.guarantee, attr.real_capability)
        self.dicts = tuple(to_dict(r) for r in self.values)
        self.idle_share = best_effort_share if attr.deserved.is_empty() else 0.0  # update_share, nothing allocated
        self.idle: dict[str, Any] | None = None  # QueueAttr.summary of the queue while it has no jobs
        # Per changing field (allocated, inqueue, elastic, request): its last values and their dict.
        self.last: list[tuple[Any, dict[str, Any]] | None] = [None, None, None, None]
        self.last_summary: tuple[Any, dict[str, Any]] | None = None  # the last QueueAttr.summary with numbers, its key

    def as_dict(self, field: int, r: Resource, key: Any) -> dict[str, Any]:
        """to_dict(r), the same dict as last time when r holds the same values (`key`: `_values(r)`)."""
        last = self.last[field]
        if last is not None and last[0] == key:
            return last[1]
        d = to_dict(r)
        self.last[field] = (key, d)
        return d


def _values(r: Resource) -> tuple[Any, ...]:
    """What to_dict(r) is made of, as a key: equal keys give equal dicts."""
    s = r.scalars
    return (r.cpu, r.memory, tuple(s.items()) if s else None)


def _zero(r: Resource) -> bool:
    """to_dict(r) is {"cpu": 0, "memory": 0}."""
    return not r.scalars and r.cpu == 0.0 and r.memory == 0.0


def update_share(attr: QueueAttr, best_effort_share: float = 1.0) -> None:
    """updateQueueAttrShare: best-effort queues (empty deserved) have share 1; `best_effort_share` 0 before PR
    #4865 (v1.14.0), where no dimension of an empty deserved was read (capacity.go:L985-993 @v1.13.0)."""
    d = attr.deserved
    if d.is_empty():
        attr.share = best_effort_share
        return
    # max(share(allocated[n], deserved[n]) for n in deserved.resource_names()), from 0, spelled out: those
    # names are the dimensions >= MIN_RESOURCE (0.1), so share() is a plain division there.
    res = 0.0
    a = attr.allocated
    if d.cpu >= MIN_RESOURCE:
        v = a.cpu / d.cpu
        if v > res:
            res = v
    if d.memory >= MIN_RESOURCE:
        v = a.memory / d.memory
        if v > res:
            res = v
    ds = d.scalars
    if ds:
        have = a.scalars or {}
        for k, dv in ds.items():
            if dv >= MIN_RESOURCE:
                v = have.get(k, 0.0) / dv
                if v > res:
                    res = v
    attr.share = res


def compare_share(l: QueueAttr, r: QueueAttr, deserved_first: bool = True) -> int:
    """Share rule of the queue order: smaller share first, then deserved before best-effort (`deserved_first`
    False: equal shares tie, as before PR #4865, v1.14.0: capacity.go:L503-511, L643-672 @v1.13.0)."""
    if l.share == r.share:
        if not deserved_first:
            return 0
        le, re_ = l.deserved.is_empty(), r.deserved.is_empty()
        if not le and re_:
            return -1
        if le and not re_:
            return 1
        return 0
    return -1 if l.share < r.share else 1


def queue_level(l: QueueAttr, r: QueueAttr) -> int:
    """getQueueLevel: index of the last common ancestor (0 when none)."""
    level = 0
    for i in range(min(len(l.ancestors), len(r.ancestors))):
        if l.ancestors[i] is r.ancestors[i]:
            level = i
        else:
            return level
    return level


def inqueue_resource(job: Job, allocated: Resource) -> Resource:
    """GetInqueueResource (plugins/util/util.go:97): minResources minus what is already allocated."""
    m = job.min_resources_or_empty()
    res = Resource.empty()
    if m.cpu - allocated.cpu > 0:
        res.cpu = m.cpu - allocated.cpu
    if m.memory - allocated.memory > 0:
        res.memory = m.memory - allocated.memory
    for k, v in (m.scalars or {}).items():
        if k == "pods":
            left = v - allocated.get("pods")
            if left > 0:
                res.add_scalar("pods", left)
            continue
        if k.startswith("count/") or not _scalar_name(k):
            continue
        reserve_scalar(res, k, v, allocated)
    return res


def reserve_scalar(res: Resource, name: str, minimum: float, allocated: Resource) -> None:
    """GetInqueueResource's scalar branch (plugins/util/util.go:139-150): all of the minimum when nothing of
    it is allocated (even 0), else the positive rest; `res` gets a scalar map either way."""
    if res.scalars is None:
        res.scalars = {}
    have = (allocated.scalars or {}).get(name)
    if have is None:
        res.scalars[name] = minimum
    elif minimum - have > 0:
        res.scalars[name] = minimum - have


def deduct_sch_gated(job: Job, r: Resource) -> Resource:
    """DeductSchGatedResources: leave out what scheduling-gated tasks would need."""
    gated = None  # (made at the first gated task: a cycle asks once per admitted job, most have none)
    for t in job.tasks.values():
        if t.sch_gated:
            if gated is None:
                gated = Resource.empty()
            gated.add(t.resreq)
    if gated is None or gated.is_empty():  # (always so without gated tasks: accumulate_job skips the call then)
        return r
    out = r.clone()
    out.cpu = max(out.cpu - gated.cpu, 0.0)
    out.memory = max(out.memory - gated.memory, 0.0)
    if out.scalars:
        for k in list(out.scalars):
            if gated.scalars and k in gated.scalars:
                out.scalars[k] = max(out.scalars[k] - gated.scalars[k], 0.0)
    return out


def accumulated_parts(attr: QueueAttr) -> tuple[Resource, ...]:
    """Copies of the numbers a tree build accumulates: allocated, request, inqueue, elastic."""
    return attr.allocated.clone(), attr.request.clone(), attr.inqueue.clone(), attr.elastic.clone()


def accumulate_job(attr: QueueAttr, job: Job, whole_inqueue: bool = False) -> None:
    """Step 3 of buildQueueAttrs: allocated, request, inqueue and elastic of one job. `whole_inqueue`: capacity
    before PR #5130 (v1.15.0), an Inqueue job's whole minResources (capacity.go:L467-471, L594-596 @v1.14.0)."""
    for status, bucket in job.index.items():
        if status & ALLOCATED_STATUSES:
            for t in bucket.values():
                attr.allocated.add(t.resreq)
                attr.request.add(t.resreq)
        elif status == TaskStatus.PENDING:
            for t in bucket.values():
                attr.request.add(t.resreq)
    if job.min_resources is not None:
        if job.phase == PodGroupPhase.INQUEUE:
            attr.inqueue.add(deduct_sch_gated(job, job.min_resources) if whole_inqueue else _inqueue_of(job))
        elif job.phase == PodGroupPhase.RUNNING:
            allocated_num = sum(len(b) for s, b in job.index.items() if s & ALLOCATED_STATUSES)
            if allocated_num >= job.min_available:
                attr.inqueue.add(_inqueue_of(job))
    _add_exceeded(attr.elastic, job.allocated, job.min_resources_or_empty())


def _inqueue_of(job: Job) -> Resource:
    """deduct_sch_gated(job, inqueue_resource(job, job.allocated)), without the walk over the tasks
    for gated ones when the job has none (the deduction returns its argument then). Read-only: kept on
    the job (Job.inqueue) while none of its tasks moved, so a job a SnapshotCache keeps has it at hand."""
    if not job.changed:
        got = job.inqueue
        if got is not None:
            return got
    r = inqueue_resource(job, job.allocated)
    for t in job.tasks.values():
        if t.sch_gated:
            r = deduct_sch_gated(job, r)
            break
    if not job.changed:
        job.inqueue = r
    return r


def _add_exceeded(target: Resource, left: Resource, right: Resource) -> None:
    """`target.add(exceeded_part(left, right))` (job.elastic_resources() for left = allocated, right =
    minResources or empty) without building the two Resources of `left.diff(right, ZERO)`: the same
    values added in the same key order (tests/unit/test_capacity_open_fast.py)."""
    lc, rc = left.cpu, right.cpu
    target.cpu += lc - rc if lc > rc else 0.0
    lm, rm = left.memory, right.memory
    target.memory += lm - rm if lm > rm else 0.0
    ls = left.scalars or {}
    rs = right.scalars or {}
    s = target.scalars
    for k, a in ls.items():
        b = rs.get(k, 0.0)
        if a == -1.0:
            v = a
        elif b == -1.0 or not a > b:
            continue
        else:
            v = a - b
        if s is None:
            s = target.scalars = {}
        s[k] = s.get(k, 0.0) + v
    for k, b in rs.items():
        if k in ls or b == -1.0 or not b < 0.0:
            continue
        if s is None:
            s = target.scalars = {}
        s[k] = s.get(k, 0.0) + (0.0 - b)


_SCALAR_NAMES: dict[str, bool] = {}


def _scalar_name(name: str) -> bool:
    """is_scalar_resource_name, remembered per name (a pure function of the string)."""
    got = _SCALAR_NAMES.get(name)
    if got is None:
        got = is_scalar_resource_name(name)
        if len(_SCALAR_NAMES) < 4096:
            _SCALAR_NAMES[name] = got
    return got


def build_flat_attrs(ssn: Session, total: Resource, make: Any, built: Any = None,
                     whole_inqueue: bool = False) -> dict[str, Any]:
    """buildQueueAttrs steps 1-3, shared by flat capacity and proportion (spec §2.2, §5.1): attributes
    for queues that have jobs, made by `make(queue, unguaranteed)` (see `flat_limits`), and every job's
    accounting. `built(queue)` may hand over an attribute that already holds the accounting of the
    queue's jobs (flat capacity's kept attributes); their jobs are not added again."""
    total_guarantee = sum_guarantees(ssn)
    attrs: dict[str, Any] = {}
    done: set[str] = set()
    unguaranteed = exceeded_part(total, total_guarantee)  # the same for every queue: cloned for each
    for job in ssn.jobs.values():
        attr = attrs.get(job.queue)
        if attr is None:
            q = ssn.queues[job.queue]
            attr = built(q) if built is not None else None
            if attr is not None:
                attrs[q.name] = attr
                done.add(q.name)
                continue
            attr = attrs[q.name] = make(q, unguaranteed)
        elif job.queue in done:
            continue
        accumulate_job(attr, job, whole_inqueue)
    return attrs


def sum_guarantees(ssn: Session) -> Resource:
    """totalGuarantee (capacity.go:1057-1063): the guarantees of every queue, with jobs or not."""
    total_guarantee = Resource.empty()
    for q in ssn.queues.values():
        if q.guarantee is not None:
            total_guarantee.add(q.guarantee)
    return total_guarantee


def flat_limits(attr: Any, q: QueueSpec, unguaranteed: Resource) -> Any:
    """A flat attribute's capability (cpu/memory <= 0 read as unlimited) and realCapability = min(capability,
    total - all guarantees + own guarantee); returns the attribute."""
    if q.capability is not None:
        attr.capability = q.capability.clone()
        if attr.capability.cpu <= 0:
            attr.capability.cpu = MAX_FLOAT
        if attr.capability.memory <= 0:
            attr.capability.memory = MAX_FLOAT
    real = unguaranteed.clone().add(attr.guarantee)
    if q.capability is not None:
        real.min_dimension_resource(attr.capability, INFINITY)
    attr.real_capability = real
    return attr


def enqueue_fits(req: Resource, allocated: Resource, inqueue: Resource, elastic: Resource,
                 limit: Resource) -> bool | None:
    """`req.clone().add(allocated).add(inqueue).sub(elastic).less_equal_with_dimension_and_resources_name(
    limit, req)[0]` without building the sum, when elastic is empty and the summed cpu and memory are not
    negative (nor NaN): then `sub` subtracts nothing and cannot raise. Otherwise None, and the caller takes
    the reference (tests/unit/test_capacity_fast.py checks both on random resources)."""
    if elastic.cpu != 0 or elastic.memory != 0 or elastic.scalars:
        return None
    cpu = req.cpu + allocated.cpu + inqueue.cpu
    memory = req.memory + allocated.memory + inqueue.memory
    if not (cpu >= 0 and memory >= 0):
        return None
    if req.cpu > 0 and cpu > limit.cpu:
        return False
    if req.memory > 0 and memory > limit.memory:
        return False
    qs = req.scalars
    if not qs:
        return True  # (no requested scalar is checked)
    have, queued, caps = allocated.scalars, inqueue.scalars, limit.scalars
    for k, q in qs.items():
        if k == "pods" or not q > 0:
            continue
        total = q
        if have and k in have:
            total = total + have[k]
        if queued and k in queued:
            total = total + queued[k]
        if total > (caps.get(k, 0.0) if caps is not None else 0.0):
            return False
    return True


def fits_after_adding(allocated: Resource, req: Resource, limit: Resource) -> bool:
    """`allocated.clone().add(req).less_equal_with_dimension_and_resources_name(limit, req)[0]` without
    building the sum: the same per-dimension additions and strict comparisons (tests/unit/
    test_capacity_fast.py checks both on random resources)."""
    if req.cpu > 0 and allocated.cpu + req.cpu > limit.cpu:
        return False
    if req.memory > 0 and allocated.memory + req.memory > limit.memory:
        return False
    qs = req.scalars
    if not qs:
        return True  # no requested scalar to check (and without any map, scalars are not checked)
    have = allocated.scalars
    caps = limit.scalars
    for k, q in qs.items():
        if k == "pods" or not q > 0:
            continue
        total = (have.get(k, 0.0) if have is not None else 0.0) + q
        if total > (caps.get(k, 0.0) if caps is not None else 0.0):
            return False
    return True


def _relevant(req: Resource, deserved: Resource) -> list[str]:
    """The dimensions GreaterPartlyWithRelevantDimensions(deserved, req) reads: requested (> 0, pods left
    out), and defined by deserved (cpu and memory >= 0.1, a scalar if it is a key)."""
    out = []
    if req.cpu > 0 and not deserved.cpu < MIN_RESOURCE:
        out.append("cpu")
    if req.memory > 0 and not deserved.memory < MIN_RESOURCE:
        out.append("memory")
    ds = deserved.scalars
    if ds:
        out.extend(k for k, q in (req.scalars or {}).items() if k != "pods" and k in ds and q > 0)
    return out


def _neg(r: Resource) -> Resource:
    out = Resource(-r.cpu, -r.memory, None if r.scalars is None else {k: -v for k, v in r.scalars.items()})
    return out


def _delta(after: Resource, before: Resource) -> Resource:
    """`after.clone().add(_neg(before))` in one step: the same additions of the negated values, the same
    keys in the same order (tests/unit/test_capacity_fast.py)."""
    d = Resource.__new__(Resource)
    d.cpu = after.cpu + float(-before.cpu)
    d.memory = after.memory + float(-before.memory)
    d.max_task_num = after.max_task_num
    s = after.scalars
    s = None if s is None else s.copy()
    bs = before.scalars
    if bs:
        if s is None:
            s = {}
        for k, v in bs.items():
            s[k] = s.get(k, 0.0) + float(-v)
    d.scalars = s
    return d


def _ancestor_at_depth(attr: QueueAttr, d: int) -> QueueAttr | None:
    n = len(attr.ancestors)
    if 1 <= d <= n:
        return attr.ancestors[n - d]
    return None


def _shares_ancestor(a: QueueAttr, b: QueueAttr, level: int) -> bool:
    def within(q: QueueAttr) -> set[str]:
        out = set()
        for d in range(1, level + 1):
            anc = _ancestor_at_depth(q, d)
            if anc is not None and anc.name != ROOT:
                out.add(anc.name)
        return out
    return bool(within(a) & within(b))


def _reclaimee_ancestor_to_check(reclaimer: QueueAttr, reclaimee: QueueAttr, d: int) -> QueueAttr | None:
    anc = _ancestor_at_depth(reclaimee, d)
    if anc is None or anc.name == ROOT:
        return None
    mine = _ancestor_at_depth(reclaimer, d)
    if mine is not None and mine.name == anc.name:
        return None
    return anc



def root_capability(capability: Resource | None, total: Resource) -> Resource:
    """The root queue's capability in the hierarchical build: as set, or, when the root Queue sets none, no
    limit in every dimension the cluster has (capacity.go buildHierarchicalQueueAttrs, Volcano HEAD; the
    seed-004 switch fills it from the cluster total instead)."""
    if capability is not None and not capability.is_empty():
        return capability
    return Resource(MAX_FLOAT, MAX_FLOAT, dict.fromkeys(total.scalars or {}, SCALAR_INFINITY))


def inherit_capability(child: Resource, parent: Resource, scalars: bool = True) -> None:
    """checkHierarchicalQueue: a child's capability takes its parent's cpu or memory where its own is <= 0 (PR
    #3917: every selectable release, from v1.11.0 on), and every scalar of the parent's it does not set (changes
    `child`). `scalars` False: before PR #4504 (v1.13.0) only cpu and memory were taken (capacity.go:L665-671
    @v1.12.0)."""
    if child.cpu <= 0:
        child.cpu = parent.cpu
    if child.memory <= 0:
        child.memory = parent.memory
    if parent.scalars is not None and scalars:
        for k, v in parent.scalars.items():
            if child.scalars is None or k not in child.scalars:
                child.set_scalar(k, v)

class CapacityBase(Plugin):
    """The capacity plugin's state (capacity.go's capacityPlugin), shared by the modules that make up the
    plugin: its rules (capacity.py), its build at open (capacity_tree.py), its trace figures
    (capacity_figures.py) and its acceleration (capacity.accel.capacity_open, capacity_bounds, capacity_order).
    Set by CapacityPlugin.on_session_open."""

    name = "capacity"
    ssn: Session
    trace: Trace
    attrs: dict[str, QueueAttr]
    hierarchy: bool
    total: Resource
    styles: Any  # the input's units, for reasons
    ready: bool
    not_ready_reason: str
    ancestor_level: int
    best_effort_share: float  # a best-effort queue's share: 1, or 0 before PR #4865 (v1.14.0)
    _order_pairs: dict[tuple[str, str], int | tuple[QueueAttr, QueueAttr, int]]
    _task_names: dict[str, frozenset[str]]
    _fit_reasons: dict[tuple[str, Any], Reason]
    _open_paths: dict[str, tuple[QueueAttr, list[QueueAttr]]]
    _paths: dict[str, str]
    _leaves: Any  # (capacity.accel.capacity_open: the leaves a next session may take as they are)
    _closed: Any  # (the same: what the last session reported at close, where its tree was kept)

    def _stall(self, why: str, obj: str, fld: str) -> None:
        raise NotImplementedError  # (CapacityTree)

    def _accumulate_stepwise(self) -> bool:
        raise NotImplementedError  # (CapacityTree)
