"""The capacity plugin's queue order, accelerated: what does not change within a session kept per pair of
queues, one `less` with the tie-break (Session.add_order_less), and the compiled heap (capacity_heap).

The reference is CapacityPlugin._queue_order, capacity.go's queueOrderFn as written.
"""

from __future__ import annotations

from typing import Any

from capacity.core.model import QueueSpec
from capacity.plugins.capacity_attrs import CapacityBase, QueueAttr, queue_level


class CapacityOrderMemo(CapacityBase):
    """CapacityPlugin's memoised queue order (capacity.accel)."""

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
        lq, rq, tie = pair  # type: ignore[misc]  # (not an int: tested above)
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
                return lp > rp
            pairs = self._order_pairs
            key = (l.name, r.name)
            pair = pairs.get(key)
            if pair is None:
                pair = pairs[key] = make(l, r)
            if pair.__class__ is int:
                return pair < 0 if pair != 0 else tie(l, r)
            lq, rq, then = pair  # type: ignore[misc]
            ls = lq.share
            rs = rq.share
            if ls == rs:
                return then < 0 if then != 0 else tie(l, r)
            return ls < rs

        return less

    def queue_heap(self, tie: Any, pops: int) -> Any:
        """allocate's queue heap over `queue_less(tie)` compiled, at scale (capacity_heap); else None."""
        from capacity.accel.capacity_heap import CapacityQueueHeap
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
        if self.best_effort_share != 1.0:  # equal shares tie before PR #4865 (compare_share)
            return la, ra, 0
        le, re_ = la.deserved.is_empty(), ra.deserved.is_empty()
        return la, ra, -1 if not le and re_ else 1 if le and not re_ else 0
