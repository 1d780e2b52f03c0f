"""Which form of each extension point a session holds (capacity.framework.extension_points,
capacity.framework.reuse, capacity.framework.queue_tree_reuse): the reference forms, or their accelerated forms, as
the session's Acceleration allows."""

from __future__ import annotations

from typing import TYPE_CHECKING

from capacity.framework.extension_points import (
    JobLists,
    NodePlacement,
    ReferencePlacement,
    ReferenceVictims,
    VictimPaths,
)
from capacity.framework.queue_tree_reuse import NoTreeReuse, QueueTreeReuse
from capacity.framework.reuse import NoReuse, SnapshotReuse

if TYPE_CHECKING:
    from capacity.accel.session import AcceleratedSession as Session
    from capacity.accel.snapshot_cache import SnapshotCache


def open_extension_points(ssn: Session) -> tuple[NodePlacement, VictimPaths, JobLists]:
    """ssn.placement, ssn.victims and ssn.job_lists, chosen once at session open (after SessionFast._open_fast).
    The accelerated forms are imported here, not with the engine: they bring numpy's node tables, which `--help`
    and the engine's first import do not need (issue 33)."""
    from capacity.accel.allocate_fit import AcceleratedPlacement
    from capacity.accel.job_lists import job_lists
    from capacity.accel.victim_paths import AcceleratedVictims
    placement = AcceleratedPlacement(ssn) if ssn.vectorised else ReferencePlacement(ssn)
    victims = AcceleratedVictims(ssn) if ssn.accel.victim_bounds else ReferenceVictims(ssn)
    return placement, victims, job_lists(ssn)


def snapshot_reuse(cache: SnapshotCache | None) -> SnapshotReuse:
    """ssn.reuse, chosen once at session open: the SnapshotCache's kept parts where the session has one (the
    Acceleration allows it and a Simulator hands one on), else nothing kept."""
    if cache is None:
        return NoReuse()
    from capacity.accel.snapshot_keep import KeptSnapshot
    return KeptSnapshot(cache)


def queue_tree_reuse(cache: SnapshotCache | None) -> QueueTreeReuse:
    """The capacity plugin's reuse of its queue tree's fixed parts (the same choice as `snapshot_reuse`)."""
    if cache is None:
        return NoTreeReuse()
    from capacity.accel.capacity_keep import KeptQueueTree
    return KeptQueueTree(cache)
