"""capacity: deserved / capability / guarantee per queue, flat or as a tree.

pkg/scheduler/plugins/capacity/capacity.go at HEAD (spec queue-plugins §2-4). Every rule that says
no also says why through `ssn.trace.because`, with the queue, the level, the dimensions and numbers.
"""

from __future__ import annotations

from operator import is_, itemgetter
from typing import Any

import numpy as np

from capacity.conf import get_int
from capacity.framework.session import PERMIT, REJECT, EventHandler, Session
from capacity.k8s import MAX_TREE_DEPTH
from capacity.model import ALLOCATED_STATUSES, Job, PodGroupPhase, QueueSpec, Task, TaskStatus
from capacity.plugins.base import Plugin
from capacity.plugins.figures import (
    BEST_EFFORT_SHARE,
    amount,
    amounts,
    capability_text,
    deserved_how,
    figure_values,
    figures,
    limit_amount,
    names_of,
    requested,
    share_text,
    summary,
    sums,
    tasks_text,
    totals,
    value_of,
)
from capacity.plugins.older import (
    capacity_preemptive_v113,
    capacity_reclaimable_v113,
    clip_child_deserved_v112,
    clip_flat_deserved_v111,
    leaf_only_enqueue_v111,
    note_unchecked_queue_state,
    parent_less_partly_v114,
)
from capacity.resources import (
    INFINITY,
    MAX_FLOAT,
    MIN_RESOURCE,
    SCALAR_INFINITY,
    ZERO,
    Resource,
    exceeded_part,
    intersection,
    intersection_with_ignored_scalar_resources,
    is_scalar_resource_name,
    res_max,
    to_dict,
)
from capacity.trace import Reason

ROOT = "root"
FLAT_STATE = "capacity.flat"
"""SnapshotCache.plugin_state key of flat capacity's kept state: (the specs' and total's key, per queue its
FixedNumbers, per queue the last session's attribute with the jobs it accounted for, per queue the attribute
the last session closed with and the summary it reported)."""
STALE_SHARES_QUIRK = ("ancestor shares are the values at session open: within a cycle Volcano refreshes only the "
                      "leaf's share")
LEAF_ONLY_QUIRK = "reclaim checks only the leaf's realCapability, not its ancestors' (Volcano HEAD)"


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

    def __init__(self, attr: QueueAttr) -> None:
        self.values = (attr.deserved, attr.capability, attr.guarantee, attr.real_capability)
        self.dicts = tuple(to_dict(r) for r in self.values)
        self.idle_share = 1.0 if attr.deserved.is_empty() else 0.0  # update_share with nothing allocated
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


class FixedTree:
    """What `_build_hierarchical` derives from the queue specs, the cluster total and the options alone,
    kept in the session's SnapshotCache for the next session on the same queues: per queue its parent
    chain and FixedNumbers, and the notes `_check_hierarchical` wrote.

    It also keeps the last session's linked attributes once that session is released (`attrs`), with the
    queues whose job numbers it had (`busy`: the queues of its jobs and their ancestors, the only ones a
    session changes). The next session on the same specs starts from them: it resets the busy queues and
    its own jobs' queues to nothing allocated, and leaves the others, still empty, as they are."""

    __slots__ = ("key", "chains", "numbers", "notes", "attrs", "specs", "busy", "order_pairs", "closed", "leaves",
                 "leaves_of", "parents", "ancestor_parts")

    def __init__(self, key: tuple[Any, ...], chains: dict[str, list[str]], numbers: dict[str, FixedNumbers],
                 notes: list[str]) -> None:
        self.key = key
        self.chains = chains  # per queue in name order (the attributes' order): its ancestors' names
        self.numbers = numbers
        self.notes = notes
        self.attrs: dict[str, QueueAttr] | None = None  # a released session's attributes, else None
        self.specs: list[QueueSpec] = []  # the QueueSpec objects those attributes were made for
        self.busy: set[str] = set()
        self.order_pairs: dict[tuple[str, str], Any] = {}  # queue_order's pairs over those attributes
        # The last session's attributes and the queue numbers it reported at close (CycleResult.queues).
        self.closed: tuple[dict[str, QueueAttr], dict[str, Any]] | None = None
        # The leaves as the last exact build made them, for the next build to take (_accumulate_exact), and
        # the session jobs they were made of (Session.jobs, the dict itself).
        self.leaves: dict[str, LeafRecord] | None = None
        self.leaves_of: dict[str, Job] | None = None
        # With those leaves, when `_accumulate_carried` made them: per ancestor its allocated, request, inqueue
        # and elastic then (copies, never changed).
        self.ancestor_parts: dict[str, tuple[Resource, ...]] | None = None
        self.parents = {names[-1] for names in chains.values() if names}  # the queues with children


class LeafRecord:
    """A leaf queue as `_accumulate_exact` built it: its jobs in session order, its allocated, request,
    inqueue and elastic then (copies, never changed), and at which of its jobs which new scalar keys of
    which field reached its ancestors (job position -> [(field, keys)])."""

    __slots__ = ("jobs", "parts", "events", "facts")

    def __init__(self, jobs: list[Job], attr: QueueAttr, events: dict[int, list[tuple[int, list[str]]]]) -> None:
        self.jobs = jobs
        self.parts = _parts(attr)
        self.events = events
        self.facts: tuple[bool, float, float, float] | None = None  # _leaf_facts of `jobs`, once asked

    def with_jobs(self, jobs: list[Job]) -> LeafRecord:
        """The same record for other jobs that add the same values (built from the same inputs)."""
        rec = LeafRecord.__new__(LeafRecord)
        rec.jobs, rec.parts, rec.events, rec.facts = jobs, self.parts, self.events, self.facts
        return rec


def _parts(attr: QueueAttr) -> tuple[Resource, ...]:
    """Copies of the numbers a tree build accumulates: allocated, request, inqueue, elastic."""
    return attr.allocated.clone(), attr.request.clone(), attr.inqueue.clone(), attr.elastic.clone()


def _set_parts(attr: QueueAttr, parts: tuple[Resource, ...]) -> None:
    """`attr`'s accumulated numbers set to copies of `parts` (`_parts`)."""
    attr.allocated, attr.request, attr.inqueue, attr.elastic = (r.clone() for r in parts)


def _leaf_facts(jobs: Any) -> tuple[bool, float, float, float]:
    """`_job_accum_facts` summed over jobs (a leaf's; integral only if every job is)."""
    return _sum_facts(map(_job_accum_facts, jobs))


def _sum_facts(facts: Any) -> tuple[bool, float, float, float]:
    """Facts (integral, cpu, memory, scalars: `_job_accum_facts`) summed: integral only if all are."""
    cpu = mem = scalars = 0.0
    for integral, c, m, sc in facts:
        if not integral:
            return _NOT_INTEGRAL
        cpu += c
        mem += m
        scalars += sc
    return True, cpu, mem, scalars


def _fresh_keys(attr: QueueAttr, seen: list[int]) -> list[tuple[int, list[str]]]:
    """The scalar keys a leaf's allocated, request, inqueue and elastic (fields 0-3) gained since their key
    counts were `seen` (updated): (field, new keys in order) per field that gained any."""
    out = []
    for fi, r in enumerate((attr.allocated, attr.request, attr.inqueue, attr.elastic)):
        sc = r.scalars
        if sc and len(sc) != seen[fi]:
            out.append((fi, list(sc)[seen[fi]:]))
            seen[fi] = len(sc)
    return out


def _tree_key(ssn: Session, total: Resource) -> tuple[Any, ...]:
    """Everything the fixed part of the hierarchical build reads: each queue spec's parent and resources
    (by identity: specs are replaced, not changed in place, when edited), the total, the seed switch."""
    return (tuple((name, q.parent, q.capability, q.deserved, q.guarantee) for name, q in ssn.queues.items()),
            total.cpu, total.memory, tuple(total.scalars.items()) if total.scalars else None,
            ssn.options.seed004_root_init, ssn.options.all_lacking())


def _carried_leaves(ssn: Session, fixed: FixedTree) -> dict[str, list[Job]] | None:
    """Each leaf's jobs in session order, worked out from the last build's leaves (FixedTree.leaves) without
    a pass over every job, when those were made of the last session's very jobs and this session's jobs have
    the same uids (Session.last_jobs): every job is the last one's but those built anew, so only the leaves
    a job built anew is in, or was in, differ (their jobs listed again, in uid order, the session's order).
    Where those are the same uids as in the leaf's record, and each job built anew was built alike
    (Session.rebuilt_alike: from the inputs of the job it replaces, at whose state the record was made),
    the record stands for them too: it is taken over with the new jobs (in `prev`).
    None when that does not hold, when such a leaf is not a leaf any more or is no queue, or when the
    exact accumulation does not apply (`_accumulation_exact`): the build then takes the whole path."""
    prev, last = fixed.leaves, ssn.last_jobs
    if prev is None or last is None or fixed.leaves_of is not last:
        return None
    fresh = ssn.fresh_jobs
    touched = {job.queue for job in fresh} | {last[job.uid].queue for job in fresh}
    members = {name: {j.uid for j in prev[name].jobs} if name in prev else set() for name in touched}
    for job in fresh:
        members[last[job.uid].queue].discard(job.uid)
        members[job.queue].add(job.uid)
    out = {name: rec.jobs for name, rec in prev.items() if name not in touched}
    jobs = ssn.jobs
    alike = ssn.rebuilt_alike
    for name, uids in members.items():
        if uids:
            if name not in fixed.chains or name in fixed.parents:
                return None
            leaf_jobs = out[name] = [jobs[uid] for uid in sorted(uids)]
            rec = prev.get(name)
            if rec is not None and len(rec.jobs) == len(leaf_jobs) and all(
                    a is b or (a.uid == b.uid and a.uid in alike) for a, b in zip(leaf_jobs, rec.jobs, strict=True)):
                prev[name] = rec.with_jobs(leaf_jobs)  # (its jobs built alike: the same numbers)

    def facts(name: str, leaf_jobs: list[Job]) -> tuple[bool, float, float, float]:
        rec = prev.get(name)  # type: ignore[union-attr]
        if rec is None or rec.jobs is not leaf_jobs:
            return _leaf_facts(leaf_jobs)
        if rec.facts is None:
            rec.facts = _leaf_facts(leaf_jobs)
        return rec.facts

    # (Summed leaf by leaf: with integers the order cannot move the total across 2**52, _accumulation_exact.)
    return out if _exact(_sum_facts(facts(name, leaf_jobs) for name, leaf_jobs in out.items())) else None


