"""priority: task and job order by priority; preemption only of lower priority (spec §9.2).

pkg/scheduler/plugins/priority/priority.go. Its order key and victim bound: capacity.accel.plugin_forms."""

from __future__ import annotations

from capacity.core.model import Job, Task, TaskStatus
from capacity.framework.session import PERMIT, Session
from capacity.plugins.base import Plugin


def _priority_order(l: Job | Task, r: Job | Task) -> int:
    """Higher priority first, for task and job order alike."""
    lp = l.priority
    rp = r.priority
    if lp == rp:
        return 0
    return -1 if lp > rp else 1


class PriorityPlugin(Plugin):
    name = "priority"

    def on_session_open(self, ssn: Session) -> None:
        self.ssn = ssn
        ssn.add_fn("taskOrder", self.name, _priority_order)
        ssn.add_fn("jobOrder", self.name, _priority_order)
        ssn.add_fn("preemptable", self.name, self.preemptable)
        ssn.add_fn("jobStarving", self.name, self.job_starving)

    def preemptable(self, preemptor: Task, preemptees: list[Task]) -> tuple[list[Task], int]:
        pjob = self.ssn.jobs[preemptor.job]
        trace = self.ssn.trace
        victims = []
        for t in preemptees:
            job = self.ssn.jobs[t.job]
            if job.uid != pjob.uid:
                if job.priority >= pjob.priority:
                    if trace.enabled:
                        trace.because(self.name, "jobPriority", f"{t.key} kept: its job priority "
                                      f"{job.priority} is not below the preemptor's {pjob.priority}",
                                      task=t.key, victimJobPriority=job.priority, preemptorJobPriority=pjob.priority)
                    continue
            elif t.priority >= preemptor.priority:
                if trace.enabled:
                    trace.because(self.name, "taskPriority", f"{t.key} kept: its task priority "
                                  f"{t.priority} is not below the preemptor's {preemptor.priority}",
                                  task=t.key, victimPriority=t.priority, preemptorPriority=preemptor.priority)
                continue
            if trace.enabled:
                trace.because(self.name, "lowerPriority", f"{t.key} may go: lower priority than {preemptor.key}",
                              task=t.key)
            victims.append(t)
        return victims, PERMIT

    def job_starving(self, job: Job) -> bool:
        # ready_task_num() + waiting_task_num() < len(tasks), read straight off the counters (Job.may_starve
        # holds whenever this does: Session.starving_candidates)
        return job.ready_num + len(job.index.get(TaskStatus.PIPELINED) or ()) < len(job.tasks)

    def not_starving_reason(self, job: Job) -> None:
        """The trace's reason for a False of `job_starving` (Session.job_starving asks, tracing only)."""
        waiting = len(job.index.get(TaskStatus.PIPELINED) or ())
        self.ssn.trace.because(self.name, "notStarving",
                               f"job {job.uid} is not starving: ready {job.ready_num} + pipelined {waiting} "
                               f"= all {len(job.tasks)} tasks", ready=job.ready_num, waiting=waiting,
                               tasks=len(job.tasks))
