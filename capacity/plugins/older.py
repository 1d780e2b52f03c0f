"""Rules as older Volcano releases ran them (capacity/versions): each function is the behaviour from
before one upstream change, called from a one-line hook at the rule site when the session lacks that
change (SessionOptions.older). Each reason a function files names the switch (`switch=`) and starts with
the words `SessionOptions.older_words` gives, so a trace says which release behaviour decided.
"""

from __future__ import annotations

from typing import Any

from capacity.core.model import PodGroupPhase, QueueSpec, Task
from capacity.core.resources import INFINITY, ZERO, Resource, res_max
from capacity.framework.session import PERMIT, REJECT
from capacity.plugins.figures import amounts, requested, value_of


def capacity_reclaimable_v113(plugin: Any, reclaimer: Task, reclaimees: list[Task]) -> tuple[list[Task], int]:
    """capacity's ReclaimableFn before PR #4919 (v1.14.0): a reclaimee is a victim when its queue's
    allocation (less the victims already taken) is not within deserved on every dimension (unset scalars
    unlimited) and taking it leaves the guarantee; the reclaimer's request plays no part
    (pkg/scheduler/plugins/capacity/capacity.go:L105-133 @v1.13.0). Before PR #4160 (v1.12.0) a queue whose
    allocation was below the reclaimer's request on some dimension gave no victim at all
    (capacity.go:L121-131 @v1.11.0)."""
    ssn, trace, opts = plugin.ssn, plugin.trace, plugin.ssn.options
    if not plugin.ready:
        trace.because(plugin.name, "notReady", f"capacity is not ready: {plugin.not_ready_reason}")
        return [], REJECT
    st = plugin.styles
    allocations: dict[str, Resource] = {}
    victims: list[Task] = []
    for t in reclaimees:
        job = ssn.jobs.get(t.job)
        attr = plugin.attrs.get(job.queue) if job is not None else None
        if attr is None:
            continue
        allocated = allocations.get(attr.name)
        if allocated is None:
            allocated = allocations[attr.name] = attr.allocated.clone()
        if opts.older("pr4160") and allocated.less_partly(reclaimer.resreq, ZERO):
            if trace.enabled:
                names = requested(reclaimer.resreq)
                trace.because(plugin.name, "lessPartly", f"{opts.older_words('pr4160')}: {t.key} kept: queue "
                              f"{attr.name}'s allocated {amounts(allocated, names, st)} is below the reclaimer's "
                              f"request {amounts(reclaimer.resreq, names, st)} on some dimension",
                              task=t.key, queue=attr.name, switch="pr4160")
            continue
        left = allocated.clone().sub_without_assert(t.resreq)
        within = allocated.less_equal(attr.deserved, INFINITY)
        if within or not attr.guarantee.less_equal(left, ZERO):
            if trace.enabled:
                why = (f"queue {attr.name}'s allocated {amounts(allocated, requested(allocated), st)} is within "
                       f"its deserved {amounts(attr.deserved, requested(attr.deserved), st)}"
                       + dropped_zero_deserved_words_v112(plugin, attr, allocated) if within else
                       f"taking it would leave queue {attr.name} below its guarantee")
                trace.because(plugin.name, "notOverDeserved" if within else "guarantee",
                              f"{opts.older_words('pr4919')}: {t.key} kept: {why}", task=t.key, queue=attr.name,
                              switch="pr4919")
            continue
        if trace.enabled:
            trace.because(plugin.name, "overDeserved", f"{opts.older_words('pr4919')}: {t.key} may go: queue "
                          f"{attr.name}'s allocated {amounts(allocated, requested(allocated), st)} exceeds its "
                          f"deserved {amounts(attr.deserved, requested(attr.deserved), st)} on some dimension",
                          task=t.key, queue=attr.name, switch="pr4919")
        allocated.sub(t.resreq)
        victims.append(t)
    return victims, PERMIT


def capacity_preemptive_v113(plugin: Any, queue: QueueSpec, attr: Any, total_req: Resource) -> bool:
    """capacity's PreemptiveFn before PR #4659 (v1.14.0): the queue may reclaim only when allocated + request
    is within deserved on every requested dimension (capacity.go:L135-161 @v1.13.0)."""
    opts = plugin.ssn.options
    future = attr.allocated.clone().add(total_req)
    ok, failed = future.less_equal_with_dimension_and_resources_name(attr.deserved, total_req)
    if plugin.trace.enabled:
        asked = requested(total_req)
        words = "stays within" if ok else f"would exceed, on {', '.join(failed)},"
        plugin.trace.because(plugin.name, "underDeserved" if ok else "overDeserved",
                             f"{opts.older_words('pr4659')}: queue {queue.name} {words} its deserved: allocated + "
                             f"request {amounts(future, asked, plugin.styles)}, deserved "
                             f"{amounts(attr.deserved, asked, plugin.styles)}",
                             queue=queue.name, dimensions=failed or asked, switch="pr4659")
    return ok


