"""The accelerated engine's Session: the reference Session (capacity.framework.session) with the fast parts
composed on top (issue 28). The scheduler (capacity.scheduler, the composition root) opens this class unless
the engine switch says `reference`; the framework never imports it.

    SessionFast            order keys, victim bounds, the vectorised node fit (accel/session_fast.py)
    SessionSnapshotReuse   the snapshot and close over what a SnapshotCache kept (accel/snapshot_reuse.py)
    the extension points   ssn.reuse / ssn.tree_reuse / ssn.placement / ssn.victims (accel/extension_points.py)

Every override answers as the reference method it replaces (tests/unit/test_engines_agree.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from capacity.accel import Acceleration, engine
from capacity.accel.extension_points import open_extension_points, queue_tree_reuse, snapshot_reuse
from capacity.accel.session_fast import SessionFast, _job_key, _keyed_job_less
from capacity.accel.snapshot_reuse import SessionSnapshotReuse
from capacity.core.model import Job
from capacity.framework.session import Session

if TYPE_CHECKING:
    from capacity.accel.snapshot_cache import SnapshotCache
    from capacity.framework.extension_points import JobLists, NodePlacement, VictimPaths
    from capacity.framework.queue_tree_reuse import QueueTreeReuse
    from capacity.framework.reuse import SnapshotReuse


class AcceleratedSession(SessionFast, SessionSnapshotReuse, Session):
    """Session with the fast paths its Acceleration allows (CAPACITY_LAB_ENGINE chooses by default)."""

    def _acceleration(self, accel: Acceleration | None) -> Acceleration:
        return accel or engine()

    def _open_reuse(self, cache: SnapshotCache | None) -> tuple[SnapshotReuse, QueueTreeReuse]:
        return snapshot_reuse(cache), queue_tree_reuse(cache)

    def _open_extension_points(self) -> tuple[NodePlacement, VictimPaths, JobLists]:
        return open_extension_points(self)

    def job_less(self) -> Callable[[Job, Job], bool]:
        """Session.job_less as one comparison of kept keys where every jobOrder plugin has one (job_key)."""
        cached = self._less_cache.get("jobOrder")
        if cached is None:
            key = self.job_key()
            if key is None:
                return super().job_less()
            cached = self._less_cache["jobOrder"] = _keyed_job_less(key)
        return cached

    def job_key(self) -> Callable[[Job], tuple[Any, ...]] | None:
        """The job order as a key when every enabled jobOrder plugin has one (OrderKey): the plugins'
        keys in tier order, creation, UID, made once per job and kept on it (Job.order_key, dropped when
        its gang counters move). job_less(l, r) is then key(l) < key(r), and no two jobs' keys are equal."""
        pairs = self.flat("jobOrder")
        keys = self.order_keys.get("jobOrder", {})
        if not pairs or not all(name in keys for name, _fn in pairs):
            return None
        return _job_key(tuple(keys[name] for name, _fn in pairs), self.output_log)

    def release(self) -> None:
        """Session.release, and the NodeFit's cycles: nodes point at their NodeFit, placements at it."""
        fit = self._node_fit
        if fit is not None:  # only a NodeFit points nodes at itself
            self.reuse.released(fit)
            for placement in fit.placements.values():
                placement.per_node = placement.loop_args = placement.fit = placement.ssn = None  # type: ignore[assignment]
            for node in fit.nodes:
                node.fit = None
            fit.__dict__.clear()
        super().release()