def _busy_queues(names: Any, chains: dict[str, list[str]]) -> set[str]:
    """The queues a session's numbers can move: its jobs' queues (`names`) and their ancestors."""
    busy: set[str] = set()
    for name in names:
        names = chains.get(name)
        if names is not None:
            busy.add(name)
            busy.update(names)
    return busy


def update_share(attr: QueueAttr) -> None:
    """updateQueueAttrShare: best-effort queues (empty deserved) have share 1."""
    d = attr.deserved
    if d.is_empty():
        attr.share = 1.0
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


def compare_share(l: QueueAttr, r: QueueAttr) -> int:
    """Share rule of the queue order: smaller share first, then deserved before best-effort."""
    if l.share == r.share:
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
        if res.scalars is None:
            res.scalars = {}
        have = (allocated.scalars or {}).get(k)
        if have is None:
            res.scalars[k] = v
        elif v - have > 0:
            res.scalars[k] = v - have
    return res


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


def accumulate_job(attr: QueueAttr, job: Job) -> None:
    """Step 3 of buildQueueAttrs: allocated, request, inqueue and elastic of one job."""
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
            attr.inqueue.add(_inqueue_of(job))
        elif job.phase == PodGroupPhase.RUNNING:
            allocated_num = sum(len(b) for s, b in job.index.items() if s & ALLOCATED_STATUSES)
            if allocated_num >= job.min_available:
                attr.inqueue.add(_inqueue_of(job))
    _add_exceeded(attr.elastic, job.allocated, job.min_resources_or_empty())


def inqueue_jobs(plugin: Any, queues: set[str]) -> list[str]:
    """For a trace: the jobs of `queues` whose minResources the inqueue figure holds, by the rule of
    `accumulate_job` (Inqueue, or Running with minAvailable tasks allocated) and `job_enqueued` (admitted this
    session: their phase is Inqueue now), keeping those that still reserve something. The session's jobs by
    queue are indexed once (on `plugin`), as a refusal may be traced for every pending job.
    Rule: capacity.go:1124-1144 @ed72c7c8 (buildQueueAttrs' inqueue)."""
    ssn = plugin.ssn
    got = getattr(plugin, "_jobs_by_queue", None)
    if got is None or got[0] is not ssn:
        index: dict[str, list[Job]] = {}
        for job in ssn.jobs.values():
            index.setdefault(job.queue, []).append(job)
        got = plugin._jobs_by_queue = (ssn, index)
    out = []
    for job in (j for q in queues for j in got[1].get(q, ())):
        if job.min_resources is None:
            continue
        held = job.phase == PodGroupPhase.INQUEUE or (job.phase == PodGroupPhase.RUNNING and sum(
            len(b) for s, b in job.index.items() if s & ALLOCATED_STATUSES) >= job.min_available)
        if held and not deduct_sch_gated(job, inqueue_resource(job, job.allocated)).is_empty():
            out.append(job.uid)
    return sorted(out)


def inqueue_words(jobs: list[str], shown_max: int = 3) -> str:
    """'; inqueue is what Inqueue jobs a, b reserve' for a reason that adds the inqueue figure (traced only)."""
    if not jobs:
        return ""
    names = ", ".join(jobs[:shown_max]) + (f" and {len(jobs) - shown_max} more" if len(jobs) > shown_max else "")
    return f"; inqueue is the minResources not yet allocated of the admitted job{'s' if len(jobs) > 1 else ''} {names}"


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


def build_flat_attrs(ssn: Session, total: Resource, make: Any, built: Any = None) -> dict[str, Any]:
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
        accumulate_job(attr, job)
    return attrs


def sum_guarantees(ssn: Session) -> Resource:
    """totalGuarantee (capacity.go:1057-1063): the guarantees of every queue, with jobs or not."""
    total_guarantee = Resource.empty()
    for q in ssn.queues.values():
        if q.guarantee is not None:
            total_guarantee.add(q.guarantee)
    return total_guarantee


def guarantors(ssn: Session) -> dict[str, Resource]:
    """The queues that set a guarantee, by name (those `sum_guarantees` adds up), for a trace."""
    return {q.name: q.guarantee for q in ssn.queues.values() if q.guarantee is not None}


def _who(by: dict[str, Resource], n: str, shown_max: int = 3) -> str:
    """' (queues a, b)': the queues whose guarantee of `n` is in the sum."""
    names = sorted(k for k, g in by.items() if value_of(g, n) > 0)
    if not names:
        return ""
    more = f" and {len(names) - shown_max} more" if len(names) > shown_max else ""
    return f" (queue{'s' if len(names) > 1 else ''} {', '.join(names[:shown_max])}{more})"


def flat_real_how(total: Resource, total_guarantee: Resource, attr: Any, names: list[str],
                  styles: Any, by: dict[str, Resource] | None = None) -> dict[str, str]:
    """Per dimension, how `flat_limits` came to a flat queue's realCapability, with the figures it used:
    max(total - all guarantees, 0) + own guarantee, then the capability where that is lower. `by`: the
    queues that set a guarantee (`guarantors`), named beside the sum of them."""
    how: dict[str, str] = {}
    cap = attr.queue.capability
    for n in names:
        t, sg, g = value_of(total, n), value_of(total_guarantee, n), value_of(attr.guarantee, n)
        base = max(t - sg, 0.0) + g
        real = value_of(attr.real_capability, n)
        text = (f"cluster total {amount(n, t, styles)} - guarantees of all queues {amount(n, sg, styles)}"
                f"{_who(by or {}, n)} + its own guarantee {amount(n, g, styles)} = {amount(n, base, styles)}"
                if sg or g else
                f"the cluster total {amount(n, t, styles)}; no queue guarantees any")
        if n not in ("cpu", "memory") and n not in (total.scalars or {}) and n not in (attr.guarantee.scalars or {}):
            text = "the cluster has none of it"
        if cap is not None and real < base and real == value_of(attr.capability, n):
            text += f"; clipped by its capability {amount(n, real, styles)}"
        how[n] = text
    return how


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


def _fmt(r: Resource, names: list[str]) -> dict[str, float]:
    return {n: r.get(n) if n not in ("cpu", "memory") else getattr(r, n) for n in names}


