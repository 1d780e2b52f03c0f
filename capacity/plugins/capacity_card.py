"""capacity-card: per-queue quotas in accelerator card types, and seed 001's tidal reclaim policy.

The seed author's fork plugin, not upstream Volcano (spec actions-framework §13, §14.3; card names in
`capacity.core.cards`, service types in `capacity.core.service_type`). What it registers and decides:

* **Queue attributes.** `capability` = the queue's `spec.capability` cpu/memory (0 when unset: a cpu
  request is then refused) with its scalars *replaced* by the card quotas of `volcano.sh/card.quota`
  (a card type missing there has quota 0; `nvidia.com/gpu` in spec.capability is not used). `allocated`,
  `inqueue` and `elastic` are kept in the same units: cpu, memory and card names, never `pods`.
* **A task's request** (GetTaskRequestResources): the card named by the pod annotation
  `volcano.sh/card.name`, counted from the pod's request of that card's Kubernetes resource (whole units
  x 1000), plus the pod's cpu and memory. A multi-card name `A|B` counts, before placement, the amount of
  A under the name `A|B`; once the task has a node, under the first of A, B that node offers.
* **A job's minimum** (GetMinResources): the sum of its pods' card requests if any pod names a card,
  else the PodGroup annotation `volcano.sh/card.request`, plus minResources' cpu and memory.
* **JobEnqueueable** (job mode): `request + allocated + inqueue - elastic <= capability`, cpu and memory
  each only if requested, every card strictly (`A|B: n` sums A's and B's usage and quota). A Permit adds
  the minimum to the queue's inqueue at once, as the Go code does. Note that Volcano's enqueue skips the
  vote for PodGroups without minResources, so `card.request` is only checked for PodGroups that have one.
* **Allocatable** and **Preemptive** (task mode): `allocated + request <= capability`, a multi-card
  request passing if any single card type fits. Preemptive also needs the queue Open (seed §PreemptiveFn).
* **Reclaimable**: the seed's service-type policy (table in `capacity.core.service_type`), vote Permit. It
  does not look at quotas: a training queue below its own quota is still reclaimable (§13.3 item 5).
* **QueueOrder**: higher `spec.priority` first, then the smaller share (max allocated/deserved).
* **NodeOrder**: for a multi-card pod, `100 x 0.5^i x nodeOrderWeight` for the first card type (index i)
  the node offers; 0 otherwise.
* **Session close** reports each queue for the simulate output: its `realCapability` there is the limit
  this plugin enforces (the capability with the card quotas), `cardQuota` the parsed annotation.

Arguments (as in the seed's scheduler configuration):

* `cardUnlimitedCpuMemory` (YAML bool, default false): a task or job that requests a card is not
  checked against the queue's cpu and memory. Implemented where the plugin source puts it, in
  GetTaskRequestResources / GetMinResources, which leave cpu and memory out of a card request. It
  therefore holds for JobEnqueueable, Allocatable, Preemptive and the queue's allocated/inqueue
  accounting alike. The seed's sample PreemptiveFn reads like it checks cpu/memory anyway; the Capacity
  Lab argument `capacitylab.preemptiveChecksCardCpuMemory: true` switches to that literal reading.
* `overCommitFactor` (a YAML number >= 1; absent = no such check). No capacity-card source defines it;
  Capacity Lab gives it the overcommit plugin's meaning, on the plugin's own accounting: at
  JobEnqueueable, after the queue check, `Σ allocated + Σ inqueue (all queues) + request <= factor x
  cluster total` on each dimension of the job's minimum (each card type, summed over `A|B`; cpu and
  memory only if the minimum has them). The cluster total is the nodes' allocatable cpu/memory and the
  discovered card counts. Wrong types and values below 1 are ignored with a note.
* `podOwnerReferenceToServiceType`: owner kind -> service type, the fallback of `capacity.core.service_type`.
* `nodeOrderWeight` (number > 0, default 1).
* `capacitylab.unknownReclaimerReclaims` (bool, default true = the seed's code): may a reclaimer of
  unknown service type evict training tasks.
"""