def proportion_reclaim_less_partly(plugin: Any, reclaimer: Task, t: Task, queue: str, allocated: Resource) -> bool:
    """proportion's ReclaimableFn before PR #4160 (v1.12.0): True (keep `t`) when its queue's allocation is
    below the reclaimer's request on some dimension (proportion.go:L272-281 @v1.11.0)."""
    if not allocated.less_partly(reclaimer.resreq, ZERO):
        return False
    if plugin.trace.enabled:
        names = requested(reclaimer.resreq)
        plugin.trace.because(plugin.name, "lessPartly", f"{plugin.ssn.options.older_words('pr4160')}: {t.key} "
                             f"kept: queue {queue}'s allocated {amounts(allocated, names, plugin.styles)} is below "
                             f"the reclaimer's request {amounts(reclaimer.resreq, names, plugin.styles)} on some "
                             "dimension", task=t.key, queue=queue, switch="pr4160")
    return True


def proportion_inqueue_v114(plugin: Any) -> None:
    """proportion before PR #5100 (v1.15.0): an Inqueue job's inqueue was its whole minResources (less
    gated pods), its already allocated pods counted a second time (proportion.go:L158-159 @v1.14.0)."""
    from capacity.plugins.capacity_attrs import _inqueue_of, deduct_sch_gated
    for job in plugin.ssn.jobs.values():
        attr = plugin.attrs.get(job.queue)
        if attr is None or job.min_resources is None or job.phase != PodGroupPhase.INQUEUE:
            continue
        attr.inqueue.sub_without_assert(_inqueue_of(job)).add(deduct_sch_gated(job, job.min_resources))



def note_unchecked_queue_state(plugin: Any) -> None:
    """Before PRs #4263, #4274 and #4307 (v1.12.0) neither capacity nor proportion read a queue's state: a
    Closed queue's jobs were enqueued, allocated and reclaimed for like any other (capacity.go, proportion.go
    @v1.11.0 have no QueueStateOpen check). One session note per queue that is not Open."""
    ssn = plugin.ssn
    for queue in ssn.queues.values():
        if not queue.is_open():
            ssn.notes.append(f"{plugin.name}: queue {queue.name} is {queue.state or 'not Open'}, but "
                             f"{ssn.options.older_words('pr4263')}")


def parent_less_partly_v114(parent: Resource, child: Resource) -> tuple[bool, list[str]]:
    """The child-capability check before PR #5176 (v1.15.0): `parent.LessPartly(child, Zero)`, so a scalar the
    child names and the parent does not counted as exceeded (capacity.go:L805 @v1.14.0); with the names."""
    names = [n for n, a, b in (("cpu", parent.cpu, child.cpu), ("memory", parent.memory, child.memory)) if a < b]
    have = parent.scalars or {}
    names += [k for k, v in (child.scalars or {}).items() if k not in have or have[k] < v]
    return parent.less_partly(child, ZERO), names


def leaf_only_enqueue_v111(plugin: Any, attr: Any) -> list[Any]:
    """capacity's JobEnqueueableFn before PR #4119 (v1.12.0): with hierarchy on, only the job's own (leaf) queue
    was checked and reserved, never its ancestors (capacity.go:L214-239 @v1.11.0). Returns the levels to check."""
    if plugin.hierarchy and attr.ancestors and plugin.trace.enabled:
        plugin.trace.because(plugin.name, "leafOnlyEnqueue", f"{plugin.ssn.options.older_words('pr4119')}: only "
                             f"queue {attr.name} is checked, not {', '.join(a.name for a in reversed(attr.ancestors))}",
                             queue=attr.name, switch="pr4119")
    return [attr]


def clip_child_deserved_v112(plugin: Any, child: Any, sum_d: Resource) -> Resource:
    """Hierarchical deserved before PR #4354 (v1.13.0): each child's deserved clipped to its realCapability, on
    v1.11 also to its request (a resource it does not request read as 0: PR #3946, v1.12.0), then raised to its
    guarantee; the children's sum follows (capacity.go:L683-692 @v1.11.0, @v1.12.0 without the request line).
    Returns the new sum of the children's deserved. A new Resource: the old one may be shared."""
    old = child.deserved
    d = old.clone().min_dimension_resource(child.real_capability, INFINITY)
    if plugin.ssn.options.older("pr3946"):
        d.min_dimension_resource(child.request, ZERO)
    child.deserved = (res_max_v112 if plugin.ssn.options.older("pr4347") else res_max)(d, child.guarantee)
    return sum_d.clone().sub_without_assert(old).add(child.deserved)


def clip_flat_deserved_v111(plugin: Any) -> None:
    """Flat deserved before PR #3946 (v1.12.0): clipped to the queue's request (allocated and pending pods; a
    resource not requested kept), then raised to the guarantee (capacity.go:L372-378 @v1.11.0). New Resources
    (the old ones may be shared with a cached tree); the share follows."""
    from capacity.plugins.capacity_attrs import update_share
    for attr in plugin.attrs.values():
        clipped = attr.deserved.clone().min_dimension_resource(attr.request, INFINITY)
        attr.deserved = (res_max_v112 if plugin.ssn.options.older("pr4347") else res_max)(clipped, attr.guarantee)
        attr.fixed = None  # its numbers are this session's, not the cached spec-fixed ones (QueueAttr.summary)
        update_share(attr, plugin.best_effort_share)


