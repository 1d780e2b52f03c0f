"""The capacity plugin's queue attributes at session open: flat (buildQueueAttrs) or as a tree
(buildHierarchicalQueueAttrs, checkHierarchicalQueue), capacity.go @ed72c7c8.
"""

from __future__ import annotations

from operator import is_
from typing import Any

from capacity.core.model import QueueSpec
from capacity.core.resources import INFINITY, ZERO, Resource, exceeded_part, res_max, to_dict
from capacity.plugins.capacity_attrs import (
    ROOT,
    CapacityBase,
    FixedNumbers,
    QueueAttr,
    _delta,
    accumulate_job,
    accumulated_parts,
    build_flat_attrs,
    flat_limits,
    inherit_capability,
    root_capability,
    update_share,
)
from capacity.plugins.older import (
    clip_child_deserved_v112,
    clip_flat_deserved_v111,
    dropped_zero_words_v112,
    parent_less_partly_v114,
    res_max_v112,
    uninherited_words_v112,
)


class CapacityTree(CapacityBase):
    """CapacityPlugin's attribute build at session open."""

    # ---- attribute building ------------------------------------------------------------------
    def _build_flat(self) -> None:
        ssn = self.ssn
        # What an earlier session on the same specs and total kept (ssn.tree_reuse: framework.queue_tree_reuse)
        reuse = ssn.tree_reuse.flat(ssn, self.total)
        kept, last, by_queue = reuse.fixed, reuse.last, reuse.by_queue
        self._flat_closed: dict[str, tuple[QueueAttr, dict[str, Any]]] | None = reuse.closed
        taken: set[str] = set()  # the queues whose last attribute `built` hands over

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
            # before PR #4347 (v1.13.0) helpers.Max dropped 0 scalars (capacity.go:L366 @v1.12.0)
            attr.deserved = (res_max_v112 if ssn.options.older("pr4347") else res_max)(attr.deserved, attr.guarantee)
            if kept is not None:  # from now on read-only: shared with the next sessions' attributes
                attr.fixed = kept[q.name] = FixedNumbers(attr, self.best_effort_share)
            return attr

        self.attrs = build_flat_attrs(ssn, self.total, make, built if last else None, ssn.options.older("pr5130"))
        if ssn.options.older("pr3946"):
            clip_flat_deserved_v111(self)
        for name, attr in self.attrs.items():
            if name not in taken:  # (a taken attribute holds the share of the same numbers already)
                update_share(attr, self.best_effort_share)
        self._flat_taken = taken
        ssn.tree_reuse.flat_built(reuse, self.attrs)

    def _build_hierarchical(self) -> None:
        ssn = self.ssn
        if self._build_from_kept():  # (an earlier session's tree on the same specs and total: accelerated only)
            return None
        for name in sorted(ssn.queues):
            attr = QueueAttr(ssn.queues[name])
            capability = ssn.queues[name].capability
            if capability is not None:
                attr.capability = capability.clone()
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
        if self._accumulate():
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
            root.capability = root_capability(root.capability, self.total)
            root.real_capability = root.capability
        notes_before = len(ssn.notes)
        self._check_hierarchical(root)
        # (pr3946: deserved reads requests, so the tree cannot be kept)
        if self.ready and not ssn.options.older("pr3946"):
            self._keep_tree(notes_before)
        for attr in self.attrs.values():
            update_share(attr, self.best_effort_share)

    # ---- where the accelerated plugin (capacity.accel.capacity_open.CapacityOpenReuse) does more ----------------
    def _build_from_kept(self) -> bool:
        """Take over an earlier session's tree built on the same specs and total; True if done. The reference
        engine keeps none: every session builds its tree, as Volcano does."""
        return False

    def _accumulate(self) -> bool:
        """Step 3 of the tree build (every job into its leaf and its ancestors); True if the build stalled."""
        return self._accumulate_stepwise()

    def _keep_tree(self, notes_before: int) -> None:
        """Keep the tree just built for a later session on the same specs and total: the reference engine
        keeps nothing."""
        return None

    def _accumulate_stepwise(self) -> bool:
        """Step 3 of the tree build as Volcano does it: every job into its leaf, and the change that made
        to the leaf into each ancestor, job by job. True if the build stalled."""
        ssn = self.ssn
        whole_inqueue = ssn.options.older("pr5130")
        for job in ssn.jobs.values():
            attr = self.attrs.get(job.queue)
            if attr is None:
                continue
            if attr.children:
                self._stall(f"job {job.uid} is in queue {attr.name}, which has child queues "
                            "(jobs must be in leaf queues)", f"PodGroup/{job.uid}", "spec.queue")
                return True
            before = accumulated_parts(attr)
            accumulate_job(attr, job, whole_inqueue)
            deltas = (_delta(attr.allocated, before[0]), _delta(attr.request, before[1]),
                      _delta(attr.inqueue, before[2]), _delta(attr.elastic, before[3]))
            for anc in attr.ancestors:
                anc.allocated.add(deltas[0])
                anc.request.add(deltas[1])
                anc.inqueue.add(deltas[2])
                anc.elastic.add(deltas[3])
        return False

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
            inherit_capability(c.capability, pcap, not self.ssn.options.older("pr4504"))
            over, names = c.capability.greater_partly(pcap, INFINITY)
            if self.ssn.options.older("pr5176"):
                over, names = parent_less_partly_v114(pcap, c.capability)
            why = (f"queue {c.name} capability exceeds its parent {parent.name}'s on {', '.join(names)}: "
                   f"{self._over_text(c.capability, pcap, names)}" + self._root_total_words(parent)) if over else ""
            if over and self._stall_before_4864(why + uninherited_words_v112(self, parent, names), c.name,
                                                "spec.capability"):
                return
            if over:
                self.ssn.notes.append(f"capacity: {why} (Volcano only logs this)")
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
                f"children of {parent.name} deserve more than it does: their deserved adds up to "
                f"{self._sum_text(sum_d)}, its own is {self._sum_text(parent.deserved)}"
                + dropped_zero_words_v112(self, parent, sum_d), parent.name, "spec.deserved"):
            return
        if parent.deserved.less_partly(sum_d, ZERO) and parent.children:
            self.ssn.notes.append(f"capacity: children of {parent.name} deserve more than it does: their deserved "
                                  f"adds up to {self._sum_text(sum_d)}, its own is "
                                  f"{self._sum_text(parent.deserved)} (Volcano only logs this; its queue admission "
                                  "webhook would have rejected the child that made the sum exceed the parent's)")
        if parent.guarantee.less_partly(sum_g, ZERO) and parent.children and self._stall_before_4864(
                f"children of {parent.name} guarantee more than it does: their guarantee adds up to "
                f"{self._sum_text(sum_g)}, its own is {self._sum_text(parent.guarantee)}", parent.name,
                "spec.guarantee"):
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

    def _over_text(self, child: Resource, parent: Resource, names: list[str]) -> str:
        """'cpu 100 > 16, nvidia.com/gpu 4 > unset' for the dimensions a child's capability exceeds its parent's
        on, in the input's units ("unset" for a scalar the parent does not name)."""
        from capacity.plugins.figures import amount, value_of
        st = getattr(self.ssn.cluster, "unit_styles", None)
        have = parent.scalars or {}
        return ", ".join(f"{n} {amount(n, value_of(child, n), st)} > "
                         + (amount(n, value_of(parent, n), st) if n in ("cpu", "memory") or n in have else "unset")
                         for n in names)

    def _root_total_words(self, parent: QueueAttr) -> str:
        """' (root's capability is the cluster total ...)' where the build filled it so (seed 004, before PR
        #4973), for a capability check against root."""
        spec = self.ssn.queues[parent.name].capability
        if parent.name != ROOT or not self.ssn.options.seed004_root_init:
            return ""
        if spec is None or spec.is_empty() or self.ssn.options.older("pr4354"):
            return f" (root's capability is the cluster total: {self.ssn.options.older_words('pr4973')})"
        return ""

    def _sum_text(self, r: Resource) -> str:
        """'cpu 4, memory 4Gi' in the input's units, for a session note."""
        from capacity.core.quantity import format_resources
        return format_resources({n: v for n, v in to_dict(r).items() if n != "pods"},
                                getattr(self.ssn.cluster, "unit_styles", None))

    def _stall(self, why: str, obj: str, fld: str) -> None:
        self.ready = False
        self.not_ready_reason = why
        self.ssn.notes.append(f"capacity: readyToSchedule=false: {why}; capacity refuses every "
                              f"allocation, enqueue and reclaim this cycle ({obj} {fld})".strip())
