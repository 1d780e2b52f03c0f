"""QueueTreeReuse (capacity.framework.queue_tree_reuse) over a SnapshotCache: the capacity plugin's queue attributes'
fixed parts (capacity.accel.capacity_open: FixedTree, FixedNumbers), kept for later sessions on the same queue
specs and cluster total."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from capacity.framework.queue_tree_reuse import FlatKept

if TYPE_CHECKING:
    from capacity.accel.capacity_open import FixedTree
    from capacity.accel.snapshot_cache import SnapshotCache
    from capacity.core.model import Job
    from capacity.core.resources import Resource
    from capacity.framework.session import Session
    from capacity.plugins.capacity_attrs import QueueAttr


FLAT_STATE = "capacity.flat"
"""SnapshotCache.plugin_state key of flat capacity's kept state: (the specs' and total's key, per queue its
FixedNumbers, per queue the last session's attribute with the jobs it accounted for, per queue the attribute
the last session closed with and the summary it reported)."""


def _tree_key(ssn: Session, total: Resource) -> tuple[Any, ...]:
    """Everything the fixed part of the hierarchical build reads: each queue spec's parent and resources
    (by identity: specs are replaced, not changed in place, when edited), the total, the seed switch."""
    return (tuple((name, q.parent, q.capability, q.deserved, q.guarantee) for name, q in ssn.queues.items()),
            total.cpu, total.memory, tuple(total.scalars.items()) if total.scalars else None,
            ssn.options.seed004_root_init, ssn.options.all_lacking())


class KeptQueueTree:
    """The capacity plugin's kept state in a SnapshotCache (`plugin_state`), checked against the specs' key."""

    def __init__(self, cache: SnapshotCache) -> None:
        self.cache = cache

    def flat(self, ssn: Session, total: Resource) -> FlatKept:
        # An earlier session on the same specs and total made the same fixed parts.
        key = _tree_key(ssn, total)
        state = self.cache.plugin_state.get(FLAT_STATE)
        if state is None or state[0] != key:
            state = self.cache.plugin_state[FLAT_STATE] = (key, {}, {}, {})
        by_queue: dict[str, list[Job]] = {}
        for job in ssn.jobs.values():
            got = by_queue.get(job.queue)
            if got is None:
                by_queue[job.queue] = [job]
            else:
                got.append(job)
        return FlatKept(state[1], state[2], state[3], by_queue)

    def flat_built(self, kept: FlatKept, attrs: dict[str, QueueAttr]) -> None:
        last, by_queue = kept.last, kept.by_queue
        last.clear()
        last.update((name, (attr, by_queue[name])) for name, attr in attrs.items())

    def kept_tree(self, plugin: str, ssn: Session, total: Resource) -> tuple[Any, FixedTree | None]:
        key = _tree_key(ssn, total)
        fixed = self.cache.plugin_state.get(plugin)
        return key, (fixed if fixed is not None and fixed.key == key else None)

    def keep_tree(self, plugin: str, key: Any, make: Callable[[Any], FixedTree]) -> None:
        self.cache.plugin_state[plugin] = make(key)