from __future__ import annotations

import math
from typing import Any

from capacity.core import cards as C
from capacity.core import service_type as st
from capacity.core.conf import get_bool, yaml_number
from capacity.core.model import ALLOCATED_STATUSES, Job, PodGroupPhase, QueueSpec, Task, TaskStatus
from capacity.core.quantity import format_resource_value, format_resources
from capacity.core.resources import INFINITY, Resource, exceeded_part, res_max, share, to_dict
from capacity.framework.session import PERMIT, REJECT, EventHandler, Session
from capacity.plugins.base import Plugin
from capacity.plugins.capacity_attrs import deduct_sch_gated, reserve_scalar

ARG_UNLIMITED = "cardUnlimitedCpuMemory"
ARG_OVERCOMMIT = "overCommitFactor"
ARG_NODE_ORDER_WEIGHT = "nodeOrderWeight"
ARG_UNKNOWN_RECLAIMER = "capacitylab.unknownReclaimerReclaims"
ARG_PREEMPTIVE_CPU_MEMORY = "capacitylab.preemptiveChecksCardCpuMemory"
JOB_MODE = "job"
TASK_MODE = "task"
PREEMPTABLE_KEY = "volcano.sh/preemptable"
PREEMPTABLE_TRAP = ("its PodGroup says volcano.sh/preemptable=false but the pod itself has no such key, so it "
                    "counts as preemptable: reclaim reads only the pod (trap: the key was set on the workload's "
                    "own metadata, which reaches the PodGroup but never the pods; put it on the pod template)")


class CardQueue:
    """capacity-card's queueAttr, every amount in cpu, memory and card names."""

    __slots__ = ("name", "queue", "quota", "capability", "deserved", "guarantee", "real_capability",
                 "allocated", "request", "inqueue", "elastic", "share")

    def __init__(self, queue: QueueSpec, quota: dict[str, float]) -> None:
        self.name = queue.name
        self.queue = queue
        self.quota = quota
        self.capability = queue_resource(queue.capability, quota)
        self.deserved = queue_resource(queue.deserved, quota)
        self.guarantee = queue_resource(queue.guarantee, quota)
        self.real_capability = Resource.empty()
        self.allocated = Resource.empty()
        self.request = Resource.empty()
        self.inqueue = Resource.empty()
        self.elastic = Resource.empty()
        self.share = 0.0

    def update_share(self) -> None:
        """updateQueueAttrShare: max allocated/deserved over deserved's dimensions (no best-effort rule)."""
        res = 0.0
        for n in self.deserved.resource_names():
            res = max(res, share(self.allocated.get(n), self.deserved.get(n)))
        self.share = res

    def summary(self) -> dict[str, Any]:
        return {"share": self.share, "deserved": to_dict(self.deserved), "allocated": to_dict(self.allocated),
                "realCapability": to_dict(self.capability), "capability": to_dict(self.capability),
                "cardQuota": dict(self.quota), "inqueue": to_dict(self.inqueue),
                "elastic": to_dict(self.elastic), "request": to_dict(self.request),
                "guarantee": to_dict(self.guarantee), "parent": ""}


def queue_resource(spec: Resource | None, quota: dict[str, float]) -> Resource:
    """newQueueResourceSupportingCard: cpu/memory of the spec field, scalars replaced by the card quota."""
    r = Resource(spec.cpu if spec is not None else 0.0, spec.memory if spec is not None else 0.0)
    r.scalars = dict(quota)
    return r


