"""The session's snapshot, accelerated: the tasks of jobs and nodes a SnapshotCache kept, linked without a
scan of every pod, and the close of the jobs that did not change taken from the last session's.

The reference: SessionSnapshot._link (capacity.framework.snapshot) and Session.close over every job.
"""

from __future__ import annotations

from capacity.accel.pod_reading import PodReading
from capacity.core.model import Job, Task, TaskStatus
from capacity.framework.snapshot import SessionAttrs, _task


class SessionSnapshotReuse(SessionAttrs):
    """Session's snapshot and close over what a SnapshotCache kept (capacity.accel)."""

    def _all_tasks(self, jobs: dict[str, Job]) -> None:
        """`all_tasks`: every job's tasks. With the last session's jobs and their tasks at hand (the same
        uids, SnapshotCache.all_tasks, made of the very jobs dict `last_jobs` is) those of the jobs built anew
        replace their predecessors' only."""
        cache = self.cache
        last = cache.all_tasks if cache is not None else None
        if last is not None and last[0] is self.last_jobs is not None:
            all_tasks = self.all_tasks = dict(last[1])
            for job in self.fresh_jobs:
                for uid in self.last_jobs[job.uid].tasks:
                    del all_tasks[uid]
            for job in self.fresh_jobs:
                all_tasks.update(job.tasks)
        else:
            all_tasks = self.all_tasks
            for job in jobs.values():
                all_tasks.update(job.tasks)

    def _link_changed(self, jobs: dict[str, Job], reused: set[str], reading: PodReading) -> None:
        """`_link` from what the SnapshotCache's PodReading knows, visiting only what it must: the pods of
        jobs built anew and of none, and the nodes not taken as they are. A kept job holds the tasks of the
        very pods it was built from; a node taken as it is holds the same pods, its tasks and its mirror as
        the last session left them (no op changed it), which is this session's task wherever the pod's job
        was kept. Pods' uids are unique (else `_link`): `all_tasks` is then every job's tasks."""
        pods = self.cluster.pods
        done = (TaskStatus.SUCCEEDED, TaskStatus.FAILED)
        made: dict[str, Task] = {}  # per pod key, the task made for it
        for job in self.fresh_jobs:
            for key in reading.pods_of(job.uid):
                task = made[key] = _task(pods[key], job.uid)
                job.add_task(task)
        jobless = reading.jobless(jobs)
        for key in jobless:
            pod = pods[key]
            made[key] = _task(pod, f"{pod.namespace}/{pod.group}" if pod.group else "")
        self._all_tasks(jobs)
        nodes_get = self.nodes.get
        for name in reading.occupied:
            if name in reused:
                continue
            node = nodes_get(name)
            if node is None:
                continue
            for key in reading.pods_on(name):
                got = made.get(key)
                task = got if got is not None else reading.task_of(key, jobs)
                if task.status not in done:
                    node.add_task_unfitted(task)
                    node.mirror[task.key] = task
        for key, task in made.items():
            name = reading.node_of(key)
            if name in reused and task.status not in done:
                self.nodes[name].mirror[task.key] = task  # (this session's task in its pod's place)
        for key in jobless:
            task = made[key]
            name = reading.node_of(key)
            if name and name in self.nodes and task.status not in done:
                self.loose.append(task)

    def _closing_jobs(self) -> list[Job]:
        """The jobs whose close answers (gang's conditions, the phase, the pipelined tasks) the session must
        work out, in job order: all of them, or, with the last session's close at hand (`_last_close`) under
        the same plugins, only those built anew, those in which a task moved (the SnapshotCache's job_log)
        and those whose phase an action wrote (`phase_log`). Every other job is one the last session handed
        over as it closed it (SnapshotCache.keep: no task moved, its phase unchanged by the close) and
        nothing changed since: the same tasks in the same statuses, the same phase, the same plugins closing,
        so the same answers, already on the job (conditions) and in the last close's phases; and, no task
        having moved, none pipelined."""
        last, cache = self._last_close, self.cache
        if last is None or cache is None or last[0] != tuple(self.plugins):  # (a last close: kept by a cache)
            return list(self.jobs.values())
        todo = {job.uid for job in self.fresh_jobs}
        todo.update(job.uid for job in cache.job_log)
        todo.update(job.uid for job in self.phase_log)
        jobs = self.jobs
        return [jobs[uid] for uid in sorted(todo)]