class CapacityPlugin(Plugin):
    name = "capacity"

    def on_session_open(self, ssn: Session) -> None:
        self.ssn = ssn
        self.trace = ssn.trace
        self.attrs: dict[str, QueueAttr] = {}
        self._order_pairs: dict[tuple[str, str], int | tuple[QueueAttr, QueueAttr, int]] = {}
        self._task_names: dict[str, frozenset[str]] = {}  # reclaimable_possible: ResourceNames per task
        self._fit_reasons: dict[tuple[str, Any], Reason] = {}  # trace: the reason of a fitting path, per path
        # Per queue without a common refusal: its attribute and the levels a check walks (_open_path).
        self._open_paths: dict[str, tuple[QueueAttr, list[QueueAttr]]] = {}
        self._paths: dict[str, str] = {}  # trace: QueueAttr.path() per queue (the tree is fixed once open)
        self.hierarchy = ssn.hierarchy_enabled(self.name)
        level, warn = get_int(self.args, "ancestorReclaimLevel", 0)
        if ssn.options.older("pr5115") and "ancestorReclaimLevel" in self.args:  # no such argument @v1.14.0
            ssn.notes.append(f"capacity: ancestorReclaimLevel is ignored: {ssn.options.older_words('pr5115')}")
            level, warn = 0, ""
        if warn:
            ssn.notes.append(f"capacity: {warn}")
        if level < 0:
            ssn.notes.append("capacity: ancestorReclaimLevel is negative; Volcano uses 0")
            level = 0
        # The level loops (capacity.go:554-556, 685-687 @ed72c7c8) find no ancestor below the tree's depth and
        # `continue`: a level past it changes nothing, but a loop to 2**63 - 1 would never end. The loader
        # refuses trees deeper than MAX_TREE_DEPTH, so capping there decides exactly as Volcano.
        self.ancestor_level = min(level, MAX_TREE_DEPTH + 1)
        self.total = ssn.total_resource
        self.styles = getattr(ssn.cluster, "unit_styles", None)  # the input's units, for reasons
        self.ready = True
        self.not_ready_reason = ""
        if self.hierarchy:
            self._build_hierarchical()
        else:
            self._build_flat()
            ssn.add_fn("queueOrder", self.name, self.queue_order)
            ssn.add_order_less("queueOrder", self.name, self.queue_less)
            ssn.add_order_heap("queueOrder", self.name, self.queue_heap)
        ssn.add_fn("reclaimable", self.name, self.reclaimable)
        if not ssn.options.older("pr4919"):  # the bound reads today's rules; an older release has none
            ssn.add_possible_fn("reclaimable", self.name, self.reclaimable_possible)
        ssn.add_fn("preemptive", self.name, self.preemptive)
        ssn.add_fn("allocatable", self.name, self.allocatable)
        ssn.add_fn("jobEnqueueable", self.name, self.job_enqueueable)
        ssn.add_fn("jobEnqueued", self.name, self.job_enqueued)
        ssn.add_event_handler(EventHandler(self._on_allocate, self._on_deallocate))
        if self.trace.enabled and self.ready:
            self._file_figures()
        if ssn.options.older("pr4263"):
            note_unchecked_queue_state(self)

    # ---- the figures, for a trace ------------------------------------------------------------
    def _file_figures(self) -> None:
        """One queueFigures record per queue with attributes: every figure the checks read, and how the
        build derived it (session open, traced only)."""
        st = self.styles
        total_guarantee = None if self.hierarchy else sum_guarantees(self.ssn)
        seed004 = self.ssn.options.seed004_root_init
        for name in sorted(self.attrs):
            attr = self.attrs[name]
            spec = attr.queue
            names = names_of(attr.real_capability, attr.deserved, attr.guarantee, attr.capability, pods=False)
            extra: dict[str, Any] = {}
            if total_guarantee is not None:
                cap, cap_how = capability_text(spec.capability, attr, names, st)
                real_how = flat_real_how(self.total, total_guarantee, attr, names, st, guarantors(self.ssn))
                des_how = deserved_how(spec.deserved, attr, names, st)
            elif name == ROOT:
                filled = "filled from the cluster total" if seed004 else "not set: no limit"
                empty = spec.capability is None or spec.capability.is_empty()
                cap, cap_how = capability_text(spec.capability, attr, names, st,
                                               dict.fromkeys(names, filled) if empty else None)
                real_how = dict.fromkeys(names, "the cluster total" if seed004 else "root's capability")
                des_how = ("the cluster total, as root's deserved was not set" if seed004 and (
                    spec.deserved is None or spec.deserved.is_empty()) else deserved_how(
                    spec.deserved, attr, names, st, clipped=False) if seed004 else
                           "the sum of its children's deserved, which replaces root's own")
                extra["guaranteeHow"] = "as set" if seed004 else "the sum of its children's guarantees"
            else:
                parent = attr.ancestors[-1]
                cap, cap_how = capability_text(spec.capability, attr, names, st, _inherited(spec, parent, names, st))
                real_how = _tree_real_how(attr, parent, names, st)
                des_how = deserved_how(spec.deserved, attr, names, st, clipped=False)
                extra["path"] = attr.path()
            share_how = share_text(attr, True, st)
            self.trace.because(self.name, "queueFigures",
                               summary(name, cap, cap_how, real_how, des_how, attr, share_how, st), queue=name,
                               **figure_values(attr, cap))
            self.trace.event("queueFigures", name, True, plugin=self.name, capability=cap, capabilityHow=cap_how,
                             realCapabilityHow=real_how, deservedHow=des_how, shareHow=share_how, **extra,
                             nodes=[n.name for n in self.ssn.node_list],
                             **figures(attr, st))

    # ---- attribute building ------------------------------------------------------------------
    def _build_flat(self) -> None:
        ssn = self.ssn
        cache = ssn.cache
        kept: dict[str, FixedNumbers] | None = None
        last: dict[str, tuple[QueueAttr, list[Job]]] = {}
        by_queue: dict[str, list[Job]] = {}
        self._flat_closed: dict[str, tuple[QueueAttr, dict[str, Any]]] | None = None
        taken: set[str] = set()  # the queues whose last attribute `built` hands over
        if cache is not None:  # an earlier session on the same specs and total made the same fixed parts
            key = _tree_key(ssn, self.total)
            state = cache.plugin_state.get(FLAT_STATE)
            if state is None or state[0] != key:
                state = cache.plugin_state[FLAT_STATE] = (key, {}, {}, {})
            kept, last, self._flat_closed = state[1], state[2], state[3]
            for job in ssn.jobs.values():
                got = by_queue.get(job.queue)
                if got is None:
                    by_queue[job.queue] = [job]
                else:
                    got.append(job)

        def built(q: QueueSpec) -> QueueAttr | None:
            """The last session's attribute of the queue if it holds the accounting of the very same jobs
            (the snapshot kept them all: no task of theirs moved) and the session changed nothing in it."""
            got = last.get(q.name)
            if got is None:
                return None
            attr, jobs = got
            now = by_queue[q.name]
            if attr.dirty or len(now) != len(jobs) or not all(map(is_, now, jobs)):
                return None
            taken.add(q.name)
            return attr

        def make(q: QueueSpec, unguaranteed: Resource) -> QueueAttr:
            fixed = kept.get(q.name) if kept is not None else None
            if fixed is not None:
                return QueueAttr.from_fixed(q, fixed)
            attr = flat_limits(QueueAttr(q), q, unguaranteed)
            attr.deserved.min_dimension_resource(attr.real_capability, INFINITY)
            attr.deserved = res_max(attr.deserved, attr.guarantee)
            if kept is not None:  # from now on read-only: shared with the next sessions' attributes
                attr.fixed = kept[q.name] = FixedNumbers(attr)
            return attr

        self.attrs = build_flat_attrs(ssn, self.total, make, built if last else None)
        if ssn.options.older("pr3946"):
            clip_flat_deserved_v111(self)
        for name, attr in self.attrs.items():
            if name not in taken:  # (a taken attribute holds the share of the same numbers already)
                update_share(attr)
        self._flat_taken = taken
        if cache is not None:
            last.clear()
            last.update((name, (attr, by_queue[name])) for name, attr in self.attrs.items())

    def _build_hierarchical(self) -> None:
        ssn = self.ssn
        self.ssn.add_fn("queueOrder", self.name, self.queue_order)
        self.ssn.add_order_less("queueOrder", self.name, self.queue_less)
        self.ssn.add_order_heap("queueOrder", self.name, self.queue_heap)
        self.ssn.add_fn("victimQueueOrder", self.name, self.victim_queue_order)
        cache = ssn.cache
        key = _tree_key(ssn, self.total) if cache is not None else None
        fixed = cache.plugin_state.get(self.name) if cache is not None else None
        if fixed is not None and fixed.key != key:
            fixed = None
        if fixed is not None:  # the same specs and total as an earlier session: its tree, fixed numbers
            queues = ssn.queues
            kept = fixed.attrs
            fixed.attrs = None  # in use: a session that is never released leaves nothing to reuse
            self._closed = fixed.closed  # what the last session reported at close, if it did
            fixed.closed = None
            carried = _carried_leaves(ssn, fixed)
            busy = _busy_queues({job.queue for job in ssn.jobs.values()} if carried is None else carried, fixed.chains)
            if kept is not None and len(fixed.specs) == len(queues) and all(map(is_, queues.values(), fixed.specs)):
                attrs = self.attrs = kept
                for name in busy | fixed.busy:
                    attrs[name].reset()
                self._order_pairs = fixed.order_pairs  # what they hold depends on the tree alone
            else:
                attrs = self.attrs
                numbers = fixed.numbers
                for name in fixed.chains:
                    attrs[name] = QueueAttr.from_fixed(queues[name], numbers[name])
                for name, names in fixed.chains.items():
                    if names:
                        chain = [attrs[a] for a in names]
                        attrs[name].ancestors = chain
                        chain[-1].children[name] = attrs[name]
            prev, ancestor_parts = fixed.leaves, fixed.ancestor_parts
            fixed.leaves = fixed.leaves_of = fixed.ancestor_parts = None
            notes_at = len(ssn.notes)
            if carried is not None:
                stalled = self._accumulate_carried(prev, carried, ancestor_parts)  # type: ignore[arg-type]
            else:
                stalled = self._accumulate_exact(prev) if _accumulation_exact(ssn.jobs.values()) else \
                    self._accumulate_stepwise()
            if not stalled:
                fixed.leaves = getattr(self, "_leaves", None)
                fixed.leaves_of = ssn.jobs
                fixed.ancestor_parts = getattr(self, "_ancestor_parts", None)
                self._keep = (fixed, list(queues.values()), busy)  # handed to `fixed` at release
                ssn.notes.extend(fixed.notes)
                for name in busy:  # the others have nothing allocated: their share is FixedNumbers.idle_share
                    update_share(attrs[name])
                return None
            # Stalled (a job in a queue with children): a build without the kept tree stops there too, before
            # the root's and the checked numbers the kept tree starts from. Build so, for the same numbers
            # (it finds and notes the stall again).
            del ssn.notes[notes_at:]
            self.attrs = {}
            self._order_pairs = {}
        for name in sorted(ssn.queues):
            attr = QueueAttr(ssn.queues[name])
            if ssn.queues[name].capability is not None:
                attr.capability = ssn.queues[name].capability.clone()
            self.attrs[name] = attr
        for name in sorted(self.attrs):
            if name == ROOT:
                continue
            parent = ssn.queues[name].parent or ROOT
            if parent not in self.attrs:
                return self._stall(f"queue {name} names parent {parent!r}, which does not exist"
                                   + (" (Volcano's scheduler creates the root queue at start-up; add a root Queue to "
                                      "the dump)" if parent == ROOT else ""),
                                   f"Queue/{name}", "spec.parent")
            self.attrs[parent].children[name] = self.attrs[name]
        for attr in self.attrs.values():
            chain = []
            cur = ssn.queues[attr.name].parent or ROOT if attr.name != ROOT else ""
            while cur:
                chain.append(self.attrs[cur])
                cur = (ssn.queues[cur].parent or ROOT) if cur != ROOT else ""
            attr.ancestors = list(reversed(chain))
        exact = _accumulation_exact(ssn.jobs.values())
        if self._accumulate_exact() if exact else self._accumulate_stepwise():
            return None
        root = self.attrs.get(ROOT)
        if root is None:
            return self._stall("there is no root queue (Volcano's scheduler creates one at start-up; "
                               "this snapshot has none)", "Queue/root", "")
        if ssn.options.seed004_root_init:
            # before PR #4354 (v1.13.0) both were the cluster total whatever root set (capacity.go:L502-506 @v1.12.0)
            before_4354 = ssn.options.older("pr4354")
            if root.capability.is_empty() or before_4354:
                root.capability = self.total.clone()
            if root.deserved.is_empty() or before_4354:
                root.deserved = self.total.clone()
            root.real_capability = self.total.clone()
        else:
            if root.capability.is_empty():
                inf = Resource(MAX_FLOAT, MAX_FLOAT, dict.fromkeys(self.total.scalars or {}, SCALAR_INFINITY))
                root.capability = inf
            root.real_capability = root.capability
        notes_before = len(ssn.notes)
        self._check_hierarchical(root)
        if cache is not None and self.ready and not ssn.options.older("pr3946"):  # (pr3946: deserved reads requests)
            tree = cache.plugin_state[self.name] = FixedTree(
                key, {name: [a.name for a in attr.ancestors] for name, attr in self.attrs.items()},
                {name: FixedNumbers(attr) for name, attr in self.attrs.items()}, ssn.notes[notes_before:])
            tree.leaves = self._leaves if exact else None
            tree.leaves_of = ssn.jobs
        for attr in self.attrs.values():
            update_share(attr)

    def _accumulate_stepwise(self) -> bool:
        """Step 3 of the tree build as Volcano does it: every job into its leaf, and the change that made
        to the leaf into each ancestor, job by job. True if the build stalled."""
        ssn = self.ssn
        for job in ssn.jobs.values():
            attr = self.attrs.get(job.queue)
            if attr is None:
                continue
            if attr.children:
                self._stall(f"job {job.uid} is in queue {attr.name}, which has child queues "
                            "(jobs must be in leaf queues)", f"PodGroup/{job.uid}", "spec.queue")
                return True
            before = _parts(attr)
            accumulate_job(attr, job)
            deltas = (_delta(attr.allocated, before[0]), _delta(attr.request, before[1]),
                      _delta(attr.inqueue, before[2]), _delta(attr.elastic, before[3]))
            for anc in attr.ancestors:
                anc.allocated.add(deltas[0])
                anc.request.add(deltas[1])
                anc.inqueue.add(deltas[2])
                anc.elastic.add(deltas[3])
        return False

    def _accumulate_exact(self, prev: dict[str, LeafRecord] | None = None) -> bool:
        """`_accumulate_stepwise` when every value it adds is an integer and every sum stays exact
        (`_accumulation_exact`): the leaves accumulate job by job as there, and each ancestor ends as the
        plain sum of its leaves, which is what the job-by-job deltas add up to when no addition rounds.
        The scalar keys of each ancestor take the order in which the deltas would have brought them
        (tests/unit/test_capacity_open_fast.py checks both against `_accumulate_stepwise`).

        `prev`: the last session's leaves as they were built (LeafRecord). A leaf holding the very same
        jobs in the same order takes their numbers from there instead of adding the jobs again: a job a
        SnapshotCache hands over is one no task of which moved, in the phase it was built with, so it adds
        the same values. Its scalar keys reach the ancestors at the same jobs as when it was recorded.
        Leaves the next session may take so are left in `self._leaves`."""
        attrs = self.attrs
        jobs = self.ssn.jobs.values()
        by_leaf: dict[str, list[Job]] = {}
        for job in jobs:
            got = by_leaf.get(job.queue)
            if got is None:
                by_leaf[job.queue] = [job]
            else:
                got.append(job)
        reused: dict[str, LeafRecord] = {}
        if prev:
            for name, now in by_leaf.items():
                rec = prev.get(name)
                attr = attrs.get(name)
                if rec is not None and attr is not None and not attr.children and len(rec.jobs) == len(now) \
                        and all(map(is_, now, rec.jobs)):
                    reused[name] = rec
                    _set_parts(attr, rec.parts)
        visited: dict[str, list[int]] = {}  # leaf -> scalar keys already passed up, per field
        orders: dict[str, tuple[dict[str, None], ...]] = {}  # ancestor -> its scalar keys, per field
        count: dict[str, int] = {}  # leaf -> its jobs so far
        events: dict[str, dict[int, list[tuple[int, list[str]]]]] = {}  # leaf -> at its k-th job, new keys
        stalled = False
        for job in jobs:
            attr = attrs.get(job.queue)
            if attr is None:
                continue
            if attr.children:
                self._stall(f"job {job.uid} is in queue {attr.name}, which has child queues "
                            "(jobs must be in leaf queues)", f"PodGroup/{job.uid}", "spec.queue")
                stalled = True
                break
            name = attr.name
            k = count.get(name, 0)
            count[name] = k + 1
            rec = reused.get(name)
            if rec is None:
                accumulate_job(attr, job)
            ancestors = attr.ancestors
            if not ancestors:
                continue
            seen = visited.get(name)
            if seen is None:
                seen = visited[name] = [0, 0, 0, 0]
                for anc in ancestors:
                    if anc.name not in orders:
                        orders[anc.name] = ({}, {}, {}, {})
            if rec is not None:
                for fi, fresh in rec.events.get(k, ()):
                    for anc in ancestors:
                        order = orders[anc.name][fi]
                        for key in fresh:
                            order.setdefault(key)
                continue
            got = _fresh_keys(attr, seen)
            if got:
                events.setdefault(name, {})[k] = got
                for fi, fresh in got:
                    for anc in ancestors:
                        order = orders[anc.name][fi]
                        for key in fresh:
                            order.setdefault(key)
        self._leaves = None if stalled else {
            name: reused.get(name) or LeafRecord(by_leaf[name], attrs[name], events.get(name, {})) for name in count}
        self._sum_ancestors(visited, orders)
        return stalled

    def _accumulate_carried(self, prev: dict[str, LeafRecord], by_leaf: dict[str, list[Job]],
                            ancestor_parts: dict[str, tuple[Resource, ...]] | None = None) -> bool:
        """`_accumulate_exact` over leaves whose jobs `_carried_leaves` worked out: leaf by leaf, a leaf with
        the very jobs of its last record taking its numbers from there, the others accumulating their jobs;
        then the ancestors' scalar keys in the order the job-by-job build brings them (the order of the
        jobs, which is their uids': Session._snapshot), and their sums. When every leaf of the last build
        took its record, the ancestors are those the last build made of the same numbers (`ancestor_parts`,
        if it recorded them): taken from there. The ancestors are left in `self._ancestor_parts`."""
        attrs = self.attrs
        leaves: dict[str, LeafRecord] = {}
        every = len(by_leaf) == len(prev)  # (and each leaf takes its record: the same leaves, the same numbers)
        ranked: list[tuple[str, str, list[tuple[int, list[str]]]]] = []  # (job uid, leaf, new keys at that job)
        for name, jobs in by_leaf.items():
            attr = attrs[name]
            rec = prev.get(name)
            if rec is not None and rec.jobs is jobs:  # (`_carried_leaves` made it so where the jobs are alike)
                _set_parts(attr, rec.parts)
            else:
                every = False
                seen = [0, 0, 0, 0]
                events: dict[int, list[tuple[int, list[str]]]] = {}
                for k, job in enumerate(jobs):
                    accumulate_job(attr, job)
                    if attr.ancestors:
                        got = _fresh_keys(attr, seen)
                        if got:
                            events[k] = got
                rec = LeafRecord(jobs, attr, events)
            leaves[name] = rec
            if attr.ancestors:
                ranked.extend((jobs[k].uid, name, got) for k, got in rec.events.items())
        self._leaves = leaves
        if every and ancestor_parts is not None:
            for name, parts in ancestor_parts.items():
                _set_parts(attrs[name], parts)
            self._ancestor_parts = ancestor_parts
            return False
        ranked.sort(key=itemgetter(0))
        visited = [name for name in leaves if attrs[name].ancestors]
        orders: dict[str, tuple[dict[str, None], ...]] = {}
        for name in visited:
            for anc in attrs[name].ancestors:
                if anc.name not in orders:
                    orders[anc.name] = ({}, {}, {}, {})
        for _uid, name, got in ranked:
            ancestors = attrs[name].ancestors
            for fi, fresh in got:
                for anc in ancestors:
                    order = orders[anc.name][fi]
                    for key in fresh:
                        order.setdefault(key)
        self._sum_ancestors(visited, orders)
        self._ancestor_parts = {name: _parts(attrs[name]) for name in orders}
        return False  # (`_carried_leaves` found every job in a leaf)

    def _sum_ancestors(self, leaves: Any, orders: dict[str, tuple[dict[str, None], ...]]) -> None:
        """Each ancestor of `leaves` (leaf names) as the plain sum of their allocated, request, inqueue and
        elastic (exact: `_accumulation_exact`), its scalar keys in `orders`' order."""
        attrs = self.attrs
        # Per ancestor and field: cpu, memory and the scalar sums, added leaf by leaf in `leaves` order.
        sums: dict[str, tuple[list[float], list[float], list[dict[str, float]]]] = {}
        for name in leaves:
            leaf = attrs[name]
            parts = (leaf.allocated, leaf.request, leaf.inqueue, leaf.elastic)
            for anc in leaf.ancestors:
                acc = sums.get(anc.name)
                if acc is None:
                    acc = sums[anc.name] = ([0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [{}, {}, {}, {}])
                cpu, mem, scalars = acc
                for fi, r in enumerate(parts):
                    cpu[fi] += r.cpu
                    mem[fi] += r.memory
                    sc = r.scalars
                    if sc:
                        into = scalars[fi]
                        for k, v in sc.items():
                            into[k] = into.get(k, 0.0) + v
        for anc_name, (cpu, mem, scalars) in sums.items():
            anc = attrs[anc_name]
            for fi, target in enumerate((anc.allocated, anc.request, anc.inqueue, anc.elastic)):
                target.cpu = cpu[fi]
                target.memory = mem[fi]
                order = orders[anc_name][fi]
                if order:
                    got = scalars[fi]
                    target.scalars = {k: got.get(k, 0.0) for k in order}

    def _check_hierarchical(self, parent: QueueAttr) -> None:
        sum_d = Resource.empty()
        sum_g = Resource.empty()
        pcap = parent.capability
        for name in sorted(parent.children):
            c = parent.children[name]
            if not self.ssn.options.seed004_root_init:
                c.deserved = res_max(c.deserved, c.guarantee)
            sum_d.add(c.deserved)
            sum_g.add(c.guarantee)
            if c.capability.cpu <= 0:
                c.capability.cpu = pcap.cpu
            if c.capability.memory <= 0:
                c.capability.memory = pcap.memory
            if pcap.scalars is not None:
                for k, v in pcap.scalars.items():
                    if c.capability.scalars is None or k not in c.capability.scalars:
                        c.capability.set_scalar(k, v)
            over, names = c.capability.greater_partly(pcap, INFINITY)
            if self.ssn.options.older("pr5176"):
                over, names = parent_less_partly_v114(pcap, c.capability)
            if over and self._stall_before_4864(f"queue {c.name} capability exceeds its parent {parent.name}'s "
                                                f"on {', '.join(names)}", c.name, "spec.capability"):
                return
            if over:
                self.ssn.notes.append(f"capacity: queue {c.name} capability exceeds its parent "
                                      f"{parent.name}'s on {', '.join(names)} (Volcano only logs this)")
        if parent.name == ROOT and not self.ssn.options.seed004_root_init:
            parent.guarantee = sum_g
            parent.deserved = sum_d
        for name in sorted(parent.children):
            c = parent.children[name]
            real = exceeded_part(parent.real_capability, sum_g).add(c.guarantee)
            real.min_dimension_resource(c.capability, INFINITY)
            c.real_capability = real
            if self.ssn.options.older("pr4354"):
                sum_d = clip_child_deserved_v112(self, c, sum_d)
        # capacity.go:1543-1548 @ed72c7c8 only logs these; the queue webhook refuses the child that makes the sum
        # exceed the parent's (validate_queue.go:587-628 @ed72c7c8 validateSiblingsSum)
        if parent.deserved.less_partly(sum_d, ZERO) and parent.children and self._stall_before_4864(
                f"children of {parent.name} deserve more than it does", parent.name, "spec.deserved"):
            return
        if parent.deserved.less_partly(sum_d, ZERO) and parent.children:
            self.ssn.notes.append(f"capacity: children of {parent.name} deserve more than it does: their deserved "
                                  f"adds up to {self._sum_text(sum_d)}, its own is "
                                  f"{self._sum_text(parent.deserved)} (Volcano only logs this; its queue admission "
                                  "webhook would have rejected the child that made the sum exceed the parent's)")
        if parent.guarantee.less_partly(sum_g, ZERO) and parent.children and self._stall_before_4864(
                f"children of {parent.name} guarantee more than it does", parent.name, "spec.guarantee"):
            return
        if parent.guarantee.less_partly(sum_g, ZERO) and parent.children:
            self.ssn.notes.append(f"capacity: children of {parent.name} guarantee more than it does: their "
                                  f"guarantee adds up to {self._sum_text(sum_g)}, its own is "
                                  f"{self._sum_text(parent.guarantee)} (Volcano only logs this; its queue admission "
                                  "webhook would have rejected the child that made the sum exceed the parent's)")
        for name in sorted(parent.children):
            self._check_hierarchical(parent.children[name])
            if not self.ready:
                return

    def _stall_before_4864(self, why: str, queue: str, fld: str) -> bool:
        """Before PR #4864 (v1.14.0) checkHierarchicalQueue returned these as errors and capacity stopped
        (readyToSchedule = false; capacity.go:L598-602, L752-822 @v1.13.0). True when this session stalls."""
        if not self.ssn.options.older("pr4864"):
            return False
        self._stall(f"{self.ssn.options.older_words('pr4864')}: {why}", f"Queue/{queue}", fld)
        return True

    def _sum_text(self, r: Resource) -> str:
        """'cpu 4, memory 4Gi' in the input's units, for a session note."""
        from capacity.quantity import format_resources
        return format_resources({n: v for n, v in to_dict(r).items() if n != "pods"},
                                getattr(self.ssn.cluster, "unit_styles", None))

    def _stall(self, why: str, obj: str, fld: str) -> None:
        self.ready = False
        self.not_ready_reason = why
        self.ssn.notes.append(f"capacity: readyToSchedule=false: {why}; capacity refuses every "
                              f"allocation, enqueue and reclaim this cycle ({obj} {fld})".strip())

    # ---- order ---------------------------------------------------------------------------------
    def queue_order(self, l: QueueSpec, r: QueueSpec) -> int:
        """`_queue_order` with what does not change within a session (which attributes' shares are
        compared, and their deserved-emptiness tie-break) kept per pair of queues, for as long as the
        attributes live (FixedTree.order_pairs): only the shares are read live."""
        lp = l.priority
        rp = r.priority
        if lp != rp:
            return -1 if lp > rp else 1
        pair = self._order_pairs.get((l.name, r.name))
        if pair is None:
            pair = self._order_pairs[(l.name, r.name)] = self._order_pair(l, r)
        if pair.__class__ is int:
            return pair
        lq, rq, tie = pair
        ls = lq.share
        rs = rq.share
        if ls == rs:
            return tie
        return -1 if ls < rs else 1

    def queue_less(self, tie: Any) -> Any:
        """The queue heaps' `less` when capacity is the only queue order: `queue_order`, then `tie`, in one
        call (Session.add_order_less)."""
        make = self._order_pair

        def less(l: QueueSpec, r: QueueSpec) -> bool:
            lp = l.priority
            rp = r.priority
            if lp != rp:
                return lp > rp  # type: ignore[no-any-return]
            pairs = self._order_pairs
            key = (l.name, r.name)
            pair = pairs.get(key)
            if pair is None:
                pair = pairs[key] = make(l, r)
            if pair.__class__ is int:
                return pair < 0 if pair != 0 else tie(l, r)  # type: ignore[no-any-return,operator]
            lq, rq, then = pair  # type: ignore[misc]
            ls = lq.share
            rs = rq.share
            if ls == rs:
                return then < 0 if then != 0 else tie(l, r)  # type: ignore[no-any-return]
            return ls < rs  # type: ignore[no-any-return]

        return less

    def queue_heap(self, tie: Any, pops: int) -> Any:
        """allocate's queue heap over `queue_less(tie)` compiled, at scale (capacity_heap); else None."""
        from capacity.plugins.capacity_heap import CapacityQueueHeap
        return CapacityQueueHeap.make(self, tie, pops)

    def _order_pair(self, l: QueueSpec, r: QueueSpec) -> int | tuple[QueueAttr, QueueAttr, int]:
        """What `_queue_order` compares for l and r past priority: a fixed answer, or the two
        attributes whose shares decide and compare_share's answer when those shares are equal."""
        la = self.attrs.get(l.name)
        ra = self.attrs.get(r.name)
        if la is None or ra is None:
            return 0
        if self.hierarchy:
            lleaf, rleaf = not la.children, not ra.children
            if lleaf != rleaf:
                return -1 if lleaf else 1
            if lleaf:
                level = queue_level(la, ra)
                la = la.ancestors[level + 1] if level + 1 < len(la.ancestors) else la
                ra = ra.ancestors[level + 1] if level + 1 < len(ra.ancestors) else ra
        le, re_ = la.deserved.is_empty(), ra.deserved.is_empty()
        return la, ra, -1 if not le and re_ else 1 if le and not re_ else 0

    def _queue_order(self, l: QueueSpec, r: QueueSpec) -> int:
        """capacity.go's queue order as written (the reference for `queue_order`)."""
        if l.priority != r.priority:
            return -1 if l.priority > r.priority else 1
        la = self.attrs.get(l.name)
        ra = self.attrs.get(r.name)
        if la is None or ra is None:
            return 0
        if not self.hierarchy:
            return compare_share(la, ra)
        lleaf, rleaf = not la.children, not ra.children
        if lleaf != rleaf:
            return -1 if lleaf else 1
        if not lleaf:
            return compare_share(la, ra)
        level = queue_level(la, ra)
        lq = la.ancestors[level + 1] if level + 1 < len(la.ancestors) else la
        rq = ra.ancestors[level + 1] if level + 1 < len(ra.ancestors) else ra
        return compare_share(lq, rq)

    def victim_queue_order(self, l: QueueSpec, r: QueueSpec, preemptor: QueueSpec) -> int:
        la, ra, pa = self.attrs.get(l.name), self.attrs.get(r.name), self.attrs.get(preemptor.name)
        if la is None or ra is None or pa is None:
            return 0
        ll, rl = queue_level(la, pa), queue_level(ra, pa)
        if ll == rl:
            return 0
        return -1 if ll > rl else 1

    def describe_queue(self, queue: QueueSpec) -> dict[str, Any]:
        """The share this queue is ordered by, and in hierarchical mode the ancestors' (stale) shares."""
        attr = self.attrs.get(queue.name)
        if attr is None:
            return {}
        out: dict[str, Any] = {"share": attr.share, "queuePriority": queue.priority}
        if attr.deserved.is_empty():
            out["shareNote"] = BEST_EFFORT_SHARE  # share 1 with nothing allocated is Volcano's rule, not a slip
        if self.hierarchy:
            path = self._paths.get(attr.name)
            if path is None:
                path = self._paths[attr.name] = attr.path()
            out["path"] = path
            out["ancestorShares"] = {a.name: a.share for a in attr.ancestors}
            out["quirk"] = STALE_SHARES_QUIRK
        return out

    # ---- checks --------------------------------------------------------------------------------
    def _path(self, attr: QueueAttr) -> list[QueueAttr]:
        """The queues a hierarchical check walks: the leaf, then its parent, up to root."""
        if not self.hierarchy:
            return [attr]
        return [attr, *reversed(attr.ancestors)]

    def _common_refusal(self, queue: QueueSpec, attr: QueueAttr | None) -> str | None:
        if not queue.is_open() and not self.ssn.options.older("pr4263"):
            return f"queue {queue.name} is {queue.state or 'not Open'} (state must be Open)"
        if not self.ready:
            return f"capacity is not ready to schedule: {self.not_ready_reason}"
        if attr is None:
            return f"queue {queue.name} has no capacity attributes"
        if self.hierarchy and attr.children:
            return f"queue {queue.name} is not a leaf queue"
        return None

    def _open_path(self, queue: QueueSpec) -> tuple[QueueAttr, list[QueueAttr]] | None:
        """The queue's attribute and `_path` when `_common_refusal` has nothing against it, else None. Kept
        per queue: what that refusal reads (the queue's state, readiness, the attributes and the tree) is
        settled once the plugin is open."""
        got = self._open_paths.get(queue.name)
        if got is None:
            attr = self.attrs.get(queue.name)
            if self._common_refusal(queue, attr) is not None:
                return None
            assert attr is not None
            got = self._open_paths[queue.name] = (attr, self._path(attr))
        return got

    def _file_refusal(self, queue: QueueSpec) -> None:
        """The trace's reason for a queue `_open_path` refuses (its `_common_refusal`)."""
        why = self._common_refusal(queue, self.attrs.get(queue.name))
        assert why is not None
        self.trace.because(self.name, "queueState" if "state" in why else "notReady", why)

    def allocatable(self, queue: QueueSpec, task: Task) -> bool:
        got = self._open_path(queue)
        if got is None:
            self._file_refusal(queue)
            return False
        attr, path = got
        if self.ssn.options.leaf_only_allocatable:
            path = [attr]
        req = task.resreq
        for a in path:
            if fits_after_adding(a.allocated, req, a.real_capability):
                continue
            future = a.allocated.clone().add(req)
            ok, failed = future.less_equal_with_dimension_and_resources_name(a.real_capability, req)
            if not ok:
                if self.trace.enabled:
                    self.trace.because(
                        self.name, "realCapability",
                        f"queue {a.name} would exceed its realCapability on {', '.join(failed)} at level "
                        f"{a.path()}: " + sums([("", a.allocated), ("+", req)], a.real_capability, failed, ">",
                                               self.styles),
                        queue=a.name, level=a.path(), dimensions=failed,
                        allocated=_fmt(a.allocated, failed), request=_fmt(req, failed),
                        realCapability=_fmt(a.real_capability, failed),
                        **totals([("", a.allocated), ("+", req)], a.real_capability, failed))
                return False
        if self.trace.enabled:
            # The same path for every task of the queue: one reason, given again for each.
            key = (attr.name, len(path))
            fit = self._fit_reasons.get(key)
            if fit is None:
                names = [a.name for a in path]
                fit = self._fit_reasons[key] = Reason(self.name, "realCapability",
                                                      f"fits the realCapability of {', '.join(names)}",
                                                      {"queues": names})
            self.trace.again(fit)
        return True

    def job_enqueueable(self, job: Job) -> int:
        queue = self.ssn.queues[job.queue]
        got = self._open_path(queue)
        if got is None:
            self._file_refusal(queue)
            return REJECT
        attr, path = got
        if job.min_resources is None:
            self.trace.because(self.name, "noMinResources", "the job sets no minResources")
            return PERMIT
        min_req = job.min_resources
        traced = self.trace.enabled
        if self.ssn.options.older("pr4119"):  # capacity.go:L214-239 @v1.11.0: the job's own queue only
            path = leaf_only_enqueue_v111(self, attr)
        for a in path:
            # The same answer without building the sums where it cannot differ (enqueue_fits); the reference
            # where it can, and for the failing dimensions a trace names.
            fits = enqueue_fits(min_req, a.allocated, a.inqueue, a.elastic, a.real_capability)
            if fits:
                continue
            if fits is False and not traced:
                return REJECT
            r = min_req.clone().add(a.allocated).add(a.inqueue).sub(a.elastic)
            ok, failed = r.less_equal_with_dimension_and_resources_name(a.real_capability, min_req)
            if not ok:
                if traced:
                    held = inqueue_jobs(self, {x.name for x in self.attrs.values() if x is a or a in x.ancestors}) \
                        if any(value_of(a.inqueue, n) for n in failed) else []
                    self.trace.because(
                        self.name, "enqueueRealCapability",
                        f"queue resource quota insufficient: minResources + allocated + inqueue - elastic "
                        f"exceeds the realCapability of {a.path()} on {', '.join(failed)}: " + sums(
                            [("", min_req), ("+", a.allocated), ("+", a.inqueue), ("-", a.elastic)],
                            a.real_capability, failed, ">", self.styles) + inqueue_words(held),
                        queue=a.name, inqueueJobs=held, dimensions=failed, minResources=_fmt(min_req, failed),
                        allocated=_fmt(a.allocated, failed), inqueue=_fmt(a.inqueue, failed),
                        elastic=_fmt(a.elastic, failed), realCapability=_fmt(a.real_capability, failed),
                        **totals([("", min_req), ("+", a.allocated), ("+", a.inqueue), ("-", a.elastic)],
                                 a.real_capability, failed))
                return REJECT
        if traced:
            self._file_enqueue_fit(min_req, path)
        if self.ssn.options.older("pr5339"):  # capacity.go:L742-800 @v1.15.0: reserved at the vote
            self.job_enqueued(job, at_vote=True)
        return PERMIT

    def _file_enqueue_fit(self, min_req: Resource, path: list[QueueAttr]) -> None:
        """A passing enqueue check's reasons (traced only): one per level of `path`, with its numbers, or
        "no limit" where the level's realCapability is unlimited on every dimension the job asks for (root's
        unset capability is unlimited at HEAD: capacity.go:1325-1343 @ed72c7c8)."""
        asked = requested(min_req)
        for i, a in enumerate(path):
            terms = [("", min_req), ("+", a.allocated), ("+", a.inqueue), ("-", a.elastic)]
            dims = [n for n in asked if limit_amount(n, value_of(a.real_capability, n), None) != "no limit"]
            how = (sums(terms, a.real_capability, dims, "<=", self.styles) if dims else
                   "no limit (capability unset" + (" here and above" if a.ancestors else "") + ")" if asked
                   else "it asks for nothing")
            head = ("minResources + allocated + inqueue - elastic fit the realCapability at every level: "
                    if i == 0 else "")
            self.trace.because(self.name, "enqueueRealCapability", f"{head}{a.path()}: {how}", queue=a.name,
                               level=a.path(), dimensions=dims, minResources=_fmt(min_req, dims),
                               allocated=_fmt(a.allocated, dims), inqueue=_fmt(a.inqueue, dims),
                               elastic=_fmt(a.elastic, dims), realCapability=_fmt(a.real_capability, dims),
                               **totals(terms, a.real_capability, dims, "<="),
                               **({"levels": [x.path() for x in path]} if i == 0 else {}))

    def job_enqueued(self, job: Job, at_vote: bool = False) -> None:
        if job.min_resources is None or (self.ssn.options.older("pr5339") and not at_vote):
            return
        attr = self.attrs.get(job.queue)
        if attr is None:
            return
        add = deduct_sch_gated(job, job.min_resources)
        attr.inqueue.add(add)
        attr.dirty = True
        if self.hierarchy and not self.ssn.options.older("pr4119"):  # @v1.11.0 the leaf's inqueue only
            for anc in attr.ancestors:
                anc.inqueue.add(add)

    def preemptive(self, queue: QueueSpec, tasks: list[Task]) -> bool:
        attr = self.attrs.get(queue.name)
        if not self.ready:
            self.trace.because(self.name, "notReady", f"capacity is not ready: {self.not_ready_reason}")
            return False
        if not queue.is_open() and not self.ssn.options.older("pr4263"):
            self.trace.because(self.name, "queueState", f"queue {queue.name} is not Open")
            return False
        if attr is None:
            return False
        total_req = Resource.empty()
        for t in tasks:
            total_req.add(t.resreq)
        if self.ssn.options.older("pr4659"):  # also before PR #5053: no realCapability check
            return capacity_preemptive_v113(self, queue, attr, total_req)
        future = attr.allocated.clone().add(total_req)
        ok, failed = future.less_equal_with_dimension_and_resources_name(attr.real_capability, total_req)
        traced = self.trace.enabled
        if not ok and self.ssn.options.older("pr5053"):  # capacity.go:L166-199 @v1.14.0 had no such check
            if traced:
                self.trace.because(self.name, "reclaimerRealCapability", f"{self.ssn.options.older_words('pr5053')}:"
                                   f" queue {queue.name} exceeds its realCapability on {', '.join(failed)} but may "
                                   "still reclaim", queue=queue.name, dimensions=failed, switch="pr5053")
            ok = True
        if not ok:
            if traced:
                self.trace.because(self.name, "reclaimerRealCapability",
                                   f"queue {queue.name} would exceed its realCapability on {', '.join(failed)}: "
                                   f"allocated + request > realCapability: "
                                   f"{self._added(attr.allocated, total_req, attr.real_capability, failed, '>')}",
                                   quirk=LEAF_ONLY_QUIRK if self.hierarchy else "",
                                   queue=queue.name, dimensions=failed, allocated=_fmt(attr.allocated, failed),
                                   request=_fmt(total_req, failed), realCapability=_fmt(attr.real_capability, failed),
                                   **totals([("", attr.allocated), ("+", total_req)], attr.real_capability, failed))
            return False
        ok, dims = future.less_equal_partly_with_dimension_zero_filtered(attr.deserved, total_req)
        if ok:
            if traced:
                self.trace.because(self.name, "underDeserved", f"queue {queue.name} stays within its deserved "
                                   f"on {', '.join(dims)}: allocated + request <= deserved: "
                                   f"{self._added(attr.allocated, total_req, attr.deserved, dims, '<=')}",
                                   quirk=LEAF_ONLY_QUIRK if self.hierarchy else "",
                                   queue=queue.name, dimensions=dims, allocated=_fmt(attr.allocated, dims),
                                   request=_fmt(total_req, dims), deserved=_fmt(attr.deserved, dims),
                                   **totals([("", attr.allocated), ("+", total_req)], attr.deserved, dims, "<="))
            return True
        if self.hierarchy and self.ancestor_level > 0:
            for d in range(1, self.ancestor_level + 1):
                anc = _ancestor_at_depth(attr, d)
                if anc is None or anc.name == ROOT:
                    continue
                f2 = anc.allocated.clone().add(total_req)
                ok, dims = f2.less_equal_partly_with_dimension_zero_filtered(anc.deserved, total_req)
                if ok:
                    if traced:
                        self.trace.because(self.name, "ancestorUnderDeserved",
                                           f"ancestor {anc.name} (depth {d}) stays within its deserved on "
                                           f"{', '.join(dims)}: allocated + request <= deserved: "
                                           + self._added(anc.allocated, total_req, anc.deserved, dims, "<="),
                                           queue=anc.name, depth=d, dimensions=dims,
                                           allocated=_fmt(anc.allocated, dims), request=_fmt(total_req, dims),
                                           deserved=_fmt(anc.deserved, dims),
                                           **totals([("", anc.allocated), ("+", total_req)], anc.deserved, dims,
                                                    "<="))
                    return True
        if traced:
            asked = requested(total_req)
            self.trace.because(self.name, "overDeserved", f"queue {queue.name} would exceed its deserved on "
                               f"every requested dimension: allocated + request > deserved: "
                               f"{self._added(attr.allocated, total_req, attr.deserved, asked, '>')}", queue=queue.name,
                               dimensions=asked, allocated=_fmt(attr.allocated, asked), request=_fmt(total_req, asked),
                               deserved=_fmt(attr.deserved, asked),
                               **totals([("", attr.allocated), ("+", total_req)], attr.deserved, asked))
        return False

    def _added(self, allocated: Resource, req: Resource, limit: Resource, names: list[str], op: str) -> str:
        """"cpu 3 + 1 <= 4, ...": allocated + request against a limit, for a reason's sentence."""
        return sums([("", allocated), ("+", req)], limit, names, op, self.styles)

    def reclaimable(self, reclaimer: Task, reclaimees: list[Task]) -> tuple[list[Task], int]:
        ssn = self.ssn
        trace = self.trace
        if ssn.options.older("pr4919"):
            return capacity_reclaimable_v113(self, reclaimer, reclaimees)
        if not self.ready:
            trace.because(self.name, "notReady", f"capacity is not ready: {self.not_ready_reason}")
            return [], REJECT
        rjob = ssn.jobs.get(reclaimer.job)
        rattr = self.attrs.get(rjob.queue) if rjob is not None else None
        if rattr is None:
            return [], REJECT
        level = self.ancestor_level if self.hierarchy else 0
        allocations: dict[str, Resource] = {}
        victims: list[Task] = []
        traced = trace.enabled
        taken: dict[str, list[Task]] = {}  # traced: per queue the victims already counted off, in order
        for t in ssn.victims_in_order(reclaimees, reclaimer):
            job = ssn.jobs.get(t.job)
            attr = self.attrs.get(job.queue) if job is not None else None
            if attr is None:
                continue
            if not intersection_with_ignored_scalar_resources(t.resreq, reclaimer.init_resreq):
                if traced:
                    trace.because(self.name, "noSharedDimension", f"{t.key} kept: it uses no resource "
                                  f"{reclaimer.key} requests", task=t.key)
                continue
            allocated = allocations.get(attr.name)
            if allocated is None:
                allocated = allocations[attr.name] = attr.allocated.clone()
            left = allocated.clone().sub_without_assert(t.resreq)
            if not attr.guarantee.less_equal(left, ZERO):
                if traced:
                    _, below = attr.guarantee.less_equal_with_resources_name(left, ZERO)
                    trace.because(self.name, "guarantee", f"{t.key} kept: {self._after(attr, taken)}queue "
                                  f"{attr.name}'s allocated {amounts(allocated, below, self.styles)} less the pod's "
                                  f"{amounts(t.resreq, below, self.styles)} would leave "
                                  f"{amounts(left, below, self.styles)}, below its guarantee "
                                  f"{amounts(attr.guarantee, below, self.styles)}", task=t.key, queue=attr.name,
                                  dimensions=below, allocated=_fmt(allocated, below), request=_fmt(t.resreq, below),
                                  guarantee=_fmt(attr.guarantee, below), after=_keys(taken.get(attr.name)))
                continue
            immediate = not intersection(t.resreq, attr.deserved)
            if immediate:
                if (level > 0 and _shares_ancestor(rattr, attr, level)
                        and not intersection(reclaimer.resreq, rattr.deserved)):
                    if traced:
                        trace.because(self.name, "noRealContention", f"{t.key} kept: reclaimer and victim share "
                                      "an ancestor and the reclaimer's queue deserves none of what it asks")
                    continue
            else:
                over, dims = allocated.greater_partly_with_relevant_dimensions(attr.deserved, t.resreq)
                if not over:
                    if traced:
                        used = _relevant(t.resreq, attr.deserved)
                        trace.because(self.name, "notOverDeserved", f"{t.key} kept: " + self._not_above(
                            attr.name, allocated, attr.deserved, used, taken.get(attr.name), t.key),
                            task=t.key, queue=attr.name, dimensions=used, allocated=_fmt(allocated, used),
                            deserved=_fmt(attr.deserved, used), after=_keys(taken.get(attr.name)))
                    continue
            checked: list[QueueAttr] = []
            blocked = False
            for d in range(1, level + 1):
                anc = _reclaimee_ancestor_to_check(rattr, attr, d)
                if anc is None:
                    continue
                if not intersection(t.resreq, anc.deserved):
                    continue
                aalloc = allocations.get(anc.name)
                if aalloc is None:
                    aalloc = allocations[anc.name] = anc.allocated.clone()
                over, _ = aalloc.greater_partly_with_relevant_dimensions(anc.deserved, t.resreq)
                if not over:
                    if traced:
                        used = _relevant(t.resreq, anc.deserved)
                        trace.because(self.name, "ancestorNotOverDeserved", f"{t.key} kept: ancestor {anc.name} "
                                      f"(depth {d}): " + self._not_above(anc.name, aalloc, anc.deserved, used,
                                                                         taken.get(anc.name), t.key),
                                      task=t.key, queue=anc.name, depth=d, allocated=_fmt(aalloc, used),
                                      deserved=_fmt(anc.deserved, used), after=_keys(taken.get(anc.name)))
                    blocked = True
                    break
                checked.append(anc)
            if blocked:
                continue
            if traced:
                st = self.styles
                if immediate:
                    uses = ", ".join(requested(t.resreq)) or "nothing"
                    why = (f"it uses nothing its queue deserves (it uses {uses}; queue {attr.name} deserves "
                           f"{amounts(attr.deserved, attr.deserved.resource_names(), st)})")
                else:
                    why = (f"{self._after(attr, taken)}queue {attr.name}'s allocated {amounts(allocated, dims, st)} is "
                           f"above its deserved {amounts(attr.deserved, dims, st)}")
                trace.because(self.name, "immediateVictim" if immediate else "overDeserved", f"{t.key} may go: {why}",
                              task=t.key, queue=attr.name, dimensions=[] if immediate else dims,
                              allocated=_fmt(allocated, [] if immediate else dims),
                              deserved=_fmt(attr.deserved, attr.deserved.resource_names() if immediate else dims),
                              after=_keys(taken.get(attr.name)))
                for q in (attr, *checked):
                    taken.setdefault(q.name, []).append(t)
            allocated.sub(t.resreq)
            for anc in checked:
                allocations[anc.name].sub(t.resreq)
            victims.append(t)
        return victims, PERMIT

    def _after(self, attr: QueueAttr, taken: dict[str, list[Task]]) -> str:
        """"after evicting a-1 (cpu 1), " when earlier victims of the queue were counted off, else ""."""
        earlier = taken.get(attr.name)
        return f"after evicting {tasks_text(earlier, self.styles)}, " if earlier else ""

    def _not_above(self, queue: str, allocated: Resource, deserved: Resource, used: list[str],
                   earlier: list[Task] | None, key: str) -> str:
        """Why a candidate stays: its queue's allocation, less the victims counted off before it, is not above
        the queue's deserved on any dimension the candidate uses (GreaterPartlyWithRelevantDimensions)."""
        st = self.styles
        a, d = amounts(allocated, used, st), amounts(deserved, used, st)
        if earlier:
            return (f"after evicting {tasks_text(earlier, st)}, queue {queue}'s allocated would be {a}, which is not "
                    f"above its deserved {d}, so {key} is kept")
        return f"queue {queue}'s allocated {a} is not above its deserved {d} on any dimension the pod uses"

    def reclaimable_possible(self, reclaimer: Task) -> tuple[Any, ...]:
        """Session.add_possible_fn's bound on `reclaimable`: the checks above against the queues' counters
        as they are, before any victim of this call is taken off. Within a call the counters only go
        down, and every check that keeps a task fails the more for it (guarantee, deserved, ancestors),
        so a task kept here is kept by every call until the counters change."""
        ssn = self.ssn
        rjob = ssn.jobs.get(reclaimer.job)
        rattr = self.attrs.get(rjob.queue) if rjob is not None else None
        if not self.ready or rattr is None:
            return ("none",), _never
        level = self.ancestor_level if self.hierarchy else 0
        req = reclaimer.init_resreq
        names = frozenset(req.resource_names()) - {"pods"}
        contended = True
        if level > 0:
            contended = bool(intersection(reclaimer.resreq, rattr.deserved))
            key: Any = (names, rattr.name, contended)
        else:
            key = (names,)
        jobs = ssn.jobs
        facts = self._victim_facts()
        names_of = self._task_names  # (a task's requests never change)

        def test(t: Task) -> bool:
            job = jobs.get(t.job)
            f = facts(job.queue) if job is not None else None
            if f is None:
                return False
            attr, deserved_names, zero_guarantee, cpu_over, mem_over, over_scalars = f
            r = t.resreq
            tnames = names_of.get(t.uid)
            if tnames is None:
                tnames = names_of[t.uid] = frozenset(r.resource_names())
            if tnames.isdisjoint(names):  # IntersectionWithIgnoredScalarResources is empty
                return False
            a = attr.allocated
            if zero_guarantee:  # guarantee.LessEqual(allocated - r, Zero) with an all-zero guarantee
                if not (a.cpu - r.cpu > -MIN_RESOURCE and a.memory - r.memory > -MIN_RESOURCE):
                    return False
            elif not attr.guarantee.less_equal(a.clone().sub_without_assert(r), ZERO):
                return False
            if tnames.isdisjoint(deserved_names):  # immediate
                if level > 0 and not contended and _shares_ancestor(rattr, attr, level):
                    return False
            elif not ((cpu_over and r.cpu > 0) or (mem_over and r.memory > 0)
                      or (over_scalars and r.scalars
                          and any(q > 0 and k in over_scalars for k, q in r.scalars.items()))):
                return False  # GreaterPartlyWithRelevantDimensions(deserved, r) is false
            for d in range(1, level + 1):
                anc = _reclaimee_ancestor_to_check(rattr, attr, d)
                if anc is None or not intersection(r, anc.deserved):
                    continue
                if not anc.allocated.greater_partly_with_relevant_dimensions(anc.deserved, r)[0]:
                    return False
            return True

        if level > 0:
            return key, test
        return key, test, self._reclaimable_vector(names, test)

    def _reclaimable_vector(self, names: frozenset[str], test: Any) -> Any:
        """`reclaimable_possible`'s test (without ancestor levels) for many VictimTable rows at once: per
        row, its queue's facts (`_queue_facts`) against its request columns. Rows of a queue with a
        guarantee other than zero are asked one by one (`guarantee.LessEqual` reads every dimension)."""

        def vector(table: Any, rows: np.ndarray) -> np.ndarray:
            known, zero_guarantee, a_cpu, a_mem, deserved_has, over = self._queue_facts(table)
            dims = table.fit.dims
            asked = np.array([d in names for d in dims], dtype=bool)
            q = table.queue[rows]
            req = table.req[:, rows]
            has = req >= MIN_RESOURCE  # ResourceNames, per dimension
            out = (known[q] & (has & asked[:, None]).any(axis=0)  # shares a name with the reclaimer
                   & (a_cpu[q] - req[0] > -MIN_RESOURCE) & (a_mem[q] - req[1] > -MIN_RESOURCE)
                   & (~(has & deserved_has[:, q]).any(axis=0)  # immediate: none of its deserved names
                      | ((req > 0) & over[:, q]).any(axis=0)))  # or above deserved where it asks
            other = (known & ~zero_guarantee)[q]
            if other.any():
                tasks = table.tasks
                picked = rows[other]
                out[other] = [test(tasks[k]) for k in picked.tolist()]
            return out

        return vector

    def _queue_facts(self, table: Any) -> tuple[np.ndarray, ...]:
        """`_victim_facts` as arrays over a VictimTable's queue ids and dimensions (cached until the next
        allocate / deallocate event, or more queue ids; a table's dimensions never change): whether the
        queue has an attribute, whether its guarantee is all zero, its allocated cpu and memory, which
        dimensions its deserved names, and on which it is above its deserved."""
        key = (self.ssn.version, table, len(table.queue_ids))
        got = getattr(self, "_facts_arrays", None)
        if got is not None and got[0] == key:
            return got[1]
        facts = self._victim_facts()
        dims = table.fit.dims
        n = len(table.queue_ids)
        known = np.zeros(n, dtype=bool)
        zero_guarantee = np.zeros(n, dtype=bool)
        a_cpu = np.zeros(n)
        a_mem = np.zeros(n)
        deserved_has = np.zeros((len(dims), n), dtype=bool)
        over = np.zeros((len(dims), n), dtype=bool)
        for name, k in table.queue_ids.items():
            f = facts(name)
            if f is None:
                continue
            attr, deserved_names, zero, cpu_over, mem_over, over_scalars = f
            known[k] = True
            zero_guarantee[k] = zero
            a_cpu[k] = attr.allocated.cpu
            a_mem[k] = attr.allocated.memory
            deserved_has[:, k] = [d in deserved_names for d in dims]
            over[:, k] = [cpu_over, mem_over, *[d in over_scalars for d in dims[2:]]]
        arrays = (known, zero_guarantee, a_cpu, a_mem, deserved_has, over)
        self._facts_arrays = (key, arrays)
        return arrays

    def _victim_facts(self) -> Any:
        """Per queue, as of now (cached until the next allocate / deallocate event): the attribute, the
        names of its deserved, whether its guarantee is all zero, and where its allocation is above its
        deserved as GreaterPartlyWithRelevantDimensions reads it (cpu, memory, scalar names)."""
        version = self.ssn.version
        cache = getattr(self, "_facts_cache", None)
        if cache is None or cache[0] != version:
            cache = self._facts_cache = (version, {})
        table: dict[str, Any] = cache[1]
        attrs = self.attrs

        def facts(queue: str) -> Any:
            got = table.get(queue, False)
            if got is not False:
                return got
            attr = attrs.get(queue)
            if attr is None:
                table[queue] = None
                return None
            d, a, g = attr.deserved, attr.allocated, attr.guarantee
            ds = d.scalars
            over_scalars = frozenset(k for k, v in ds.items() if k != "pods" and (a.scalars or {}).get(k, 0.0) > v) \
                if ds else frozenset()
            got = table[queue] = (attr, frozenset(d.resource_names()), g.cpu == 0 and g.memory == 0 and not g.scalars,
                                  not d.cpu < MIN_RESOURCE and a.cpu > d.cpu,
                                  not d.memory < MIN_RESOURCE and a.memory > d.memory, over_scalars)
            return got

        return facts

    # ---- events --------------------------------------------------------------------------------
    def _on_allocate(self, task: Task) -> None:
        job = self.ssn.jobs.get(task.job)
        attr = self.attrs.get(job.queue) if job is not None else None
        if attr is None:
            return
        attr.allocated.add(task.resreq)
        attr.dirty = True
        update_share(attr)
        if self.hierarchy:
            for anc in attr.ancestors:
                anc.allocated.add(task.resreq)

    def _on_deallocate(self, task: Task) -> None:
        job = self.ssn.jobs.get(task.job)
        attr = self.attrs.get(job.queue) if job is not None else None
        if attr is None:
            return
        attr.allocated.sub(task.resreq)
        attr.dirty = True
        update_share(attr)
        if self.hierarchy:
            for anc in attr.ancestors:
                anc.allocated.sub(task.resreq)

    def on_session_close(self, ssn: Session) -> None:
        queues = ssn.result.queues
        keep = getattr(self, "_keep", None)
        if keep is not None and not queues:  # started from the kept tree: only its busy queues have numbers
            fixed, _, busy = keep
            attrs = self.attrs
            closed = self._closed
            if closed is not None and closed[0] is attrs:
                # The attributes the last session closed with: every queue idle then and now reports the
                # same (read-only) dict again; only the busy ones of either session are asked.
                queues.update(closed[1])
                for name in busy | fixed.busy:
                    attr = attrs[name]
                    queues[name] = attr.summary() if name in busy else attr.idle_summary()
            else:
                for name, attr in attrs.items():
                    queues[name] = attr.summary() if name in busy else attr.idle_summary()
            fixed.closed = (attrs, dict(queues))
            return
        closed = getattr(self, "_flat_closed", None)
        if closed is not None:
            # A kept flat attribute that this session left as it was taken (not dirty) holds the numbers the
            # last session closed with: the same summary (a read-only dict).
            taken = self._flat_taken
            now: dict[str, tuple[QueueAttr, dict[str, Any]]] = {}
            for name, attr in self.attrs.items():
                got = closed.get(name) if name in taken and not attr.dirty else None
                summary = got[1] if got is not None and got[0] is attr else attr.summary()
                now[name] = (attr, summary)
                queues.setdefault(name, summary)  # first queue plugin in tier order
            closed.clear()
            closed.update(now)
            return
        for name, attr in self.attrs.items():
            queues.setdefault(name, attr.summary())  # first queue plugin in tier order

    def release(self) -> None:
        """Session.release: the queue tree's parent and child links are reference cycles; a tree kept
        for the next session (FixedTree.attrs) keeps them."""
        keep = getattr(self, "_keep", None)
        if keep is not None:
            fixed, fixed.specs, fixed.busy = keep
            fixed.attrs = self.attrs
            fixed.order_pairs = self._order_pairs
            return
        for attr in self.attrs.values():
            attr.children = {}
            attr.ancestors = []


def _inherited(spec: QueueSpec, parent: QueueAttr, names: list[str], styles: Any) -> dict[str, str]:
    """The capability dimensions a child took from its parent (checkHierarchicalQueue, capacity.go:1487-1556):
    cpu and memory set to 0 or not at all, and scalars of the parent's capability it does not set."""
    own = spec.capability
    out = {}
    for n in names:
        scalar = n not in ("cpu", "memory")
        if (own is None or (not scalar and value_of(own, n) <= 0)
                or (scalar and n not in (own.scalars or {}) and n in (parent.capability.scalars or {}))):
            v = value_of(parent.capability, n)
            if scalar and n not in (parent.capability.scalars or {}):
                continue
            shown = "no limit" if v >= MAX_FLOAT or (scalar and v >= SCALAR_INFINITY) else amount(n, v, styles)
            out[n] = f"inherited from parent {parent.name}: {shown}"
    return out


def _tree_real_how(attr: QueueAttr, parent: QueueAttr, names: list[str], styles: Any) -> dict[str, str]:
    """How checkHierarchicalQueue set a child's realCapability: max(parent's realCapability - the guarantees of
    the parent's children, 0) + its own guarantee, then its capability where lower (capacity.go:1525-1532)."""
    sum_g = Resource.empty()
    for c in parent.children.values():
        sum_g.add(c.guarantee)
    how = {}
    for n in names:
        p, sg, g = value_of(parent.real_capability, n), value_of(sum_g, n), value_of(attr.guarantee, n)
        unlimited = p >= MAX_FLOAT or (n not in ("cpu", "memory") and p >= SCALAR_INFINITY)
        base = p if unlimited else max(p - sg, 0.0) + g
        real = value_of(attr.real_capability, n)
        if unlimited:
            text = f"parent {parent.name}'s realCapability: no limit"
        elif sg or g:
            text = (f"parent {parent.name}'s realCapability {amount(n, p, styles)} - its children's guarantees "
                    f"{amount(n, sg, styles)} + its own guarantee {amount(n, g, styles)} = {amount(n, base, styles)}")
        else:
            text = f"parent {parent.name}'s realCapability {amount(n, p, styles)}"
        if real < base and real == value_of(attr.capability, n):
            text += f"; clipped by its capability {amount(n, real, styles)}"
        how[n] = text
    return how


def _keys(tasks: list[Task] | None) -> list[str]:
    return [t.key for t in tasks] if tasks else []


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


def _never(t: Task) -> bool:
    return False


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


def _accumulation_exact(jobs: Any) -> bool:
    """Whether building the queue tree adds only integers whose sums stay exact: every request and
    minResources value an integer, and per dimension (cpu, memory, the scalars together) the sum of
    their magnitudes below 2**52. Every value the build adds or subtracts (allocated, request,
    inqueue, elastic, and the partial sums of each in leaves and ancestors) is then an integer no larger
    than that sum, so no operation rounds and the order of the additions cannot change a sum.

    Summed job by job (`_job_accum_facts`): with every value an integer the order of the additions cannot
    move the total across 2**52 (partial sums below 2**53 are exact, and adding magnitudes never lowers a
    rounded sum), so the answer is that of one sum over all the values."""
    return _exact(_leaf_facts(jobs))


def _exact(facts: tuple[bool, float, float, float]) -> bool:
    """`_accumulation_exact` from summed facts (`_leaf_facts`)."""
    integral, cpu, mem, scalars = facts
    return integral and cpu < 2**52 and mem < 2**52 and scalars < 2**52


def _job_accum_facts(job: Job) -> tuple[bool, float, float, float]:
    """Whether every cpu, memory and scalar value of a job's requests and minResources is an integer, and
    the sums of their magnitudes per dimension; kept on the job (Job.accum_facts) while no task is added."""
    got = job.accum_facts
    if got is None:
        got = job.accum_facts = _accum_facts(job)
    return got  # type: ignore[no-any-return]


_NOT_INTEGRAL = (False, 0.0, 0.0, 0.0)


def _accum_facts(job: Job) -> tuple[bool, float, float, float]:
    """(x % 1 is NaN for an infinite or NaN x, so neither is an integer.)"""
    cpu = mem = scalars = 0.0
    reqs = [t.resreq for t in job.tasks.values()]
    if job.min_resources is not None:
        reqs.append(job.min_resources)
    for r in reqs:
        c, m = r.cpu, r.memory
        if not (c % 1 == 0 and m % 1 == 0):
            return _NOT_INTEGRAL
        cpu += abs(c)
        mem += abs(m)
        sc = r.scalars
        if sc:
            for v in sc.values():
                if v % 1 != 0:  # (NaN too)
                    return _NOT_INTEGRAL
                scalars += abs(v)
    return True, cpu, mem, scalars


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
