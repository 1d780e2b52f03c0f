"""proportion: weight-based deserved shares for flat queues, computed by water-filling.

pkg/scheduler/plugins/proportion/proportion.go at HEAD (spec queue-plugins §5, actions-framework §9.6).
Ignores `spec.deserved` and `spec.parent`. Attributes exist only for queues that have jobs; `deserved`
is handed out round by round in proportion to `spec.weight`, capped by realCapability and by what the
queue requests, raised to its guarantee. Unlike capacity, Allocatable checks against **deserved** and an
empty deserved gives share 0 (no best-effort rule, trap 11).
"""

from __future__ import annotations

from typing import Any

from capacity.core.model import Job, QueueSpec, Task
from capacity.core.resources import (
    INFINITY,
    ZERO,
    Resource,
    exceeded_part,
    res_max,
    share,
    to_dict,
)
from capacity.framework.session import PERMIT, REJECT, EventHandler, Session
from capacity.plugins.base import Plugin
from capacity.plugins.capacity_attrs import QueueAttr, build_flat_attrs, deduct_sch_gated, flat_limits, sum_guarantees
from capacity.plugins.capacity_figures import flat_real_how, guarantors, inqueue_jobs, inqueue_words
from capacity.plugins.figures import (
    amounts,
    capability_text,
    figure_values,
    figures,
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
    note_unchecked_queue_state,
    proportion_inqueue_v114,
    proportion_reclaim_less_partly,
    res_max_v112,
)

# capacity.py's buildQueueAttrs step 3 (allocated, request, inqueue with the Inqueue/Running rules,
# elastic); proportion.go:135-176 accumulates exactly the same way. The method reads nothing from
# `self`, so it is reused as a plain function.


class ProportionAttr(QueueAttr):
    """proportion.go's queueAttr: capacity's fields plus the queue weight."""

    __slots__ = ("weight",)

    def __init__(self, queue: QueueSpec) -> None:
        super().__init__(queue)
        self.deserved = Resource.empty()  # proportion ignores spec.deserved
        self.weight = queue.weight

    def clone(self) -> ProportionAttr:
        c = ProportionAttr.__new__(ProportionAttr)
        for slot in ("name", "queue", "share", "weight", "ancestors", "children"):
            setattr(c, slot, getattr(self, slot))
        for slot in ("deserved", "allocated", "request", "elastic", "inqueue", "capability",
                     "real_capability", "guarantee"):
            setattr(c, slot, getattr(self, slot).clone())
        return c


def semantic_equal(a: Resource, b: Resource) -> bool:
    """Kubernetes `equality.Semantic.DeepEqual` on two Resources: exact float equality of every field,
    MaxTaskNum included; a nil scalar map equals an empty one, but `{gpu: 0}` differs from `{}`."""
    return (a.cpu == b.cpu and a.memory == b.memory and a.max_task_num == b.max_task_num
            and (a.scalars or {}) == (b.scalars or {}))


def update_share(attr: QueueAttr) -> None:
    """updateQueueAttrShare (proportion.go:609-621): max allocated/deserved over deserved's names
    (pods included). No best-effort rule: an empty deserved gives share 0."""
    res = 0.0
    d = attr.deserved
    a = attr.allocated
    for n in d.resource_names():
        s = share(a.get(n), d.get(n))
        if s > res:
            res = s
    attr.share = res


def _dims(r: Resource, names: list[str]) -> dict[str, float]:
    return {n: r.get(n) for n in names}


def _res(d: dict[str, float]) -> Resource:
    """A Resource from a to_dict-style mapping (for rendering a recorded figure)."""
    r = Resource(float(d.get("cpu", 0.0)), float(d.get("memory", 0.0)), None)
    for k, v in d.items():
        if k not in ("cpu", "memory"):
            r.set_scalar(k, float(v))
    return r


