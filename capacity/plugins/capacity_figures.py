"""What the capacity plugin tells a trace about its numbers: one queueFigures record per queue, and how each
figure was derived (traced sessions only; nothing here decides).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from capacity.core.model import ALLOCATED_STATUSES, Job, PodGroupPhase, QueueSpec, Task
from capacity.core.resources import MAX_FLOAT, SCALAR_INFINITY, Resource
from capacity.framework.session import Session
from capacity.plugins.capacity_attrs import (
    ROOT,
    CapacityBase,
    QueueAttr,
    deduct_sch_gated,
    inqueue_resource,
    sum_guarantees,
)
from capacity.plugins.figures import (
    amount,
    capability_text,
    deserved_how,
    figure_values,
    figures,
    limited,
    names_of,
    share_text,
    summary,
    sums,
    value_of,
)
from capacity.plugins.older import best_effort_share_words_v113


def inqueue_jobs(plugin: Any, queues: set[str], whole: bool = False) -> list[str]:
    """For a trace: the jobs of `queues` whose minResources the inqueue figure holds, by the rule of
    `accumulate_job` (Inqueue, or Running with minAvailable tasks allocated) and `job_enqueued` (admitted this
    session: their phase is Inqueue now), keeping those that still reserve something. The session's jobs by
    queue are indexed once (on `plugin`), as a refusal may be traced for every pending job.
    Rule: capacity.go:1124-1144 @ed72c7c8 (buildQueueAttrs' inqueue); `whole`: an Inqueue job's whole
    minResources, before PR #5130 (capacity.go:L467-471 @v1.14.0)."""
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
        whole_min = whole and job.phase == PodGroupPhase.INQUEUE
        if held and not deduct_sch_gated(job, job.min_resources if whole_min else
                                         inqueue_resource(job, job.allocated)).is_empty():
            out.append(job.uid)
    return sorted(out)


def inqueue_words(jobs: list[str], shown_max: int = 3) -> str:
    """'; inqueue is what Inqueue jobs a, b reserve' for a reason that adds the inqueue figure (traced only)."""
    if not jobs:
        return ""
    names = ", ".join(jobs[:shown_max]) + (f" and {len(jobs) - shown_max} more" if len(jobs) > shown_max else "")
    return f"; inqueue is the minResources not yet allocated of the admitted job{'s' if len(jobs) > 1 else ''} {names}"


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


def _fmt(r: Resource, names: list[str]) -> dict[str, float]:
    """The values of `names` in `r`, taken now (a trace keeps them while `r` changes)."""
    if names == _CPU_MEMORY:  # most requests (a traced enqueue files five of these per queue level per job)
        return {"cpu": r.cpu, "memory": r.memory}
    return {n: r.cpu if n == "cpu" else r.memory if n == "memory" else r.get(n) for n in names}


_CPU_MEMORY = ["cpu", "memory"]


def _inherited(spec: QueueSpec, parent: QueueAttr, names: list[str], styles: Any,
               scalars: bool = True) -> dict[str, str]:
    """The capability dimensions a child took from its parent (checkHierarchicalQueue, capacity.go:1487-1556):
    cpu and memory set to 0 or not at all, and scalars of the parent's capability it does not set (not before
    PR #4504: `scalars` False)."""
    own = spec.capability
    out = {}
    for n in names:
        scalar = n not in ("cpu", "memory")
        if scalar and not scalars:
            continue
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


def limited_dims(asked: list[str], limit: Resource) -> list[str]:
    """The dimensions of `asked` on which `limit` is a limit (not Volcano's unlimited value)."""
    return [n for n in asked if limited(n, value_of(limit, n))]


def _resource(values: Mapping[str, float]) -> Resource:
    """A Resource of numbers taken earlier (cpu, memory and scalars by name), to be written by `sums`."""
    scalars = {n: v for n, v in values.items() if n != "cpu" and n != "memory"}
    return Resource(values.get("cpu", 0.0), values.get("memory", 0.0), scalars or None)


def enqueue_fit_text(head: str, level: str, dims: list[str], nums: list[dict[str, float]],
                     limit: dict[str, float], no_dims: str, styles: Any) -> str:
    """A passing enqueue check's sentence for one level, from the numbers its reason keeps (`nums`:
    minResources, allocated, inqueue, elastic on `dims`; `limit`: realCapability): made when first read
    (LazyReason), as "minResources + allocated + inqueue - elastic" `sums` of those numbers, or `no_dims`."""
    if not dims:
        return f"{head}{level}: {no_dims}"
    terms = [(sign, _resource(v)) for sign, v in zip(("", "+", "+", "-"), nums, strict=True)]
    return f"{head}{level}: {sums(terms, _resource(limit), dims, '<=', styles)}"


def _keys(tasks: list[Task] | None) -> list[str]:
    return [t.key for t in tasks] if tasks else []


class CapacityFigures(CapacityBase):
    """CapacityPlugin's queueFigures records, and the helpers of its lazily written reasons."""

    _limited_dims = staticmethod(limited_dims)
    _enqueue_fit_text = staticmethod(enqueue_fit_text)

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
                took = _inherited(spec, parent, names, st, not self.ssn.options.older("pr4504"))
                cap, cap_how = capability_text(spec.capability, attr, names, st, took)
                real_how = _tree_real_how(attr, parent, names, st)
                des_how = deserved_how(spec.deserved, attr, names, st, clipped=False)
                extra["path"] = attr.path()
            share_how = share_text(attr, True, st)
            if self.best_effort_share != 1.0 and attr.deserved.is_empty():
                share_how = best_effort_share_words_v113(self)
            self.trace.because(self.name, "queueFigures",
                               summary(name, cap, cap_how, real_how, des_how, attr, share_how, st), queue=name,
                               **figure_values(attr, cap))
            self.trace.event("queueFigures", name, True, plugin=self.name, capability=cap, capabilityHow=cap_how,
                             realCapabilityHow=real_how, deservedHow=des_how, shareHow=share_how, **extra,
                             nodes=[n.name for n in self.ssn.node_list],
                             **figures(attr, st))
