"""capacity: deserved / capability / guarantee per queue, flat or as a tree.

pkg/scheduler/plugins/capacity/capacity.go at HEAD (spec queue-plugins §2-4). Every rule that says
no also says why through `ssn.trace.because`, with the queue, the level, the dimensions and numbers.
"""

from __future__ import annotations

from typing import Any

from capacity.core.conf import get_int
from capacity.core.model import Job, QueueSpec, Task
from capacity.core.resources import (
    ZERO,
    Resource,
    intersection,
    intersection_with_ignored_scalar_resources,
)
from capacity.core.trace import Reason
from capacity.framework.session import PERMIT, REJECT, EventHandler, Session
from capacity.io.k8s import MAX_TREE_DEPTH
from capacity.plugins.capacity_attrs import (
    ROOT,
    CapacityBase,
    QueueAttr,
    _ancestor_at_depth,
    _reclaimee_ancestor_to_check,
    _relevant,
    _shares_ancestor,
    compare_share,
    deduct_sch_gated,
    enqueue_fits,
    fits_after_adding,
    queue_level,
    update_share,
)
from capacity.plugins.capacity_figures import CapacityFigures, _fmt, _keys, inqueue_jobs, inqueue_words
from capacity.plugins.capacity_tree import CapacityTree
from capacity.plugins.figures import (
    BEST_EFFORT_SHARE,
    amounts,
    requested,
    sums,
    tasks_text,
    totals,
    value_of,
)
from capacity.plugins.older import (
    best_effort_share_words_v113,
    capacity_preemptive_v113,
    capacity_reclaimable_v113,
    leaf_only_enqueue_v111,
    note_unchecked_queue_state,
    whole_inqueue_words_v114,
)

STALE_SHARES_QUIRK = ("ancestor shares are the values at session open: within a cycle Volcano refreshes only the "
                      "leaf's share")
LEAF_ONLY_QUIRK = "reclaim checks only the leaf's realCapability, not its ancestors' (Volcano HEAD)"



class CapacityPlugin(CapacityTree, CapacityFigures, CapacityBase):
    """capacity.go's rules: queue order, allocatable, enqueueable, preemptive, reclaimable, and the events
    that keep the queues' numbers. The build at open is CapacityTree's (capacity_tree.py), the trace's figures
    CapacityFigures' (capacity_figures.py); the accelerated engine's subclass (capacity.accel.plugins:
    AcceleratedCapacityPlugin) adds a memoised queue order, victim bounds and the reuse of an earlier
    session's tree."""


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
        self.best_effort_share = 0.0 if ssn.options.older("pr4865") else 1.0  # capacity.go:L985-993 @v1.13.0
        if self.hierarchy:
            self._build_hierarchical()
        else:
            self._build_flat()
        ssn.add_fn("queueOrder", self.name, self._queue_order)
        if self.hierarchy:
            ssn.add_fn("victimQueueOrder", self.name, self.victim_queue_order)
        ssn.add_fn("reclaimable", self.name, self.reclaimable)
        ssn.add_fn("preemptive", self.name, self.preemptive)
        ssn.add_fn("allocatable", self.name, self.allocatable)
        ssn.add_fn("jobEnqueueable", self.name, self.job_enqueueable)
        ssn.add_fn("jobEnqueued", self.name, self.job_enqueued)
        ssn.add_event_handler(EventHandler(self._on_allocate, self._on_deallocate))
        if self.trace.enabled and self.ready:
            self._file_figures()
        if ssn.options.older("pr4263"):
            note_unchecked_queue_state(self)


    def _queue_order(self, l: QueueSpec, r: QueueSpec) -> int:
        """capacity.go's queue order as written (the reference for `queue_order`)."""
        if l.priority != r.priority:
            return -1 if l.priority > r.priority else 1
        la = self.attrs.get(l.name)
        ra = self.attrs.get(r.name)
        if la is None or ra is None:
            return 0
        if not self.hierarchy:
            return compare_share(la, ra, self.best_effort_share == 1.0)
        lleaf, rleaf = not la.children, not ra.children
        if lleaf != rleaf:
            return -1 if lleaf else 1
        if not lleaf:
            return compare_share(la, ra, self.best_effort_share == 1.0)
        level = queue_level(la, ra)
        lq = la.ancestors[level + 1] if level + 1 < len(la.ancestors) else la
        rq = ra.ancestors[level + 1] if level + 1 < len(ra.ancestors) else ra
        return compare_share(lq, rq, self.best_effort_share == 1.0)

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
            if self.best_effort_share != 1.0:
                out["shareNote"] = best_effort_share_words_v113(self)
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
                    under = {x.name for x in self.attrs.values() if x is a or a in x.ancestors}
                    whole = self.ssn.options.older("pr5130")  # capacity.go:L467-471 @v1.14.0
                    held = inqueue_jobs(self, under, whole) if any(value_of(a.inqueue, n) for n in failed) else []
                    said = whole_inqueue_words_v114(self, held, failed) if whole else None
                    words, older = said if said is not None else (inqueue_words(held), {})
                    self.trace.because(
                        self.name, "enqueueRealCapability",
                        f"queue resource quota insufficient: minResources + allocated + inqueue - elastic "
                        f"exceeds the realCapability of {a.path()} on {', '.join(failed)}: " + sums(
                            [("", min_req), ("+", a.allocated), ("+", a.inqueue), ("-", a.elastic)],
                            a.real_capability, failed, ">", self.styles) + words, **older,
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
        trace = self.trace
        paths = [x.path() for x in path]
        for i, a in enumerate(path):
            # The numbers are taken now (allocated and inqueue change later in the session); the sentence is
            # made from them when first read (Trace.because_made): most of these reasons are never read.
            real = a.real_capability
            dims = self._limited_dims(asked, real)
            terms = [("", min_req), ("+", a.allocated), ("+", a.inqueue), ("-", a.elastic)]
            nums = [_fmt(r, dims) for _, r in terms]
            limit = _fmt(real, dims)
            level = paths[i]
            no_dims = ("no limit (capability unset" + (" here and above" if a.ancestors else "") + ")" if asked
                       else "it asks for nothing")
            head = ("minResources + allocated + inqueue - elastic fit the realCapability at every level: "
                    if i == 0 else "")
            levels: dict[str, Any] = {"levels": paths.copy()} if i == 0 else {}
            trace.because_made(self.name, "enqueueRealCapability", self._enqueue_fit_text,
                               (head, level, dims, nums, limit, no_dims, self.styles), queue=a.name,
                               level=level, dimensions=dims, minResources=nums[0], allocated=nums[1],
                               inqueue=nums[2], elastic=nums[3], realCapability=limit,
                               **totals(terms, real, dims, "<="), **levels)

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


    # ---- events --------------------------------------------------------------------------------
    def _on_allocate(self, task: Task) -> None:
        job = self.ssn.jobs.get(task.job)
        attr = self.attrs.get(job.queue) if job is not None else None
        if attr is None:
            return
        attr.allocated.add(task.resreq)
        attr.dirty = True
        update_share(attr, self.best_effort_share)
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
        update_share(attr, self.best_effort_share)
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


