"""Nodes reclaim and preempt may pass over: where not even every possible victim would make room.

A node's attempt in reclaim or preempt starts with ValidateVictims: the preemptor must fit FutureIdle
plus the requests of the victims the plugins allow there. The victims are always among the node's
candidates, and with integral quantities (`Session.victim_bound_exact`) sums are exact and requests
never negative, so if the preemptor does not fit FutureIdle plus all the candidates, no victim set
validates: the attempt ends there, having changed nothing. Such nodes are passed over, and the action
files ONE record naming them all (extension_points.Skipped) instead of the plugins' votes node by node.

With tracing off the bound is tighter: only the candidates the plugins' bounds allow
(`Session.victim_possible`) count. It passes over more nodes, where the trace would have told which
plugin rule kept the candidates; so with tracing on every node where the candidates could make room is
still visited and its votes recorded. Either way the reference (per-node) and the vectorised paths pass
over exactly the same nodes and file the same record.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from capacity.accel.nodefit import NodeFit
from capacity.accel.session_fast import PluginBound, VictimBound
from capacity.core.model import PREEMPTABLE_STATUSES, Task, TaskStatus

if TYPE_CHECKING:
    from capacity.accel.session import AcceleratedSession as Session


def bound_for(ssn: Session, point: str, task: Task) -> VictimBound | None:
    """The plugins' bound on `point`'s victims when the session may take shortcuts and has victim bounds
    (capacity.accel); None (every candidate) otherwise, e.g. with tracing on."""
    return ssn.victim_possible(point, task) if ssn.shortcuts and ssn.accel.victim_bounds else None


_STATUS = operator.attrgetter("status")
_MAY_BE_CANDIDATE = PREEMPTABLE_STATUSES | TaskStatus.RELEASING
"""The statuses of the tasks a VictimTable holds: candidates now, or after a discarded eviction."""


class VictimTable:
    """Every task on a node that belongs to a session job, with its node, queue, job, requests (as
    NodeFit rows) and the flags the actions' candidate filters read: what reclaim and preempt need to
    find, for all nodes at once, the candidates on each node and the room they could make.

    Statuses are read again after every allocate / deallocate event (`refresh`). The candidates of both
    actions are Bound or Running, and such a task is on the node it was on when the table was built:
    tasks enter those statuses only in the snapshot or when a discarded eviction returns them to
    Running, and evictions leave them on their node. So the rows are the tasks that are Bound, Running
    or Releasing (evicted, maybe to come back) when it is built: no other task can be a candidate this
    session (after the first allocate of a cycle at the openb scale, 8,000 Binding tasks and no row).

    What the table works out is kept as long as what it read: per rows mask the requests summed per node
    and, per request too, the nodes where a task fits beside them (for the same FutureIdle); per test of
    a task's fixed fields (`static_answers`) or of a job's own counters (`job_answers`) the answers. A
    SnapshotCache hands the table, and all of that, to the next session (`_kept`)."""

    def __init__(self, ssn: Session, fit: NodeFit) -> None:
        self.fit = fit
        self.queue_ids: dict[str, int] = {}
        self.job_ids: dict[str, int] = {}
        self.tasks: list[Task] = []
        # Per test of a task's fixed fields (`static_answers`): its answer per row, -1 not asked yet.
        self.static: dict[Any, np.ndarray] = {}
        # Per test of a job's own state (`job_answers`): its answer per job id, -1 not asked (or asked before
        # the job's tasks last moved).
        self.per_job: dict[Any, np.ndarray] = {}
        self._set_rows(fit, _read_rows(ssn, fit, range(fit.n)))
        self._serve(ssn, fit)

    def _set_rows(self, fit: NodeFit, rows: list[tuple[Any, ...]]) -> None:
        """Columns from `rows` (NodeList order, each node's tasks in order), numbering queues and jobs on
        from the ids already given (ids are only compared, so any numbering answers the same)."""
        cols: list[tuple[Any, ...]] = list(zip(*rows, strict=True)) if rows else [()] * 9
        tasks, node_of, queue_of, job_of, preemptable, best_effort, cpu, memory, scalars = cols
        self.tasks = list(tasks)
        self.node = np.array(node_of, dtype=np.intp)
        self._bins: np.ndarray | None = None  # per dimension and row: its (dimension, node) bin (`_sums_of`)
        self._total: np.ndarray | None = None  # per dimension and node: every row's requests (`_whole`)
        self._total_asked = False
        self._sums: dict[bytes, np.ndarray] = {}  # per rows mask (its bytes): the requests summed per node
        # `_room`'s answers per rows mask and request, for the FutureIdle table `_rooms_fi` (compared again
        # whenever the NodeFit or its log changes: `_rooms_at`).
        self._rooms: dict[tuple[Any, ...], np.ndarray] = {}
        self._rooms_fi: np.ndarray | None = None
        self._rooms_at: tuple[Any, int] | None = None
        queue_ids, job_ids = self.queue_ids, self.job_ids
        for q in sorted(set(queue_of).difference(queue_ids)):
            queue_ids[q] = len(queue_ids)
        for j in sorted(set(job_of).difference(job_ids)):
            job_ids[j] = len(job_ids)
        self.job_uids = list(job_ids)  # (per job id, its uid)
        self.queue = np.array([queue_ids[q] for q in queue_of], dtype=np.intp)
        self.job = np.array([job_ids[j] for j in job_of], dtype=np.intp)
        self.preemptable = np.array(preemptable, dtype=bool)
        self.best_effort = np.array(best_effort, dtype=bool)
        req: list[Any] = [cpu, memory]
        for k in fit.scalar_dims:
            req.append([sc.get(k, 0.0) if sc else 0.0 for sc in scalars])
        self.req = np.array(req, dtype=float).reshape(len(fit.dims), len(self.tasks))  # NodeFit._row per task

    def _serve(self, ssn: Session, fit: NodeFit, statuses_kept: bool = False) -> None:
        """Bind the rows to `ssn`: the queues' reclaimable flags read now, statuses (unless `statuses_kept`:
        those last read are still every row's) and the plugins' answers on first use, and what the rows
        were read from, for a later session to check (`_kept`)."""
        self.fit = fit
        queues = ssn.queues
        reclaimable = np.array([q in queues and queues[q].reclaimable for q in self.queue_ids], dtype=bool)
        self.reclaimable = reclaimable[self.queue]  # (per queue id, then per row)
        self.base = fit.base
        self.dims_key = fit.dims_key
        self.version = -1  # (a kept table's version numbers are the last session's)
        self.refresh(ssn, read=not statuses_kept)

    def _splice(self, ssn: Session, fit: NodeFit, redo: np.ndarray) -> None:
        """Read the rows of the nodes flagged in `redo` again, keep the others', in NodeList order."""
        keep = ~redo[self.node]
        at = redo.nonzero()[0]
        fresh = _read_rows(ssn, fit, at.tolist())
        tasks, old_node = list(self.tasks), self.node
        node, queue, job = self.node[keep], self.queue[keep], self.job[keep]
        preemptable, best_effort, req = self.preemptable[keep], self.best_effort[keep], self.req[:, keep]
        self._set_rows(fit, fresh)
        fresh_node, fresh_tasks = self.node, self.tasks
        order = np.argsort(np.concatenate((node, self.node)), kind="stable")
        self.node = np.concatenate((node, self.node))[order]
        self.queue = np.concatenate((queue, self.queue))[order]
        self.job = np.concatenate((job, self.job))[order]
        self.preemptable = np.concatenate((preemptable, self.preemptable))[order]
        self.best_effort = np.concatenate((best_effort, self.best_effort))[order]
        self.req = np.concatenate((req, self.req), axis=1)[:, order]
        # The tasks likewise, but by replacing each node's run of rows, from the last (a few slices rather
        # than a Python loop over every row: the redone nodes are few).
        lo, hi = old_node.searchsorted(at).tolist(), old_node.searchsorted(at + 1).tolist()
        f_lo, f_hi = fresh_node.searchsorted(at).tolist(), fresh_node.searchsorted(at + 1).tolist()
        for k in reversed(range(len(lo))):
            tasks[lo[k]:hi[k]] = fresh_tasks[f_lo[k]:f_hi[k]]
        self.tasks = tasks
        unasked = np.full(len(fresh), -1, dtype=np.int8)
        self.static = {test: np.concatenate((got[keep], unasked))[order] for test, got in self.static.items()}
        self._serve(ssn, fit)

    def static_answers(self, test: Callable[[Task], bool], rows: np.ndarray) -> np.ndarray:
        """`test` on the tasks of `rows` (positions), for a test that reads only a task's fixed fields
        (its spec, namespace ...): each row's answer is kept as long as the table keeps the row, by later
        sessions too (a bound's `vector` form for such a test)."""
        got = self.static.get(test)
        if got is None:
            got = self.static[test] = np.full(len(self.tasks), -1, dtype=np.int8)
        ask = rows[got[rows] < 0]
        if len(ask):
            tasks = self.tasks
            got[ask] = [test(tasks[k]) for k in ask.tolist()]
        return got[rows] > 0

    def refresh(self, ssn: Session, read: bool = True) -> None:
        """After an allocate / deallocate event: the statuses read again (unless not `read`), and every
        answer that reads the session's state dropped."""
        if self.version == ssn.version:
            return
        if read:
            self.status = np.fromiter(map(_STATUS, self.tasks), dtype=np.int64, count=len(self.tasks))
        self._forget_moved(ssn)
        self.flags: dict[Any, np.ndarray] = {}  # per bound key: 1 possible, 0 not, -1 not asked yet
        self._by_status: dict[Any, np.ndarray] = {}  # the filters' masks that read statuses (`_status_rows`)
        self._pooled: dict[Any, np.ndarray] = {}  # per pool and bound keys: `_allowed_in_pool`
        self.version = ssn.version

    def _status_rows(self, key: Any) -> np.ndarray:
        """The rows of reclaim's ("reclaim") or preempt's (("preempt", BestEffort preemptor)) candidates
        before the queue and job tests: made once per statuses read (`refresh`), asked once per preemptor."""
        got = self._by_status.get(key)
        if got is None:
            if key == "reclaim":
                got = (self.status == TaskStatus.RUNNING) & self.preemptable & self.reclaimable
            else:
                got = ((self.status & PREEMPTABLE_STATUSES) != 0) & self.preemptable
                if key[1]:
                    got &= self.best_effort
            self._by_status[key] = got
        return got

    def job_answers(self, ssn: Session, key: Any, answer: Callable[[np.ndarray], Any]) -> np.ndarray:
        """Per job id, `answer(ids)` for a test that reads only the job's own state (its counters, which
        move only with its tasks' statuses) and the session's job of that uid: each job's answer is kept
        until its tasks move (the SnapshotCache's job log, at `refresh`) or, across sessions, until its
        job is built anew or gone (`forget_jobs`). True per job id where the test holds."""
        self.refresh(ssn)
        got = self.per_job.get(key)
        n = len(self.job_uids)
        if got is None or len(got) < n:
            old = got
            got = self.per_job[key] = np.full(n, -1, dtype=np.int8)
            if old is not None:
                got[:len(old)] = old
        ask = np.flatnonzero(got < 0)
        if len(ask):
            got[ask] = answer(ask)
        return got > 0

    def forget_jobs(self, ids: np.ndarray) -> None:
        """The answers of `job_answers` for these job ids are no longer to be trusted."""
        for got in self.per_job.values():
            got[ids[ids < len(got)]] = -1

    def _forget_moved(self, ssn: Session) -> None:
        """At a new version: forget the `job_answers` of the jobs whose tasks moved in the session (all of
        them without a job log, or when those are many)."""
        if not self.per_job:
            return
        log = ssn.cache.job_log if ssn.cache is not None else None
        if log is None or 4 * len(log) > len(self.job_uids):
            self.per_job.clear()
            return
        ids = self.job_ids
        self.forget_jobs(np.array([k for job in log if (k := ids.get(job.uid)) is not None], dtype=np.intp))

    # ---- the actions' candidate filters, as row masks ------------------------------------------------
    def reclaimees(self, ssn: Session, queue: str) -> np.ndarray:
        """reclaim's: Running, preemptable, of another queue that is reclaimable."""
        self.refresh(ssn)
        return self._status_rows("reclaim") & (self.queue != self.queue_ids.get(queue, -1))

    def preemptees(self, ssn: Session, preemptor: Task, queue: str | None, job: str) -> np.ndarray:
        """preempt's: Bound or Running, preemptable, BestEffort if the preemptor is; then of another job
        of `queue` (queue given) or of `job` (queue None)."""
        self.refresh(ssn)
        rows = self._status_rows(("preempt", preemptor.best_effort))
        jid = self.job_ids.get(job, -1)
        if queue is None:
            return rows & (self.job == jid)
        return rows & (self.queue == self.queue_ids.get(queue, -1)) & (self.job != jid)

    # ---- room -----------------------------------------------------------------------------------------
    def plan(self, task: Task, rows: np.ndarray, keep: np.ndarray, possible: VictimBound | None,
             pool: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """NodeList masks, meaningful on `keep`: nodes holding candidates (`rows`), and nodes where the
        task fits FutureIdle plus every candidate `possible` allows (room_bound_fails is false), or, when
        no node holding candidates is among those, any superset of them.

        `pool` (a `_status_rows` key whose rows include `rows`) lets many preemptors share one answer
        first: what `possible` allows among all the pool's rows (`_allowed_in_pool`) includes what it
        allows among a preemptor's candidates (`_allowed` is monotone in its rows: fewer rows never let a
        node's tier through that more rows stopped). If the task fits nowhere with that wider set, it fits
        nowhere with the exact one, and the exact sets are never asked: the nodes holding candidates, and
        so the nodes visited and passed over, are the same either way."""
        fit = self.fit
        cand = rows
        room = self._room(task, cand)  # (all candidates: the sums of a node in `keep` are the same)
        rows = rows & keep[self.node]
        has = np.zeros(fit.n, dtype=bool)
        has[self.node[rows]] = True
        if possible is not None and (room & has).any():
            pooled = None if pool is None else self._pool_room(task, cand, possible, pool)
            if pooled is not None:
                wide_room = room & pooled
                if not (wide_room & has).any():
                    return has, wide_room
            rows &= room[self.node]  # elsewhere not even all candidates make room: no need to ask
            room = room & self._room(task, self._allowed(possible, rows))
        return has, room

    def room_nowhere(self, task: Task, rows: np.ndarray, possible: VictimBound, pool: Any) -> bool:
        """True if `plan(task, rows, keep, possible, pool)` finds no node to visit whatever `keep` is: on
        no node at all does the task fit beside every candidate, or beside those the bounds allow among
        the pool's (a superset of what they allow among `rows`: see `plan`). So the nodes a preemptor may
        not use (its predicates, its unresolvable fit errors) need not be worked out."""
        room = self._room(task, rows)
        if not room.any():
            return True
        pooled = self._pool_room(task, rows, possible, pool)
        return pooled is not None and not (room & pooled).any()

    def _pool_room(self, task: Task, rows: np.ndarray, possible: VictimBound, pool: Any) -> np.ndarray | None:
        """Nodes where the task fits beside the candidates (`rows`) that the bounds allow among the pool's
        rows: a superset of where it fits beside those they allow among `rows` alone (see `plan`); None if
        a bound's answers are not shared. (On a node, the candidates' rows of the wide set are the same
        whatever the preemptor may use, so the sums are kept per queue across sessions.)"""
        wide = self._allowed_in_pool(possible, pool)
        return None if wide is None else self._room(task, wide & rows)

    def _allowed_in_pool(self, possible: VictimBound, pool: Any) -> np.ndarray | None:
        """`_allowed` over every row of the `_status_rows` pool, kept per bound keys until the statuses
        are read again (as the flags are); None if a bound has no key (its answers are not shared)."""
        keys = []
        for bounds, last in possible.tiers:
            if any(b.key is None for b in bounds) or (last is not None and last.key is None):
                return None
            keys.append((tuple(b.key for b in bounds), None if last is None else last.key))
        key = (pool, tuple(keys))
        got = self._pooled.get(key)
        if got is None:
            got = self._pooled[key] = self._allowed(possible, self._status_rows(pool))
        return got

    def _room(self, task: Task, rows: np.ndarray) -> np.ndarray:
        """Nodes where the task fits FutureIdle plus the requests of the table's `rows` there. The sums
        depend on the rows alone, so they are kept per rows mask while the table keeps its rows: for the
        next preemptor with the same candidates (reclaim's of one queue) or the same allowed victims, and
        for the same preemptors again next cycle. The answers read the sums, the request and FutureIdle:
        they are kept per rows mask and request while FutureIdle holds the same values (`_current_rooms`)."""
        key = rows.tobytes()
        sums = self._sums.get(key)
        if sums is None:
            if len(self._sums) >= 256:
                self._sums.clear()
            sums = self._sums[key] = self._sums_of(rows)
        fit = self.fit
        r = task.init_resreq
        if fit.dirty:  # (FutureIdle not brought up to date: not the table the answers were made with)
            return fit.fit(r, fit.bound(sums))[0]
        rooms = self._current_rooms(fit)
        s = r.scalars
        at = (key, r.cpu, r.memory, tuple(s.items()) if s else ())
        got = rooms.get(at)
        if got is None:
            if len(rooms) >= 1024:
                rooms.clear()
            got = rooms[at] = fit.fit(r, fit.bound(sums))[0]
            got.flags.writeable = False  # (handed out again: nobody may narrow it in place)
        return got

    def _current_rooms(self, fit: NodeFit) -> dict[tuple[Any, ...], np.ndarray]:
        """`_room`'s kept answers, dropped unless FutureIdle is the table they were made with: checked when
        the NodeFit is another (a later session's) or has refreshed nodes since (its log grew), by the
        values themselves (a steady cycle's NodeFit holds the last one's values: the answers carry over)."""
        at = (fit, len(fit.log))
        if self._rooms_at is None or self._rooms_at[0] is not fit or self._rooms_at[1] != at[1]:
            fi = self._rooms_fi
            if fi is None or fi.shape != fit.fi.shape or not np.array_equal(fi, fit.fi):
                self._rooms.clear()
                self._rooms_fi = fit.fi.copy()
            self._rooms_at = at
        return self._rooms

    def _sums_of(self, rows: np.ndarray) -> np.ndarray:
        """Per NodeFit dimension and node, the requests of the table's `rows` there.

        Summed over the rows asked for alone, or, when they are most of the table (reclaim's candidates
        are all but a few dozen rows), as every row's sums less those of the rows not asked for. Either
        way each sum is the same value: with integral, non-negative requests whose node totals are below
        2**53 (`_whole`) every partial sum is an exact integer, so neither the order of the additions nor
        taking a sum away can round; otherwise only the rows asked for are summed."""
        dims = self.req.shape[0]
        sums = np.zeros_like(self.fit.fi)
        if 2 * np.count_nonzero(rows) > len(self.tasks):
            whole = self._whole()
            if whole is not None:
                sums[:dims] = whole - self._gathered(np.flatnonzero(~rows))
                return sums
        sums[:dims] = self._gathered(np.flatnonzero(rows))
        return sums

    def _gathered(self, at: np.ndarray) -> np.ndarray:
        """Per dimension and node, the requests of the rows at positions `at` (ascending): one bincount
        over those rows of every dimension, each node's in row order."""
        dims, n, count = self.req.shape[0], self.fit.n, len(self.tasks)
        bins = self._bins
        if bins is None:
            bins = self._bins = (np.arange(dims)[:, None] * n + self.node[None, :]).ravel()
        flat = (np.arange(dims)[:, None] * count + at).ravel()  # (row `at` of each dimension, flattened)
        return np.bincount(bins.take(flat), weights=self.req.ravel().take(flat), minlength=dims * n).reshape(dims, n)

    def _whole(self) -> np.ndarray | None:
        """Every row's requests summed per dimension and node, if taking sums away from them is exact
        (`_sums_of`); None if not. Kept while the table keeps its rows."""
        if not self._total_asked:
            req = self.req
            total = self._gathered(np.arange(len(self.tasks)))
            exact = bool((req >= 0).all() and (req == np.floor(req)).all() and (total < 2.0**53).all())
            self._total = total if exact else None
            self._total_asked = True
        return self._total

    def _allowed(self, possible: VictimBound, rows: np.ndarray) -> np.ndarray:
        """VictimBound.allowed for every node at once: the rows (candidates) it keeps.

        Each bound of a tier is asked only about the rows on nodes where every bound before it allows some
        row: elsewhere the tier answers nothing whatever it says (and a tier dead everywhere asks no more)."""
        out = np.zeros(len(self.tasks), dtype=bool)
        node = self.node
        for bounds, last in possible.tiers:
            tier_rows = rows
            for b in bounds:
                some = np.zeros(self.fit.n, dtype=bool)
                some[node[tier_rows & self._flags(b, tier_rows)]] = True
                tier_rows = tier_rows & some[node]
                if not tier_rows.any():
                    break
            if last is None:
                out |= tier_rows
            else:
                out |= tier_rows & self._flags(last, tier_rows)
        return out

    def _flags(self, bound: PluginBound, rows: np.ndarray) -> np.ndarray:
        """bound.test on the table's `rows` (False elsewhere), reusing answers under the bound's key."""
        if bound.key is None:
            out = np.zeros(len(self.tasks), dtype=bool)
            ask = rows.nonzero()[0]
            out[ask] = self._ask(bound, ask)
            return out
        flags = self.flags.get(bound.key)
        if flags is None:
            flags = self.flags[bound.key] = np.full(len(self.tasks), -1, dtype=np.int8)
        ask = (rows & (flags < 0)).nonzero()[0]
        if len(ask):
            flags[ask] = self._ask(bound, ask)
        return flags > 0

    def _ask(self, bound: PluginBound, rows: np.ndarray) -> Any:
        """bound.test on the tasks of `rows` (positions): by its vector form if it has one."""
        if bound.vector is not None:
            return bound.vector(self, rows)
        tasks, test = self.tasks, bound.test
        return [test(tasks[k]) for k in rows.tolist()]


def victim_table(ssn: Session, fit: NodeFit) -> VictimTable:
    """The session's VictimTable (built on first use, or the last session's taken over), current with the
    session's state."""
    table = getattr(ssn, "_victim_table", None)
    if table is None or table.fit is not fit:
        table = _kept(ssn, fit)
        if table is None:
            table = VictimTable(ssn, fit)
        if ssn.cache is not None:
            ssn.cache.victim_table = table  # (for the next session only: SnapshotCache.take_victim_table)
        ssn._victim_table = table  # type: ignore[attr-defined]
    table.refresh(ssn)
    return table


def _kept(ssn: Session, fit: NodeFit) -> VictimTable | None:
    """The VictimTable a SnapshotCache kept, taken over with the rows of some nodes read again.

    The table must be the one the session just before used (SnapshotCache.take_victim_table). Rows are
    the session tasks on nodes that are Bound, Running or Releasing when the table is built; no
    action before the first build evicts, and the statuses tasks enter later are not those, so rows are a
    function of the snapshot (VictimTable). A task the snapshot takes over with its job (SnapshotCache:
    the job's inputs the same, nothing moved in it) is on the same node in the same status: its row is
    the same, at the same position if the NodeList is the same nodes (the same NodeBase). So only the
    nodes of rows no longer the session's task of their pod (their job built anew, or gone) and those
    holding a task of a job built anew in one of those statuses (a new row) are read again: in a steady
    S1 cycle, none of 1,523. Where every pod has its own uid, the stale rows are those of the jobs the
    session did not take as kept (Session.kept_jobs), found without looking at each row's task.
    """
    table = ssn.last_victim_table
    ssn.last_victim_table = None
    if table is None or table.base is not fit.base or table.dims_key != fit.dims_key:
        return None
    redo = np.zeros(fit.n, dtype=bool)
    kept = ssn.kept_jobs
    if kept is not None:  # (the rows of kept jobs are their tasks': only other jobs' rows are stale)
        ids = table.job_ids
        renewed = np.array([ids[uid] for uid in ids.keys() - kept], dtype=np.intp)  # (built anew, or gone)
        stale: Any = np.isin(table.job, renewed).nonzero()[0]
        table.forget_jobs(renewed)  # (a kept job's tasks did not move in the last session)
    else:
        get = ssn.all_tasks.get
        stale = [k for k, t in enumerate(table.tasks) if get(t.uid) is not t]
        table.per_job.clear()
    if len(stale):
        redo[table.node[stale]] = True
    pos = fit.pos
    for job in ssn.fresh_jobs:
        for t in job.tasks.values():
            if t.node_name and t.status & _MAY_BE_CANDIDATE:
                i = pos.get(t.node_name)
                if i is not None:
                    redo[i] = True
    if not redo.any():
        # Every row's job was kept, so none of its tasks moved in the last session (a job where one did is
        # built anew): each row's status is the one the last session read last (Task.status is written
        # only by Job.update_task_status, which logs the job).
        table._serve(ssn, fit, statuses_kept=True)
    elif redo.sum() * 4 > fit.n:
        return None  # (reading most nodes again: as cheap to build afresh)
    else:
        table._splice(ssn, fit, redo)
    return table


def _read_rows(ssn: Session, fit: NodeFit, positions: Iterable[int]) -> list[tuple[Any, ...]]:
    """The table's rows on the nodes at `positions` (ascending), one tuple per row: task, node position,
    queue, job, preemptable, BestEffort, cpu, memory, scalars."""
    get_task, get_job = ssn.all_tasks.get, ssn.jobs.get
    nodes = fit.nodes
    rows: list[tuple[Any, ...]] = []
    append = rows.append
    for i in positions:
        for nt in nodes[i].tasks.values():
            t = get_task(nt.uid)
            if t is not None and t.status & _MAY_BE_CANDIDATE:
                job = get_job(t.job)
                if job is not None:
                    r = t.resreq
                    append((t, i, job.queue, t.job, t.preemptable, t.best_effort, r.cpu, r.memory, r.scalars))
    return rows