class CardCheck:
    """The outcome of one quota check: ok, and when not, the dimension and the numbers."""

    __slots__ = ("ok", "name", "request", "used", "limit")

    def __init__(self, ok: bool, name: str = "", request: float = 0.0, used: float = 0.0, limit: float = 0.0):
        self.ok = ok
        self.name = name
        self.request = request
        self.used = used
        self.limit = limit

    def text(self) -> str:
        name, fmt = self.name, format_resource_value
        return f"{name} {fmt(name, self.used)} > {fmt(name, self.limit)} (request {fmt(name, self.request)})"


def check_single_scalar(name: str, quant: float, to_be_used: Resource, capability: Resource, mode: str) -> CardCheck:
    """CheckSingleScalarResource: job mode sums a multi-card quota, task mode needs one card type to fit."""
    if C.MULTI_CARD_SEPARATOR in name:
        names = C.split(name)
        if mode == JOB_MODE:
            avail = sum(capability.get(n) for n in names)
            used = sum(to_be_used.get(n) for n in names) + quant
            return CardCheck(not (quant > 0 and used > avail), name, quant, used, avail)
        multi = to_be_used.clone()
        last = CardCheck(False, name, quant)
        for n in names:
            multi.add_scalar(n, quant)
            last = check_single_scalar(n, quant, multi, capability, mode)
            if last.ok:
                return last
        return CardCheck(False, name, quant, last.used, last.limit)
    used, avail = to_be_used.get(name), capability.get(name)
    return CardCheck(not (quant > 0 and used > avail), name, quant, used, avail)


def check_quota(capability: Resource, total: Resource, req: Resource, mode: str) -> CardCheck:
    """isJobEnqueueable / isTaskAllocatable / canPreemptive: cpu, memory (if requested), then every card."""
    if req.cpu > 0 and total.cpu > capability.cpu:
        return CardCheck(False, "cpu", req.cpu, total.cpu, capability.cpu)
    if req.memory > 0 and total.memory > capability.memory:
        return CardCheck(False, "memory", req.memory, total.memory, capability.memory)
    if total.scalars is None:
        return CardCheck(True)
    for name, quant in (req.scalars or {}).items():
        if name == "pods":
            continue
        res = check_single_scalar(name, quant, total, capability, mode)
        if not res.ok:
            return res
    return CardCheck(True)


