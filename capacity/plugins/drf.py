"""drf: dominant resource fairness between jobs (pkg/scheduler/plugins/drf/drf.go at HEAD).

Spec queue-plugins §6.1 and actions-framework §9.8. A job's share is its dominant share of the whole
cluster (every dimension the cluster reports, pods included); jobs with a smaller share go first, and
in preempt a task may be taken from a job whose share after losing it would still be at least the
preemptor's share after gaining it. Namespace weights do not exist at HEAD (§6.2); hierarchical DRF
(`enableHierarchy: true`, §6.3) is not simulated and is reported as such.
"""

from __future__ import annotations

from capacity.core.model import ALLOCATED_STATUSES, Job, Task
from capacity.core.resources import Resource, share
from capacity.framework.session import PERMIT, EventHandler, Session
from capacity.plugins.base import Plugin

SHARE_DELTA = 0.000001
"""`shareDelta` (drf.go:43): preemptor and preemptee shares this close count as equal."""


class DrfAttr:
    """drfAttr: the job's allocation, its dominant share and which dimension dominates."""

    __slots__ = ("allocated", "share", "dominant")

    def __init__(self, allocated: Resource) -> None:
        self.allocated = allocated
        self.share = 0.0
        self.dominant = ""


def calculate_share(allocated: Resource, total: Resource) -> tuple[str, float]:
    """calculateShare (drf.go:566-578): the largest allocated/total over total.ResourceNames()
    (dimensions >= 0.1, pods and every scalar included); first dimension wins a tie."""
    res = 0.0
    dominant = ""
    for rn in total.resource_names():
        s = share(allocated.get(rn), total.get(rn))
        if s > res:
            res = s
            dominant = rn
    return dominant, res


class DrfPlugin(Plugin):
    name = "drf"

    def on_session_open(self, ssn: Session) -> None:
        self.ssn = ssn
        self.trace = ssn.trace
        if ssn.hierarchy_enabled(self.name):
            ssn.notes.append("drf: enableHierarchy (hierarchical DRF) is not simulated; Capacity Lab runs drf "
                             "without its hdrf queue order and reclaim rules")
        self.total = Resource.empty().add(ssn.total_resource)
        self.attrs: dict[str, DrfAttr] = {}
        for job in ssn.jobs.values():
            allocated = Resource.empty()
            for status, bucket in job.index.items():
                if status & ALLOCATED_STATUSES:
                    for t in bucket.values():
                        allocated.add(t.resreq)
            attr = DrfAttr(allocated)
            self._update_share(attr)
            self.attrs[job.uid] = attr
        ssn.add_fn("preemptable", self.name, self.preemptable)
        ssn.add_fn("jobOrder", self.name, self.job_order)
        ssn.add_event_handler(EventHandler(self._on_allocate, self._on_deallocate))

    def _update_share(self, attr: DrfAttr) -> None:
        attr.dominant, attr.share = calculate_share(attr.allocated, self.total)

    # ---- order ---------------------------------------------------------------------------------
    def job_order(self, l: Job, r: Job) -> int:
        """drf.go:370-388: smaller dominant share first; equal shares -> 0."""
        la = self.attrs.get(l.uid)
        ra = self.attrs.get(r.uid)
        if la is None or ra is None or la.share == ra.share:
            return 0
        return -1 if la.share < ra.share else 1

    # ---- preempt (drf.go:222-263) --------------------------------------------------------------
    def preemptable(self, preemptor: Task, preemptees: list[Task]) -> tuple[list[Task], int]:
        """Victim iff ls < rs or |ls - rs| <= 1e-6, where ls is the preemptor job's share with the
        preemptor added and rs the preemptee job's share after removing this preemptee from a scratch
        allocation that keeps shrinking for every candidate of the same job (victim or not)."""
        trace = self.trace
        latt = self.attrs.get(preemptor.job)
        if latt is None:
            trace.because(self.name, "orphanPreemptor", f"job {preemptor.job} of {preemptor.key} is not in the "
                          "session; drf offers no victims")
            return [], PERMIT
        _, ls = calculate_share(latt.allocated.clone().add(preemptor.resreq), self.total)
        allocations: dict[str, Resource] = {}
        victims: list[Task] = []
        for t in preemptees:
            alloc = allocations.get(t.job)
            if alloc is None:
                ratt = self.attrs.get(t.job)
                if ratt is None:
                    continue
                alloc = allocations[t.job] = ratt.allocated.clone()
            alloc.sub(t.resreq)
            _, rs = calculate_share(alloc, self.total)
            if ls < rs or abs(ls - rs) <= SHARE_DELTA:
                victims.append(t)
                if trace.enabled:
                    trace.because(self.name, "dominantShare", f"{t.key} may go: preemptor share {ls:.6g} after "
                                  f"gaining <= job {t.job}'s share {rs:.6g} after losing it", task=t.key,
                                  preemptorShare=ls, preempteeShare=rs)
            elif trace.enabled:
                trace.because(self.name, "dominantShare", f"{t.key} kept: job {t.job}'s share {rs:.6g} after "
                              f"losing it would fall below the preemptor's {ls:.6g}", task=t.key,
                              preemptorShare=ls, preempteeShare=rs)
        return victims, PERMIT

    # ---- events --------------------------------------------------------------------------------
    def _on_allocate(self, task: Task) -> None:
        attr = self.attrs.get(task.job)
        if attr is None or task.job not in self.ssn.jobs:
            return
        attr.allocated.add(task.resreq)
        self._update_share(attr)

    def _on_deallocate(self, task: Task) -> None:
        attr = self.attrs.get(task.job)
        if attr is None or task.job not in self.ssn.jobs:
            return
        attr.allocated.sub(task.resreq)
        self._update_share(attr)