def whole_inqueue_words_v114(plugin: Any, held: list[str], failed: list[str]) -> tuple[str, dict[str, Any]] | None:
    """An enqueue refusal's words on the inqueue figure before PR #5130 (v1.15.0): capacity added an Inqueue
    job's whole minResources, also what its allocated pods already held and `allocated` counts too
    (capacity.go:L467-471, L594-596 @v1.14.0). Names the switch (and returns `switch=`) when such a job's
    allocated pods hold some of a `failed` dimension; else None (the plain words apply)."""
    jobs = plugin.ssn.jobs
    twice = [uid for uid in held if jobs[uid].phase == PodGroupPhase.INQUEUE
             and any(value_of(jobs[uid].allocated, n) > 0 for n in failed)]
    if not twice:
        return None
    names = ", ".join(twice)
    shown = ", ".join(held[:3]) + (f" and {len(held) - 3} more" if len(held) > 3 else "")
    held_words = f"; inqueue is the minResources of the admitted job{'s' if len(held) > 1 else ''} {shown}"
    return (f"{held_words}; {plugin.ssn.options.older_words('pr5130')}: what {names} already "
            f"allocated is counted in allocated and again in inqueue"), {"switch": "pr5130"}


def uninherited_words_v112(plugin: Any, parent: Any, names: list[str]) -> str:
    """Before PR #4504 (v1.13.0) a child's capability took only cpu and memory from its parent's, never a scalar
    (capacity.go:L665-671 @v1.12.0): when `parent` exceeded a child on a scalar `names` lists because it did not
    take that scalar from its own parent, the words saying so (naming the switch); else ""."""
    opts = plugin.ssn.options
    if not opts.older("pr4504") or not parent.ancestors:
        return ""
    above = parent.ancestors[-1]
    have, theirs = parent.capability.scalars or {}, above.capability.scalars or {}
    missed = [n for n in names if n not in have and n in theirs]
    if not missed:
        return ""
    return (f" ({parent.name}'s capability did not take {', '.join(missed)} from {above.name}'s: "
            f"{opts.older_words('pr4504')})")


def best_effort_share_words_v113(plugin: Any) -> str:
    """How a best-effort queue's share came out before PR #4865 (v1.14.0): updateQueueAttrShare took the largest
    allocated / deserved over the dimensions deserved sets, none, so 0 whatever the queue held, and equal shares
    tied in the queue order (capacity.go:L503-511, L985-993 @v1.13.0). Names the switch."""
    return f"0, because the queue has no deserved: {plugin.ssn.options.older_words('pr4865')}"


def res_max_v112(l: Resource, r: Resource) -> Resource:  # noqa: E741 - Go's parameter names
    """helpers.Max before PR #4347 (v1.13.0; v1.12.3 has it too): only scalars above 0 were taken, so a scalar
    0 on both sides (or 0 on one and unset or negative on the other) was dropped from the result
    (pkg/scheduler/api/helpers/helpers.go:L47-73 @v1.12.0). `res_max` less the scalars it sets to 0."""
    out = res_max(l, r)
    if out.scalars:
        out.scalars = {k: v for k, v in out.scalars.items() if v != 0}
    return out


def dropped_zero_words_v112(plugin: Any, parent: Any, sum_d: Resource) -> str:
    """When a parent's deserved fell short of its children's sum because helpers.Max had dropped a scalar its
    spec set to 0 (before PR #4347: `res_max_v112`), the words saying so, naming the switch; else ""."""
    opts = plugin.ssn.options
    spec = parent.queue.deserved
    if not opts.older("pr4347") or spec is None:
        return ""
    have = parent.deserved.scalars or {}
    dropped = [k for k, v in (spec.scalars or {}).items() if v == 0 and k not in have and k in (sum_d.scalars or {})]
    if not dropped:
        return ""
    return (f" ({parent.name}'s deserved sets {', '.join(dropped)} to 0, which was dropped: "
            f"{opts.older_words('pr4347')})")


def dropped_zero_deserved_words_v112(plugin: Any, attr: Any, allocated: Resource) -> str:
    """Before PR #4347 (v1.13.0) a scalar a queue's deserved set to 0 was dropped at session open (`res_max_v112`),
    so a check reading a missing scalar as unlimited let the queue hold any amount of it: when `allocated` holds
    such a scalar, the words saying so, naming the switch; else ""."""
    opts = plugin.ssn.options
    spec = attr.queue.deserved
    if not opts.older("pr4347") or spec is None:
        return ""
    have, held = attr.deserved.scalars or {}, allocated.scalars or {}
    dropped = [k for k, v in (spec.scalars or {}).items() if v == 0 and k not in have and held.get(k, 0) > 0]
    if not dropped:
        return ""
    return (f" (its deserved {', '.join(dropped)} 0 was dropped, so unlimited: {opts.older_words('pr4347')})")
