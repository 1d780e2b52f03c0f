"""SnapshotReuse (capacity.framework.reuse) over a SnapshotCache: the nodes, jobs and tasks an earlier session
left as they were built, taken over by the snapshot where their inputs are the very same."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from capacity.accel.snapshot_cache import SnapshotCache
from capacity.framework.reuse import KeptJobs

if TYPE_CHECKING:
    from capacity.accel.pod_reading import PodReading
    from capacity.core.cluster import NodeObj, PodObj
    from capacity.core.model import Job
    from capacity.framework.reuse import KeptNodes


class KeptSnapshot:
    """One session's reuse of a SnapshotCache (chosen at open: capacity.accel.extension_points)."""

    def __init__(self, cache: SnapshotCache) -> None:
        self.cache = cache
        self.reading = cache.pod_reading
        self.offered = KeptJobs({}, {}, set())
        self.since = 0
        self.moved: set[str] | None = None
        self.fresh_jobs: list[Job] = []
        self.output_log: list[Job] = cache.output_log
        self._in_job: dict[str, tuple[tuple[Any, ...], ...]] = {}

    def read_pods(self, pods: dict[str, PodObj]) -> None:
        # Per node and per job, every field of their pods that the snapshot reads (what a node or a job the
        # cache kept was built from), in pod order: the fields read last time, those of the pods written since
        # read again (PodReading).
        cache, reading = self.cache, self.reading
        self.since = reading.stamp
        cache.job_log.clear()
        self.offered = cache.take_jobs()
        self.moved = reading.read(pods)  # the jobs whose pods' fields changed (None: any)
        self._in_job = reading.in_job

    def nodes(self, cluster_nodes: list[NodeObj]) -> KeptNodes | None:
        return self.cache.nodes(cluster_nodes, self.reading.occupied)

    def take_victim_table(self) -> Any:
        return self.cache.take_victim_table()

    def podgroups_seen(self, world: tuple[Any, ...]) -> dict[str, Any]:
        # A PodGroup not written since the last snapshot, the same object, whose pods did not change, under the
        # same queues and priority classes, has the inputs its kept job was built from (if one was).
        reading = self.reading
        seen = reading.podgroups
        if self.moved is None or world != reading.world:
            seen = {}
        reading.world = world
        return seen

    def podgroups_to_read(self, podgroups: dict[str, Any]) -> list[str] | None:
        moved, offered = self.moved, self.offered
        if moved is None:
            return None
        return self.reading.podgroups_to_read(podgroups, self.since, moved, offered.jobs, offered.gone)

    def same_inputs(self, uid: str, pg: Any, priority: int, pre_raw: str | None, alike: set[str]) -> Job | None:
        offered = self.offered
        built = offered.built
        sig = (pg.name, pg.namespace, pg.queue, pg.min_member, tuple(pg.min_task_member.items()), priority,
               pre_raw, pg.creation, pg.phase, pg.min_resources, pg.annotations, pg.priority_class_name,
               self._in_job.get(uid, ()))
        got = offered.get(uid)
        if got is not None and built[uid] == sig:
            return got
        if uid in offered.jobs and built.get(uid) == sig:
            alike.add(uid)
        built[uid] = sig
        return None

    def built_anew(self, job: Job) -> None:
        self.fresh_jobs.append(job)
        job.change_log = self.cache.job_log

    def last_jobs(self, jobs: dict[str, Job]) -> dict[str, Job] | None:
        offered = self.offered.jobs
        if len(offered) == len(jobs) and all(job.uid in offered for job in self.fresh_jobs):
            return offered
        return None

    def unique_reading(self) -> PodReading | None:
        return None if self.reading.shared_uids else self.reading

    def may_starve(self, same: set[str]) -> set[str] | None:
        # A kept job's tasks and their statuses are those the last session opened with, so its answer is the
        # one then.
        cache = self.cache
        cache.may_starve = {uid for uid in cache.may_starve if uid in same}.union(
            job.uid for job in self.fresh_jobs if job.may_starve())
        return cache.may_starve

    def take_close(self) -> tuple[tuple[str, ...], dict[str, Job], dict[str, str]] | None:
        cache = self.cache
        last, cache.close_phases = cache.close_phases, None
        return last

    def hand_over(self, jobs: dict[str, Job], all_tasks: dict[str, Any], linked_from_reading: bool,
                  podgroups: dict[str, Any]) -> None:
        cache = self.cache
        if linked_from_reading:  # (all_tasks from _link_changed: every job's tasks)
            cache.all_tasks = (jobs, all_tasks)
        self.reading.podgroups = dict(podgroups)
        built = self.offered.built
        if len(built) > 2 * len(jobs) + 64:  # (entries of jobs long gone)
            built = {uid: built[uid] for uid in jobs}
        cache.hand_jobs(jobs, built)

    def closed(self, moved: set[str], plugins: tuple[str, ...], jobs: dict[str, Job], phases: dict[str, str]) -> None:
        self.cache.phase_moved = moved
        self.cache.close_phases = (plugins, jobs, dict(phases))

    def released(self, fit: Any) -> None:
        self.cache.fit_tables = fit.tables()