class ProportionPlugin(Plugin):
    name = "proportion"

    def on_session_open(self, ssn: Session) -> None:
        self.ssn = ssn
        self.trace = ssn.trace
        self.attrs: dict[str, ProportionAttr] = {}
        self.rounds: list[dict[str, Any]] = []
        self.total = Resource.empty().add(ssn.total_resource)
        self.styles = getattr(ssn.cluster, "unit_styles", None)  # the input's units, for reasons
        self._build_attrs()
        self._compute_deserved()
        if self.trace.enabled:
            self._file_figures()
        ssn.add_fn("queueOrder", self.name, self.queue_order)
        ssn.add_fn("reclaimable", self.name, self.reclaimable)
        ssn.add_fn("overused", self.name, self.overused)
        ssn.add_fn("allocatable", self.name, self.allocatable)
        ssn.add_fn("preemptive", self.name, self.preemptive)
        ssn.add_fn("jobEnqueueable", self.name, self.job_enqueueable)
        ssn.add_fn("jobEnqueued", self.name, self.job_enqueued)
        ssn.add_event_handler(EventHandler(self._on_allocate, self._on_deallocate))
        if ssn.options.older("pr4263"):
            note_unchecked_queue_state(self)

    # ---- attributes (proportion.go:90-183) -----------------------------------------------------
    def _build_attrs(self) -> None:
        self.attrs = build_flat_attrs(self.ssn, self.total, lambda q, unguaranteed: flat_limits(
            ProportionAttr(q), q, unguaranteed))
        if self.ssn.options.older("pr5100"):
            proportion_inqueue_v114(self)

    # ---- deserved by water-filling (proportion.go:199-266) -------------------------------------
    def _compute_deserved(self) -> None:
        """Every round shares `remaining` among the queues not yet met, by weight. Queues are visited
        in name order (Go: map order; every queue of a round reads the same `remaining`, so only the
        float summation order of the increments could differ, at the last bit). Traced, each round is
        filed with what every queue was offered, what clipped it and what it ends with."""
        order = sorted(self.attrs)
        remaining = self.total.clone()
        met: set[str] = set()
        traced = self.trace.enabled
        lines: list[list[str]] = []
        while True:
            total_weight = sum(self.attrs[n].weight for n in order if n not in met)
            if total_weight == 0:
                break
            old_remaining = remaining.clone()
            increased = Resource.empty()
            decreased = Resource.empty()
            record: dict[str, Any] = {"remaining": to_dict(remaining), "totalWeight": total_weight,
                                      "queues": {}}
            round_lines: list[str] = []
            for n in order:
                if n in met:
                    continue
                attr = self.attrs[n]
                old = attr.deserved.clone()
                offered = remaining.clone().multi(float(attr.weight) / float(total_weight))
                attr.deserved.add(offered)
                grown = attr.deserved.clone() if traced else None
                attr.deserved.min_dimension_resource(attr.real_capability, INFINITY)
                capped = attr.deserved.clone() if traced else None
                attr.deserved.min_dimension_resource(attr.request, ZERO)
                clamped = attr.deserved.clone() if traced else None
                # before PR #4347 (v1.13.0) helpers.Max dropped 0 scalars (proportion.go:L214 @v1.12.0)
                kept = res_max(attr.deserved, attr.guarantee)
                attr.deserved = res_max_v112(kept, kept) if self.ssn.options.older("pr4347") else kept
                dropped = sorted(set(kept.scalars or ()) - set(attr.deserved.scalars or ())) if traced else []
                update_share(attr)
                why = ""
                if attr.request.less_equal(attr.deserved, ZERO):
                    met.add(n)
                    why = "request satisfied"
                elif semantic_equal(attr.deserved, old):
                    met.add(n)
                    why = "deserved stopped growing (capped)"
                inc, dec = attr.deserved.diff(old, ZERO)
                increased.add(inc)
                decreased.add(dec)
                record["queues"][n] = entry = {"deserved": to_dict(attr.deserved), "met": why}
                if traced:
                    parts = (entry, attr, total_weight, offered, grown, capped, clamped)  # (traced: none is None)
                    line = self._round_entry(*parts)  # type: ignore[arg-type]
                    if dropped:  # (the same decisions: every proportion comparison reads a missing scalar as 0)
                        entry.update(switch="pr4347", droppedScalars=dropped)
                        line += (f" (on {self.ssn.options.version} helpers.Max then drops {', '.join(dropped)} 0 from "
                                 "its deserved, as before PR #4347 (v1.13.0); proportion reads a missing scalar as 0, "
                                 "so no decision changes)")
                    round_lines.append(line)
            remaining = exceeded_part(remaining.clone().add(decreased), increased)
            self.rounds.append(record)
            if traced:
                record["remainingAfter"] = to_dict(remaining)
                lines.append(round_lines)
            if remaining.is_empty() or semantic_equal(remaining, old_remaining):
                break
        if traced:
            st = self.styles
            dims = names_of(self.total, pods=False)
            for i, r in enumerate(self.rounds, 1):
                shown = [n for n in dims if n in r["remaining"]]
                text = (f"round {i}: {amounts(_res(r['remaining']), shown, st)} left to share by weight among "
                        f"{', '.join(r['queues'])} (total weight {r['totalWeight']}): " + "; ".join(lines[i - 1])
                        + f". Left after the round: {amounts(_res(r['remainingAfter']), shown, st)}")
                self.trace.because(self.name, "waterFilling", text, round=i)
                self.trace.event("proportionRound", f"round {i}", True, **r)

    def _round_entry(self, entry: dict[str, Any], attr: ProportionAttr, total_weight: int, offered: Resource,
                     grown: Resource, capped: Resource, clamped: Resource) -> str:
        """A queue's part of a traced round: `entry` gets its weight, offer, clips and share; returns its line."""
        st = self.styles
        names = names_of(grown, attr.deserved)
        by_cap = {n: value_of(capped, n) for n in names if value_of(capped, n) < value_of(grown, n)}
        by_req = {n: value_of(clamped, n) for n in names if value_of(clamped, n) < value_of(capped, n)}
        raised = {n: value_of(attr.deserved, n) for n in names if value_of(attr.deserved, n) > value_of(clamped, n)}
        entry.update(weight=attr.weight, offered=to_dict(offered), clippedByRealCapability=by_cap,
                     clippedByRequest=by_req, raisedToGuarantee=raised, share=attr.share)
        shown = [n for n in names if n != "pods"]
        line = f"{attr.name} (weight {attr.weight} of {total_weight}) is offered {amounts(offered, shown, st)}"
        for label, clip in (("clipped at its realCapability", by_cap), ("clipped at its request", by_req),
                            ("raised to its guarantee", raised)):
            dims = [n for n in clip if n != "pods"]
            if dims:
                line += f", {label} {amounts(attr.deserved if label.startswith('raised') else _res(clip), dims, st)}"
        line += f", so deserves {amounts(attr.deserved, shown, st)}"
        if entry["met"] == "request satisfied":
            line += " (its request is met: it takes no further part)"
        elif entry["met"]:
            line += " (its deserved stopped growing: it takes no further part)"
        return line

    def _file_figures(self) -> None:
        """One queueFigures record per queue with attributes (session open, traced only)."""
        ssn = self.ssn
        st = self.styles
        total_guarantee = sum_guarantees(ssn)
        for name in sorted(self.attrs):
            attr = self.attrs[name]
            q = attr.queue
            names = names_of(attr.real_capability, attr.deserved, attr.guarantee, attr.capability, pods=False)
            cap, cap_how = capability_text(q.capability, attr, names, st)
            real_how = flat_real_how(self.total, total_guarantee, attr, names, st, guarantors(ssn))
            rounds = len(self.rounds)
            deserved_how = (f"from proportion's water-filling by weight {attr.weight} over {rounds} round"
                            f"{'' if rounds == 1 else 's'}, see the proportionRound records; spec.deserved is ignored")
            share_how = share_text(attr, False, st)
            self.trace.because(self.name, "queueFigures", summary(name, cap, cap_how, real_how, deserved_how, attr,
                                                                  share_how, st), queue=name,
                               **figure_values(attr, cap))
            self.trace.event("queueFigures", name, True, plugin=self.name, capability=cap,
                             capabilityHow=cap_how, realCapabilityHow=real_how, deservedHow=deserved_how,
                             shareHow=share_how, weight=attr.weight, nodes=[n.name for n in ssn.node_list],
                             **figures(attr, st))

    # ---- order ---------------------------------------------------------------------------------
    def queue_order(self, l: QueueSpec, r: QueueSpec) -> int:
        """proportion.go:268-286: higher spec.priority first, then smaller share; equal -> 0."""
        if l.priority != r.priority:
            return -1 if l.priority > r.priority else 1
        la = self.attrs.get(l.name)
        ra = self.attrs.get(r.name)
        if la is None or ra is None:
            return 0
        if la.share == ra.share:
            return 0
        return -1 if la.share < ra.share else 1

    # ---- queue checks --------------------------------------------------------------------------
    def overused(self, queue: QueueSpec) -> bool:
        """proportion.go:321-333: every deserved dimension (pods included) is <=ε allocated."""
        attr = self.attrs.get(queue.name)
        if attr is None:
            return False
        over = attr.deserved.less_equal(attr.allocated, ZERO)
        if over and self.trace.enabled:
            names = attr.deserved.resource_names()
            st = self.styles
            self.trace.because(self.name, "overused", f"queue {queue.name} is overused: allocated "
                               f"{amounts(attr.allocated, names, st)} reached deserved "
                               f"{amounts(attr.deserved, names, st)} on every dimension (pods included)",
                               queue=queue.name, deserved=to_dict(attr.deserved),
                               allocated=_dims(attr.allocated, names))
        return over

    def _fits_deserved(self, queue: QueueSpec, req: Resource, subject: str, rule: str) -> bool:
        """queueAllocatable (proportion.go:335-388): Open, and allocated + req within deserved on the
        requested dimensions, strictly (no ε, pods ignored, a deserved key missing reads 0)."""
        if not queue.is_open() and not self.ssn.options.older("pr4263"):
            self.trace.because(self.name, "queueState", f"queue {queue.name} is {queue.state or 'not Open'} "
                               "(state must be Open)", queue=queue.name)
            return False
        attr = self.attrs.get(queue.name)
        if attr is None:
            self.trace.because(self.name, "noAttributes", f"queue {queue.name} has no proportion attributes")
            return False
        future = attr.allocated.clone().add(req)
        ok, failed = future.less_equal_with_dimension_and_resources_name(attr.deserved, req)
        if self.trace.enabled:
            st = self.styles
            terms = [("", attr.allocated), ("+", req)]
            if ok:
                asked = requested(req)
                how = (f"allocated + request <= deserved: {sums(terms, attr.deserved, asked, '<=', st)}" if asked
                       else "it requests no cpu, memory or other resource deserved limits")
                self.trace.because(self.name, rule, f"{subject} fits queue {queue.name}'s deserved: {how}",
                                   queue=queue.name, dimensions=asked, allocated=_dims(attr.allocated, asked),
                                   request=_dims(req, asked), deserved=_dims(attr.deserved, asked),
                                   **totals(terms, attr.deserved, asked, "<="))
            else:
                self.trace.because(
                    self.name, rule, f"queue {queue.name} would exceed its deserved on {', '.join(failed)}: "
                    f"allocated + request > deserved: {sums(terms, attr.deserved, failed, '>', st)}",
                    queue=queue.name, dimensions=failed, allocated=_dims(attr.allocated, failed),
                    request=_dims(req, failed), deserved=_dims(attr.deserved, failed),
                    **totals(terms, attr.deserved, failed))
        return ok

    def allocatable(self, queue: QueueSpec, task: Task) -> bool:
        return self._fits_deserved(queue, task.resreq, task.key, "deserved")

    def preemptive(self, queue: QueueSpec, tasks: list[Task]) -> bool:
        """Same test as Allocatable with the sum of the candidates (one task in practice)."""
        req = Resource.empty()
        for t in tasks:
            req.add(t.resreq)
        subject = tasks[0].key if len(tasks) == 1 else f"{len(tasks)} tasks"
        return self._fits_deserved(queue, req, subject, "preemptiveDeserved")

    def reclaimable(self, reclaimer: Task, reclaimees: list[Task]) -> tuple[list[Task], int]:
        """proportion.go:288-319: reclaimees in the given order; a victim iff its queue's scratch
        allocation is not <=ε deserved on every dimension (pods included); then it is subtracted."""
        ssn = self.ssn
        trace = self.trace
        allocations: dict[str, Resource] = {}
        victims: list[Task] = []
        taken: dict[str, list[Task]] = {}  # traced: per queue the victims already counted off, in order
        for t in reclaimees:
            job = ssn.jobs.get(t.job)
            attr = self.attrs.get(job.queue) if job is not None else None
            if attr is None:
                continue
            allocated = allocations.get(attr.name)
            if allocated is None:
                allocated = allocations[attr.name] = attr.allocated.clone()
            if ssn.options.older("pr4160") and proportion_reclaim_less_partly(self, reclaimer, t, attr.name, allocated):
                continue
            if not allocated.less_equal(attr.deserved, ZERO):
                if trace.enabled:
                    _, over = allocated.less_equal_with_resources_name(attr.deserved, ZERO)
                    trace.because(self.name, "overDeserved", f"{t.key} may go: " + self._compared(
                                      attr, allocated, over, taken, "above", "is", "still"),
                                  task=t.key, queue=attr.name, dimensions=over, allocated=_dims(allocated, over),
                                  deserved=_dims(attr.deserved, over), after=[v.key for v in taken.get(attr.name, ())])
                    taken.setdefault(attr.name, []).append(t)
                allocated.sub(t.resreq)
                victims.append(t)
            elif trace.enabled:
                names = [n for n in names_of(allocated, attr.deserved)
                         if value_of(allocated, n) or value_of(attr.deserved, n)]
                trace.because(self.name, "notOverDeserved", f"{t.key} kept: " + self._compared(
                                  attr, allocated, names, taken, "within", "is", "which is") + (
                                  " on every dimension (pods included)" + (f", so {t.key} is kept"
                                                                            if taken.get(attr.name) else "")),
                              task=t.key, queue=attr.name, allocated=_dims(allocated, names),
                              deserved=_dims(attr.deserved, names), after=[v.key for v in taken.get(attr.name, ())])
        return victims, PERMIT

    def _compared(self, attr: ProportionAttr, allocated: Resource, names: list[str],
                  taken: dict[str, list[Task]], relation: str, now: str, then: str) -> str:
        """"queue q1's allocated cpu 3 is above its deserved cpu 2", or once earlier victims of q1 were
        counted off, "after evicting a-1 (cpu 1), queue q1's allocated would be cpu 2, still above ...": the
        allocation a reclaimable check reads is the queue's minus those victims (proportion.go:288-319)."""
        st = self.styles
        a, d = amounts(allocated, names, st), amounts(attr.deserved, names, st)
        earlier = taken.get(attr.name)
        if not earlier:
            return f"queue {attr.name}'s allocated {a} {now} {relation} its deserved {d}"
        return (f"after evicting {tasks_text(earlier, st)}, queue {attr.name}'s allocated would be {a}, {then} "
                f"{relation} its deserved {d}")

    # ---- enqueue (proportion.go:404-453) -------------------------------------------------------
    def job_enqueueable(self, job: Job) -> int:
        queue = self.ssn.queues[job.queue]
        if not queue.is_open() and not self.ssn.options.older("pr4263"):
            self.trace.because(self.name, "queueState", f"queue {queue.name} is {queue.state or 'not Open'} "
                               "(state must be Open)", queue=queue.name)
            return REJECT
        attr = self.attrs.get(job.queue)
        if job.min_resources is None or attr is None:
            self.trace.because(self.name, "noMinResources", "the job sets no minResources")
            return PERMIT
        min_req = job.min_resources
        r = min_req.clone().add(attr.allocated).add(attr.inqueue).sub(attr.elastic)
        ok, failed = r.less_equal_with_dimension_and_resources_name(attr.real_capability, min_req)
        terms = [("", min_req), ("+", attr.allocated), ("+", attr.inqueue), ("-", attr.elastic)] \
            if self.trace.enabled else []
        if ok:
            if self.trace.enabled:
                asked = requested(min_req)
                self.trace.because(self.name, "enqueueRealCapability", "minResources + allocated + inqueue - "
                                   f"elastic fits queue {queue.name}'s realCapability" + (
                                       f": {sums(terms, attr.real_capability, asked, '<=', self.styles)}"
                                       if asked else ""), queue=queue.name, dimensions=asked,
                                   minResources=_dims(min_req, asked), allocated=_dims(attr.allocated, asked),
                                   inqueue=_dims(attr.inqueue, asked), elastic=_dims(attr.elastic, asked),
                                   realCapability=_dims(attr.real_capability, asked),
                                   **totals(terms, attr.real_capability, asked, "<="))
            if self.ssn.options.older("pr5339"):  # proportion.go:L432-437 @v1.15.0: reserved at the vote
                self.job_enqueued(job, at_vote=True)
            return PERMIT
        if self.trace.enabled:
            held = inqueue_jobs(self, {queue.name}) if any(value_of(attr.inqueue, n) for n in failed) else []
            self.trace.because(
                self.name, "enqueueRealCapability",
                f"queue resource quota insufficient: minResources + allocated + inqueue - elastic exceeds "
                f"queue {queue.name}'s realCapability on {', '.join(failed)}: "
                f"{sums(terms, attr.real_capability, failed, '>', self.styles)}{inqueue_words(held)}",
                queue=queue.name, inqueueJobs=held,
                dimensions=failed, minResources=_dims(min_req, failed), allocated=_dims(attr.allocated, failed),
                inqueue=_dims(attr.inqueue, failed), elastic=_dims(attr.elastic, failed),
                realCapability=_dims(attr.real_capability, failed),
                **totals(terms, attr.real_capability, failed))
        return REJECT

    def job_enqueued(self, job: Job, at_vote: bool = False) -> None:
        if job.min_resources is None or (self.ssn.options.older("pr5339") and not at_vote):
            return
        attr = self.attrs.get(job.queue)
        if attr is not None:
            attr.inqueue.add(deduct_sch_gated(job, job.min_resources))

    # ---- simulation (proportion.go:390-491), for actions that dry-run evictions ----------------
    def simulate_state(self) -> dict[str, ProportionAttr]:
        """PrePredicate: a private copy of every queue's attributes."""
        return {n: a.clone() for n, a in self.attrs.items()}

    def simulate_allocatable(self, state: dict[str, ProportionAttr], queue: QueueSpec, task: Task) -> bool:
        """SimulateAllocatable: the Allocatable test on the copy, without the queue-state check."""
        attr = state.get(queue.name)
        if attr is None:
            return False
        future = attr.allocated.clone().add(task.resreq)
        return future.less_equal_with_dimension_and_resources_name(attr.deserved, task.resreq)[0]

    def simulate_add_task(self, state: dict[str, ProportionAttr], task: Task) -> None:
        attr = self._state_attr(state, task)
        if attr is not None:
            attr.allocated.add(task.resreq)
            update_share(attr)

    def simulate_remove_task(self, state: dict[str, ProportionAttr], task: Task) -> None:
        attr = self._state_attr(state, task)
        if attr is not None:
            attr.allocated.sub(task.resreq)
            update_share(attr)

    def _state_attr(self, state: dict[str, ProportionAttr], task: Task) -> ProportionAttr | None:
        job = self.ssn.jobs.get(task.job)
        return state.get(job.queue) if job is not None else None

    # ---- events (proportion.go:494-537) --------------------------------------------------------
    def _attr_of(self, task: Task) -> ProportionAttr | None:
        job = self.ssn.jobs.get(task.job)
        return self.attrs.get(job.queue) if job is not None else None

    def _on_allocate(self, task: Task) -> None:
        attr = self._attr_of(task)
        if attr is not None:
            attr.allocated.add(task.resreq)
            update_share(attr)

    def _on_deallocate(self, task: Task) -> None:
        attr = self._attr_of(task)
        if attr is not None:
            attr.allocated.sub(task.resreq)
            update_share(attr)

    def on_session_close(self, ssn: Session) -> None:
        for name, attr in self.attrs.items():
            ssn.result.queues.setdefault(name, attr.summary())  # first queue plugin in tier order
