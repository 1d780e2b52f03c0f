"""The accelerated form of JobLists (capacity.framework.extension_points): with nothing traced, the actions range
over fewer jobs, leaving out those whose JobValid and JobStarving answers would have no effect but their trace
record. Traced, every job is asked, as in the reference engine, so the trace holds every record."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from capacity.core.model import Job, TaskStatus
from capacity.framework.extension_points import ReferenceJobLists

if TYPE_CHECKING:
    from capacity.framework.session import Session


class UntracedJobLists(ReferenceJobLists):
    """The jobs that can change a decision, found from the session's may-starve sets (SessionFast)."""

    __slots__ = ()

    def allocate_jobs(self, has_enqueue: bool) -> Iterable[Job]:
        ssn = self.ssn
        # With enqueue deciding the Pending jobs, only jobs holding a Pending task matter: all among those that
        # may starve (Session.may_starve_now), where known. A job with no Pending task places nothing; its
        # JobValid would only leave its trace. (Without enqueue a Pending job is still met: allocate admits it.)
        some = ssn.may_starve_now() if has_enqueue else None
        pending = TaskStatus.PENDING
        return [job for job in (ssn.jobs.values() if some is None else some)
                if job.index.get(pending) or (not has_enqueue and job.is_pending())]

    def preempt_jobs(self, older: bool) -> Iterable[Job]:
        ssn = self.ssn
        if not ssn.has_waiting_task():
            return []  # both phases pop preemptors from Pending tasks only: with none, nothing is tried
        if older:
            return ssn.jobs.values()
        # A job that cannot be starving is turned away unasked: the test that turns away nearly every job goes
        # first (the same jobs come through; their JobValid answers have no effect but their trace).
        candidates = ssn.starving_candidates()
        jobs = ssn.jobs.values() if candidates is None else candidates
        return [job for job in jobs if not job.is_pending() and ssn.job_starving(job)]

    def reclaim_jobs(self, queued: set[str]) -> Iterable[Job]:
        ssn = self.ssn
        if not ssn.has_waiting_task():
            return []  # every starving job's task queue would be empty: nothing to reclaim for
        return self._reclaim_jobs(queued)

    def _reclaim_jobs(self, queued: set[str]) -> Iterator[Job]:
        ssn = self.ssn
        candidates = ssn.starving_candidates()
        may_starve = None if candidates is None else {job.uid for job in candidates}
        for job in ssn.jobs.values():
            if may_starve is not None and job.uid not in may_starve and job.queue in queued:
                continue  # (the test below, first of all for most jobs; a pending job is passed over anyway)
            if job.is_pending():
                continue
            # A job whose queue is already queued matters only if it is starving, the cheaper test.
            known = ssn.queues.get(job.queue)
            if known is not None and known.name in queued and (
                    (may_starve is not None and job.uid not in may_starve) or not ssn.job_starving(job)):
                continue
            yield job

    def reclaim_skips_queues(self) -> bool:
        return True


def job_lists(ssn: Session) -> ReferenceJobLists:
    """ssn.job_lists: the untraced form where the engine allows it and nothing is traced, else every job."""
    return UntracedJobLists(ssn) if ssn.shortcuts else ReferenceJobLists(ssn)