class CapacityCardPlugin(Plugin):
    name = "capacity-card"

    # ---- session open ------------------------------------------------------------------------
    def on_session_open(self, ssn: Session) -> None:
        self.ssn = ssn
        self.trace = ssn.trace
        self._read_arguments()
        self.node_cards: dict[str, C.NodeCards] = {}
        self.card_to_resource: dict[str, str] = {}
        self.total = Resource.empty()
        self._charged: dict[str, Resource] = {}
        self._build_total()
        self.attrs: dict[str, CardQueue] = {}
        self._build_queues()
        self._flag_traps()
        ssn.add_fn("jobEnqueueable", self.name, self.job_enqueueable)
        ssn.add_fn("allocatable", self.name, self.allocatable)
        ssn.add_fn("preemptive", self.name, self.preemptive)
        ssn.add_fn("reclaimable", self.name, self.reclaimable)
        ssn.add_fn("queueOrder", self.name, self.queue_order)
        ssn.add_fn("nodeOrder", self.name, self.node_order)
        ssn.add_event_handler(EventHandler(self._on_allocate, self._on_deallocate))

    def _note(self, subject: str, text: str) -> None:
        self.ssn.notes.append(f"{self.name}: {text}")
        self.trace.event("pluginNote", subject, text, plugin=self.name)

    def _read_arguments(self) -> None:
        args = self.args
        raw = args.get(ARG_UNLIMITED)
        self.unlimited = raw if isinstance(raw, bool) else False
        if raw is not None and not isinstance(raw, bool):
            self._note(self.name, f"{ARG_UNLIMITED} must be a YAML boolean, got {raw!r}; the plugin reads false")
        w = args.get(ARG_NODE_ORDER_WEIGHT)
        wn = yaml_number(w)
        self.node_order_weight = wn if wn is not None and wn > 0 else 1.0
        if w is not None and self.node_order_weight != w:
            self._note(self.name, f"{ARG_NODE_ORDER_WEIGHT} must be a positive number, got {w!r}; using 1")
        f = args.get(ARG_OVERCOMMIT)
        self.overcommit: float | None = None
        if f is not None:
            fn = yaml_number(f)
            if fn is None or fn < 1:
                self._note(self.name, f"{ARG_OVERCOMMIT} must be a number >= 1, got {str(f)[:40]!r}; no cluster "
                                      "over-commit check")
            else:
                self.overcommit = fn
        self.owner_map, problem = st.parse_owner_map(args.get(st.OWNER_MAP_ARG))
        if problem:
            self._note(self.name, problem)
        self.unknown_reclaims = get_bool(args, ARG_UNKNOWN_RECLAIMER, True)
        self.preemptive_cpu_memory = get_bool(args, ARG_PREEMPTIVE_CPU_MEMORY, False)

    def _build_total(self) -> None:
        """buildTotalResource: cpu/memory of every node plus the card types they offer."""
        for node in self.ssn.node_list:
            nc = C.discover(node.name, node.labels, node.allocatable)
            self.node_cards[node.name] = nc
            for problem in nc.problems:
                self._note(f"Node/{node.name}", problem)
            self.total.cpu += node.allocatable.cpu
            self.total.memory += node.allocatable.memory
            for card, (res, amount) in nc.cards.items():
                self.card_to_resource[card] = res
                self.total.add_scalar(card, amount)

    def _build_queues(self) -> None:
        ssn = self.ssn
        quotas: dict[str, dict[str, float]] = {}
        total_guarantee = Resource.empty()
        for name in sorted(ssn.queues):
            q = ssn.queues[name]
            quota, problem = C.parse_card_json(q.annotations.get(C.QUOTA_KEY))
            if problem:
                self._note(f"Queue/{name}", f"annotation {C.QUOTA_KEY} {problem}")
            quotas[name] = quota
            total_guarantee.add(queue_resource(q.guarantee, quota))
        for job in ssn.jobs.values():
            attr = self.attrs.get(job.queue)
            if attr is None:
                q = ssn.queues[job.queue]
                attr = CardQueue(q, quotas.get(q.name, {}))
                attr.real_capability = exceeded_part(self.total, total_guarantee).add(attr.guarantee)
                self.attrs[q.name] = attr
            self._accumulate(attr, job)
        for attr in self.attrs.values():
            attr.deserved.min_dimension_resource(attr.real_capability, INFINITY)
            attr.deserved = res_max(attr.deserved, attr.guarantee)
            attr.update_share()

    def _accumulate(self, attr: CardQueue, job: Job) -> None:
        """buildQueueAttrByJob: allocated, request, inqueue and elastic of one job."""
        for status, bucket in job.index.items():
            for t in bucket.values():
                req, err = self.task_request(t)
                if err:
                    continue
                if status & ALLOCATED_STATUSES:
                    attr.allocated.add(req)
                    attr.request.add(req)
                elif status == TaskStatus.PENDING:
                    attr.request.add(req)
        min_req, allocated = self.job_minimum(job)
        if job.phase == PodGroupPhase.INQUEUE:
            attr.inqueue.add(deduct_sch_gated(job, min_req))
        if (job.phase == PodGroupPhase.RUNNING and job.min_resources is not None
                and sum(len(b) for s, b in job.index.items() if s & ALLOCATED_STATUSES) >= job.min_available):
            attr.inqueue.add(deduct_sch_gated(job, _inqueue_part(min_req, allocated)))
        attr.elastic.add(exceeded_part(allocated, min_req))

    def _flag_traps(self) -> None:
        """Say up front, in the trace, when the configuration sidesteps the seed's policy (spec §13.3)."""
        conf = self.ssn.conf
        mine = [ti for ti, tier in enumerate(conf.tiers) for o in tier if o.name == self.name]
        if not mine:
            return
        my_tier = mine[0]
        for ti, tier in enumerate(conf.tiers[:my_tier]):
            for opt in tier:
                if opt.name in ("gang", "conformance") and opt.enabled("reclaimable"):
                    self._note("reclaimable", f"{opt.name} in tier {ti + 1} has enableReclaimable on: whenever it "
                               "returns victims, reclaim takes them without asking capacity-card, so the service-type "
                               "policy (training never reclaims, inference is never a victim) is bypassed; the seed "
                               "sets enableReclaimable: false on gang and conformance")
        if "gangreclaim" in conf.actions:
            self._note("gangreclaim", "gangreclaim picks victims through UnifiedEvictable, which capacity-card does "
                       "not register: the service-type policy does not apply there (spec §13.3 item 8)")
        gang_decides = False
        for tier in conf.tiers:
            deciders = [o.name for o in tier if o.name in ("priority", "gang", "tdm") and o.enabled("jobStarving")]
            if deciders:
                gang_decides = "gang" in deciders
                break
        if not gang_decides or not ({"reclaim", "preempt"} & set(conf.actions)):
            return
        for job in self.ssn.jobs.values():
            if job.is_pending() or not job.tasks_in(TaskStatus.PENDING):
                continue
            if job.ready_task_num() + job.waiting_task_num() < job.min_available:
                continue
            kind = self._job_service_type(job)
            if kind.kind != st.INFERENCE:
                continue
            self._note(job.uid, f"inference job {job.uid} has pending pods but {job.ready_task_num()} ready >= "
                       f"minMember {job.min_available}: gang says it is not starving, so reclaim never acts for its "
                       "extra replicas (trap: JobStarving with gang; set enableJobStarving: false on gang, or "
                       "scheduling.volcano.sh/group-min-member on the workload)")

    # ---- requests ------------------------------------------------------------------------------
    def _card_from_pod(self, card: str, task: Task) -> tuple[Resource | None, str]:
        res = self.card_to_resource.get(card)
        if res is None:
            return None, f"no node offers card type {card!r} (no node label */*.product with that value)"
        scalars = task.resreq.scalars or {}
        if res not in scalars:
            return None, f"the pod requests no {res} for card {card!r}"
        return C.card_resource({card: C.whole_units(scalars[res])}), ""

    def has_card(self, card_res: Resource, scalar_res: Resource | None) -> bool:
        """HasCardResource: a card request, or a scalar that is some card type's Kubernetes resource."""
        if card_res.scalars:
            return True
        if scalar_res is None or not scalar_res.scalars:
            return False
        return any(r in scalar_res.scalars for r in self.card_to_resource.values())

    def task_request(self, task: Task, cpu_memory: bool = False) -> tuple[Resource, str]:
        """GetTaskRequestResources: the card (by annotation) plus cpu/memory, in the plugin's units."""
        name = task.spec.annotations.get(C.CARD_NAME_KEY, "")
        if not name:
            card = Resource.empty()
        elif C.MULTI_CARD_SEPARATOR in name:
            names = C.split(name)
            if not task.node_name:
                first, err = self._card_from_pod(names[0], task)
                if first is None:
                    return Resource.empty(), err
                card = C.card_resource({name: first.get(names[0])})
            else:
                offered = self.node_cards.get(task.node_name)
                found: Resource | None = None
                for single in names:
                    if offered is not None and single in offered.cards:
                        found, _ = self._card_from_pod(single, task)
                        if found is not None:
                            break
                if found is None:
                    return Resource.empty(), f"node {task.node_name} offers none of the card types {name!r}"
                card = found
        else:
            single_card, err = self._card_from_pod(name, task)
            if single_card is None:
                return Resource.empty(), err
            card = single_card
        if cpu_memory or not (self.unlimited and self.has_card(card, task.resreq)):
            card.cpu = task.resreq.cpu
            card.memory = task.resreq.memory
        return card, ""

    def job_minimum(self, job: Job) -> tuple[Resource, Resource]:
        """NewJobInfo + GetMinResources: (the job's minimum, what its allocated tasks hold), plugin units."""
        pre, _ = C.parse_card_json(job.annotations.get(C.REQUEST_KEY))
        allocated = Resource.empty()
        request = Resource.empty()
        for t in job.tasks.values():
            req, err = self.task_request(t)
            if err:
                continue
            request.add(req)
            if t.status & ALLOCATED_STATUSES:
                allocated.add(req)
        cards = dict(request.scalars) if request.scalars else pre
        out = C.card_resource(cards)
        min_res = job.min_resources if job.min_resources is not None else Resource.empty()
        if not (self.unlimited and self.has_card(out, min_res)):
            out.cpu = min_res.cpu
            out.memory = min_res.memory
        return out, allocated

    def service_type(self, task: Task) -> st.ServiceType:
        job = self.ssn.jobs.get(task.job)
        return st.resolve(job.annotations if job is not None else None, task.spec.owner_kind, self.owner_map)

    def _job_service_type(self, job: Job) -> st.ServiceType:
        owner = next((t.spec.owner_kind for t in job.tasks.values()), "")
        return st.resolve(job.annotations, owner, self.owner_map)

    # ---- extension points ------------------------------------------------------------------------
    def queue_order(self, l: QueueSpec, r: QueueSpec) -> int:  # noqa: E741
        if l.priority != r.priority:
            return -1 if l.priority > r.priority else 1
        la, ra = self.attrs.get(l.name), self.attrs.get(r.name)
        if la is None or ra is None or la.share == ra.share:
            return 0
        return -1 if la.share < ra.share else 1

    def describe_queue(self, queue: QueueSpec) -> dict[str, Any]:
        attr = self.attrs.get(queue.name)
        return {} if attr is None else {"share": attr.share, "queuePriority": queue.priority}

    def job_enqueueable(self, job: Job) -> int:
        queue = self.ssn.queues[job.queue]
        trace = self.trace
        if not queue.is_open():
            trace.because(self.name, "queueState", f"queue {queue.name} is {queue.state or 'not Open'} (state must "
                          "be Open)", queue=queue.name)
            return REJECT
        attr = self.attrs[job.queue]
        req, _ = self.job_minimum(job)
        total = req.clone().add(attr.allocated).add(attr.inqueue).sub_without_assert(attr.elastic)
        res = check_quota(attr.capability, total, req, JOB_MODE)
        if not res.ok:
            if trace.enabled:
                trace.because(self.name, _rule(res.name, "enqueue"),
                              f"queue {queue.name} has insufficient {_what(res.name)} for job {job.uid}: request + "
                              f"allocated + inqueue - elastic exceeds the queue's {_limit(res.name)}: {res.text()}",
                              queue=queue.name, dimension=res.name, request=res.request, used=res.used,
                              limit=res.limit)
            return REJECT
        if self.overcommit is not None:
            over = self._cluster_check(req)
            if not over.ok:
                if trace.enabled:
                    trace.because(self.name, "overCommitFactor",
                                  f"cluster over-committed for job {job.uid}: all queues' allocated + inqueue + its "
                                  f"request exceed overCommitFactor {self.overcommit:g} x the cluster's total on "
                                  f"{over.text()}", dimension=over.name, used=over.used, limit=over.limit)
                return REJECT
        attr.inqueue.add(deduct_sch_gated(job, req))
        if trace.enabled:
            trace.because(self.name, "enqueueCardQuota", f"job {job.uid} fits queue {queue.name}'s quota: "
                          f"{_describe(req) or 'nothing'} requested (request + allocated + inqueue - elastic within "
                          "the card quota" + ("" if self.unlimited else " and capability") + ")",
                          queue=queue.name, request=to_dict(req))
        return PERMIT

    def _cluster_check(self, req: Resource) -> CardCheck:
        used = Resource.empty()
        for attr in self.attrs.values():
            used.add(attr.allocated).add(attr.inqueue)
        limit = self.total.clone().multi(self.overcommit or 1.0)
        total = used.clone().add(req)
        res = check_quota(limit, total, req, JOB_MODE)
        return res

    def allocatable(self, queue: QueueSpec, task: Task) -> bool:
        return self._task_check("allocate", queue, [task])

    def preemptive(self, queue: QueueSpec, tasks: list[Task]) -> bool:
        return self._task_check("reclaimer", queue, tasks)

    def _task_check(self, what: str, queue: QueueSpec, tasks: list[Task]) -> bool:
        trace = self.trace
        subject = tasks[0].key if len(tasks) == 1 else f"{len(tasks)} tasks"
        if not queue.is_open():
            trace.because(self.name, "queueState", f"queue {queue.name} is {queue.state or 'not Open'} (state must "
                          "be Open)", queue=queue.name)
            return False
        attr = self.attrs.get(queue.name)
        if attr is None:
            trace.because(self.name, "noQueue", f"queue {queue.name} holds no job this session", queue=queue.name)
            return False
        req = Resource.empty()
        for t in tasks:
            r, err = self.task_request(t, cpu_memory=what == "reclaimer" and self.preemptive_cpu_memory)
            if err:
                trace.because(self.name, "cardRequest", f"cannot read the card request of {t.key}: {err}",
                              task=t.key)
                return False
            req.add(r)
        total = attr.allocated.clone().add(req)
        res = check_quota(attr.capability, total, req, TASK_MODE)
        if not res.ok:
            if trace.enabled:
                trace.because(self.name, _rule(res.name, what),
                              f"queue {queue.name} has insufficient {_what(res.name)} for {subject}: allocated + "
                              f"request exceeds the queue's {_limit(res.name)}: {res.text()}",
                              queue=queue.name, dimension=res.name, request=res.request, used=res.used,
                              limit=res.limit)
            return False
        if trace.enabled:
            label = "may reclaim: " if what == "reclaimer" else ""
            trace.because(self.name, _rule("", what),
                          f"{label}queue {queue.name} stays within its quota with {subject}: "
                          f"{_describe(req) or 'nothing counted'} on top of {_describe(attr.allocated) or 'nothing'}",
                          queue=queue.name, request=to_dict(req), allocated=to_dict(attr.allocated))
        return True

    def reclaimable(self, reclaimer: Task, reclaimees: list[Task]) -> tuple[list[Task], int]:
        """The seed's ReclaimableFn: training never reclaims; inference and unknown are never victims."""
        trace = self.trace
        rtype = self.service_type(reclaimer)
        blocked = st.reclaimer_verdict(rtype.kind, self.unknown_reclaims)
        if blocked is not None:
            if trace.enabled:
                for t in reclaimees:
                    trace.because(self.name, blocked.rule, f"{t.key} kept: {reclaimer.key} is "
                                  f"{rtype.describe()}; {blocked.why}", task=t.key, reclaimer=rtype.kind)
            return [], PERMIT
        victims: list[Task] = []
        for t in reclaimees:
            vtype = self.service_type(t)
            verdict = st.may_reclaim(rtype.kind, vtype.kind, self.unknown_reclaims)
            if not verdict.allowed:
                if trace.enabled:
                    trace.because(self.name, verdict.rule, f"{t.key} kept: it is {vtype.describe()}; {verdict.why}",
                                  task=t.key, reclaimee=vtype.kind, reclaimer=rtype.kind)
                continue
            victims.append(t)
            if trace.enabled:
                extra = self._victim_notes(t)
                trace.because(self.name, verdict.rule, f"{t.key} may go: it is {vtype.describe()} and "
                              f"{reclaimer.key} is {rtype.describe()}; {verdict.why}" + extra,
                              quirk=verdict.quirk, task=t.key, reclaimee=vtype.kind, reclaimer=rtype.kind)
        return victims, PERMIT

    def _victim_notes(self, t: Task) -> str:
        job = self.ssn.jobs.get(t.job)
        if job is None:
            return ""
        out = ""
        ready = job.ready_task_num()
        if job.min_available > 1 and ready - 1 < job.min_available:
            out += (f" (evicting it leaves job {job.uid} with {ready - 1} of minAvailable {job.min_available} "
                    "running: only the job's PodEvicted policy, AbortJob or RestartJob, keeps the gang whole)")
        own = t.spec.annotations.get(PREEMPTABLE_KEY, t.spec.labels.get(PREEMPTABLE_KEY))
        if own is None and job.has_preemptable_key and not job.preemptable:
            out += f"; {PREEMPTABLE_TRAP}"
        return out

    def node_order(self, task: Task, node: Any) -> float:
        name = task.spec.annotations.get(C.CARD_NAME_KEY, "")
        if C.MULTI_CARD_SEPARATOR not in name:
            return 0.0
        offered = self.node_cards.get(node.name)
        if offered is None:
            return 0.0
        for i, card in enumerate(C.split(name)):
            if card in offered.cards:
                return 100.0 * math.pow(0.5, i) * self.node_order_weight
        return 0.0

    # ---- events --------------------------------------------------------------------------------
    def _on_allocate(self, task: Task) -> None:
        job = self.ssn.jobs.get(task.job)
        attr = self.attrs.get(job.queue) if job is not None else None
        if attr is None:
            return
        req, err = self.task_request(task)
        if err:
            return
        self._charged[task.uid] = req
        attr.allocated.add(req)
        attr.update_share()

    def _on_deallocate(self, task: Task) -> None:
        job = self.ssn.jobs.get(task.job)
        attr = self.attrs.get(job.queue) if job is not None else None
        if attr is None:
            return
        req = self._charged.pop(task.uid, None)
        if req is None:
            req, err = self.task_request(task)
            if err:
                return
        attr.allocated.sub_without_assert(req)
        attr.update_share()

    def on_session_close(self, ssn: Session) -> None:
        for name, attr in self.attrs.items():
            ssn.result.queues.setdefault(name, attr.summary())


