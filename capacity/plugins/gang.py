"""gang: all-or-nothing jobs (pkg/scheduler/plugins/gang/gang.go; spec actions-framework §9.1).

Its order key and victim bound: capacity.accel.plugin_forms."""

from __future__ import annotations

from capacity.core.model import Job, Task, TaskStatus
from capacity.framework.session import PERMIT, REJECT, Session
from capacity.plugins.base import Plugin


class GangPlugin(Plugin):
    name = "gang"

    def on_session_open(self, ssn: Session) -> None:
        self.ssn = ssn
        ssn.add_fn("jobValid", self.name, self.job_valid)
        ssn.add_fn("preemptable", self.name, self.victims)
        ssn.add_fn("reclaimable", self.name, self.victims)
        ssn.add_fn("jobOrder", self.name, self.job_order)
        ssn.add_fn("jobReady", self.name, self.job_ready)
        ssn.add_fn("jobPipelined", self.name, self.job_pipelined)
        ssn.add_fn("jobStarving", self.name, self.job_starving)

    def job_valid(self, job: Job) -> tuple[bool, str]:
        if job.roles_to_check and not job.check_task_valid():
            return False, "NotEnoughPodsOfTask: not enough valid pods of each task for gang-scheduling"
        index = job.index  # valid_task_num(), read straight off the status index
        vtn = job.ready_num + len(index.get(TaskStatus.PIPELINED) or ()) + len(index.get(TaskStatus.PENDING) or ())
        if vtn < job.min_available:
            return False, f"NotEnoughPods: not enough valid tasks for gang-scheduling, valid: {vtn}, " \
                          f"min: {job.min_available}"
        return True, ""

    def victims(self, preemptor: Task, preemptees: list[Task]) -> tuple[list[Task], int]:
        """Only a job's surplus above minAvailable may go; the first candidates seen take it."""
        occupied: dict[str, int] = {}
        victims: list[Task] = []
        trace = self.ssn.trace
        for t in preemptees:
            job = self.ssn.jobs[t.job]
            if job.uid not in occupied:
                occupied[job.uid] = job.ready_task_num()
            if occupied[job.uid] > job.min_available:
                occupied[job.uid] -= 1
                victims.append(t)
                if trace.enabled:
                    trace.because(self.name, "gangSurplus", f"{t.key} may go: job {job.uid} keeps "
                                  f"{occupied[job.uid]} ready tasks, at least minAvailable {job.min_available}",
                                  task=t.key, ready=occupied[job.uid] + 1, minAvailable=job.min_available)
            elif trace.enabled:
                trace.because(self.name, "gangMinAvailable",
                              f"{t.key} kept: job {job.uid} would fall below minAvailable "
                              f"{job.min_available}", task=t.key, ready=occupied[job.uid],
                              minAvailable=job.min_available)
        return victims, PERMIT

    @staticmethod
    def job_order(l: Job, r: Job) -> int:
        # Job.is_ready inline: called on every job comparison of every job heap.
        lr = l.ready_num + l.pending_best_effort_num >= l.min_available
        rr = r.ready_num + r.pending_best_effort_num >= r.min_available
        if lr == rr:
            return 0
        return 1 if lr else -1

    def job_ready(self, job: Job) -> bool:
        return job.check_task_ready() and job.is_ready()

    def job_pipelined(self, job: Job) -> int:
        if job.check_task_pipelined() and job.is_pipelined():
            return PERMIT
        return REJECT

    def job_starving(self, job: Job) -> bool:
        return job.is_starving()

    def not_starving_reason(self, job: Job) -> None:
        """The trace's reason for a False of `job_starving` (Session.job_starving asks, tracing only)."""
        waiting = job.waiting_task_num()
        self.ssn.trace.because(self.name, "notStarving",
                               f"job {job.uid} is not starving: ready {job.ready_num} + pipelined {waiting} "
                               f">= minAvailable {job.min_available}",
                               ready=job.ready_num, waiting=waiting, minAvailable=job.min_available)

    def on_session_close(self, ssn: Session) -> None:
        """Unschedulable or Scheduled condition per job with tasks (gang.go:229-321)."""
        for job in ssn.closing_jobs:  # (the others' conditions are those the last session's close gave them)
            if not job.tasks:
                continue
            if not job.is_ready():
                from capacity.core.model import TaskStatus
                releasing = job.releasing_scheduled_task_num()
                if (releasing > 0 and job.count(TaskStatus.PENDING) == 0
                        and job.count(TaskStatus.PIPELINED) == 0
                        and job.scheduled_task_num() + releasing >= job.min_available):
                    if not ssn.options.older("pr5796"):
                        continue
                    # gang.go:L237-238 @v1.15.0: no such skip, terminating pods leave the job Unschedulable
                    if ssn.trace.enabled:
                        ssn.trace.event("releasingUnschedulable", job.uid, False, self.name, switch="pr5796",
                                        words=f"{ssn.options.older_words('pr5796')}: {job.uid} is marked "
                                              "Unschedulable though its terminating pods still hold its places")
                schedulable = job.ready_task_num()
                job.unschedulable_this_session = True
                job.conditions["Unschedulable"] = {
                    "status": "True",
                    "message": f"{job.min_available - schedulable}/{len(job.tasks)} tasks in gang "
                               "unschedulable",
                }
            else:
                job.conditions["Scheduled"] = {"status": "True"}
