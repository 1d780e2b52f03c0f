"""The typed extension point through which the capacity plugin's queue-attribute build reaches what an earlier
session kept of it (issue 28).

Volcano's capacity plugin builds its queue attributes afresh at every session open (buildQueueAttrs,
buildHierarchicalQueueAttrs: pkg/scheduler/plugins/capacity/capacity.go @ed72c7c8); so does CapacityTree,
calling `ssn.tree_reuse` where an accelerated engine takes over the parts that depend on the queue specs and the
cluster total alone. `NoTreeReuse` is the reference form (nothing kept); the accelerated form is
capacity.accel.capacity_keep.KeptQueueTree (over a SnapshotCache), chosen once at session open
(capacity.accel.extension_points.queue_tree_reuse).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from capacity.accel.capacity_open import FixedTree
    from capacity.core.model import Job
    from capacity.core.resources import Resource
    from capacity.framework.session import Session
    from capacity.plugins.capacity_attrs import FixedNumbers, QueueAttr


class FlatKept:
    """What the flat build may take over: per queue its FixedNumbers (`fixed`, None: none to keep), the last
    session's attribute with the jobs it accounted for (`last`), what the last session closed with (`closed`),
    and this session's jobs per queue (`by_queue`, filled only where `last` may be taken)."""

    __slots__ = ("fixed", "last", "closed", "by_queue")

    def __init__(self, fixed: dict[str, FixedNumbers] | None, last: dict[str, tuple[QueueAttr, list[Job]]],
                 closed: dict[str, tuple[QueueAttr, dict[str, Any]]] | None, by_queue: dict[str, list[Job]]) -> None:
        self.fixed = fixed
        self.last = last
        self.closed = closed
        self.by_queue = by_queue


class QueueTreeReuse(Protocol):
    """What the capacity plugin's attribute build may take over from an earlier session on the same specs."""

    def flat(self, ssn: Session, total: Resource) -> FlatKept:
        """buildQueueAttrs' kept parts for this session's specs and total."""
        ...

    def flat_built(self, kept: FlatKept, attrs: dict[str, QueueAttr]) -> None:
        """The flat build's attributes, with the jobs each accounted for, for the next session."""
        ...

    def kept_tree(self, plugin: str, ssn: Session, total: Resource) -> tuple[Any, FixedTree | None]:
        """The key of this session's specs and total, and the tree an earlier session built on the same key
        (None: none; the key is None where nothing is kept)."""
        ...

    def keep_tree(self, plugin: str, key: Any, make: Callable[[Any], FixedTree]) -> None:
        """Keep the tree `make(key)` builds, for later sessions on the same specs and total."""
        ...


class NoTreeReuse:
    """The reference form: nothing kept, everything built."""

    def flat(self, ssn: Session, total: Resource) -> FlatKept:
        return FlatKept(None, {}, None, {})

    def flat_built(self, kept: FlatKept, attrs: dict[str, QueueAttr]) -> None:
        return None

    def kept_tree(self, plugin: str, ssn: Session, total: Resource) -> tuple[Any, FixedTree | None]:
        return None, None

    def keep_tree(self, plugin: str, key: Any, make: Callable[[Any], FixedTree]) -> None:
        return None