def _inqueue_part(min_req: Resource, allocated: Resource) -> Resource:
    """capacity-card's GetInqueueResource: what a running job's minimum still holds in reserve."""
    out = Resource.empty()
    if min_req.cpu - allocated.cpu > 0:
        out.cpu = min_req.cpu - allocated.cpu
    if min_req.memory - allocated.memory > 0:
        out.memory = min_req.memory - allocated.memory
    for name, q in (min_req.scalars or {}).items():
        reserve_scalar(out, name, q, allocated)
    return out


def _rule(dimension: str, what: str) -> str:
    """Rule ids: enqueueCardQuota, allocateCpuQuota, reclaimerCardQuota, ... ("" = the passing rule)."""
    kind = {"cpu": "CpuQuota", "memory": "MemoryQuota"}.get(dimension, "CardQuota")
    return f"{what}{kind}"


def _what(dimension: str) -> str:
    return {"cpu": "cpu quota", "memory": "memory quota"}.get(dimension, f"card quota for {dimension}")


def _limit(dimension: str) -> str:
    return "capability" if dimension in ("cpu", "memory") else "volcano.sh/card.quota"


def _describe(r: Resource) -> str:
    """The dimensions r has (> 0, pods left out); cards as card counts (milli-units, as every scalar)."""
    values = {"cpu": r.cpu, "memory": r.memory, **(r.scalars or {})}
    return format_resources({k: v for k, v in values.items() if k != "pods" and v > 0}, empty="")
