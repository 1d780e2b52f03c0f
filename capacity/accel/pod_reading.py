"""What the last snapshot read of a cluster's pods, brought up to date from their revisions.

A snapshot with a SnapshotCache takes a node or a job as the last session left it only if its pods' fields
are those it was built from: per node and per job, the fields of their pods in pod order (`pod_fields`).
Reading them for every pod (8,152 in a steady openb cycle) and every PodGroup was most of the snapshot, although a
cycle writes a handful. PodObj stamps every write to a field (`rev`, capacity.core.cluster.revision), so a pod
that is the same object, at the same key, not written since the last reading, has the fields read then:
only pods written, added, replaced or removed since are read again, and only their nodes' and jobs' lists
are made again. A cluster whose surviving pods changed order is read afresh.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any

import numpy as np

from capacity.core.cluster import revision

if TYPE_CHECKING:
    from capacity.core.cluster import PodObj

_rev = operator.attrgetter("rev")


def pod_fields(p: PodObj) -> tuple[Any, ...]:
    """Every field of a pod that the snapshot reads."""
    return (p.uid, p.name, p.namespace, p.group, p.role, p.resreq, p.priority, p.preemptable,
            p.phase, p.deleting, p.spec, p.sch_gated, p.nominated_node, p.node_name)


class PodReading:
    """Per node and per job, the fields of their pods (in the cluster's pod order) as of the last `read`."""

    def __init__(self) -> None:
        self.stamp = 0  # revision() when last read: a pod written since has a later `rev`
        self._keys: list[str] = []  # the pods' keys and objects as last read, in order
        self._objs: list[PodObj] = []
        self._pos: dict[str, int] = {}  # per key, its position then
        self._fields: dict[str, tuple[Any, ...]] = {}  # per key, pod_fields then
        self._node_of: dict[str, str] = {}  # per key, the node it was on ("" none) and its job ("" none)
        self._job_of: dict[str, str] = {}
        self._on_node: dict[str, dict[str, None]] = {}  # per node / job: the keys of its pods (as a set)
        self._in_job: dict[str, dict[str, None]] = {}
        self._groupless: dict[str, None] = {}  # the keys of the pods of no PodGroup
        self._uids: dict[str, int] = {}  # per pod uid, how many pods have it
        self.shared_uids = 0  # how many uids more than one pod has
        self.occupied: dict[str, tuple[tuple[Any, ...], ...]] = {}  # per node with pods: their fields, in order
        self.in_job: dict[str, tuple[tuple[Any, ...], ...]] = {}  # per job with pods: likewise
        # Kept for the snapshot, which reads PodGroups: those it last read, and what it read them with (the
        # queues' names, the priority classes).
        self.podgroups: dict[str, Any] = {}
        self.world: Any = None
        self.quiet = False  # whether nothing was written between the last two readings (`read`)

    def read(self, pods: dict[str, PodObj]) -> set[str] | None:
        """Bring `occupied` and `in_job` up to `pods`; answer the jobs whose entry changed, or None if every
        entry was made afresh."""
        stamp = revision()
        keys = list(pods)
        objs = list(pods.values())
        last = self.stamp
        self.stamp = stamp
        # No stamp was drawn between the last reading's and this one's: no field of any PodObj or PodGroupObj
        # was written in between (every write draws one), and no object's `rev` needs looking at.
        self.quiet = stamp == last + 1
        if not self._keys:
            self._afresh(keys, objs)
            return None
        if keys == self._keys:
            if self.quiet:
                changed = []
            else:
                revs = np.fromiter(map(_rev, objs), dtype=np.int64, count=len(objs))
                changed = np.flatnonzero(revs > last).tolist()
            if not all(map(operator.is_, objs, self._objs)):
                old = self._objs
                changed.extend(i for i, p in enumerate(objs) if p is not old[i])
            removed: list[str] = []
            pos = self._pos
        else:
            pos = {k: i for i, k in enumerate(keys)}
            old_pos = self._pos
            if [k for k in keys if k in old_pos] != [k for k in self._keys if k in pos]:
                self._afresh(keys, objs)  # (survivors in another order: every list may change)
                return None
            old = self._objs
            removed = [k for k in self._keys if k not in pos]
            changed = [i for i, (k, p) in enumerate(zip(keys, objs, strict=True))
                       if p.rev > last or (j := old_pos.get(k)) is None or old[j] is not p]
        self._keys, self._objs, self._pos = keys, objs, pos
        if not changed and not removed:
            return set()
        nodes: set[str] = set()
        jobs: set[str] = set()
        for k in removed:
            self._leave(k, nodes, jobs)
        fields, node_of, job_of = self._fields, self._node_of, self._job_of
        for i in set(changed):
            k, p = keys[i], objs[i]
            self._leave(k, nodes, jobs)
            fields[k] = pod_fields(p)
            self._count(p.uid, 1)
            node, job = p.node_name, (f"{p.namespace}/{p.group}" if p.group else "")
            node_of[k], job_of[k] = node, job
            if node:
                self._on_node.setdefault(node, {})[k] = None
                nodes.add(node)
            if job:
                self._in_job.setdefault(job, {})[k] = None
                jobs.add(job)
            else:
                self._groupless[k] = None
        self._redo(nodes, self._on_node, self.occupied)
        self._redo(jobs, self._in_job, self.in_job)
        return jobs

    def _leave(self, key: str, nodes: set[str], jobs: set[str]) -> None:
        """Take a pod as last read out of its node's and job's entries (marking them to be made again)."""
        got = self._fields.pop(key, None)
        if got is None:
            return
        self._count(got[0], -1)
        node, job = self._node_of.pop(key), self._job_of.pop(key)
        if not job:
            del self._groupless[key]
        if node:
            del self._on_node[node][key]
            nodes.add(node)
        if job:
            del self._in_job[job][key]
            jobs.add(job)

    def _count(self, uid: str, step: int) -> None:
        n = self._uids.get(uid, 0)
        self.shared_uids += (n + step > 1) - (n > 1)
        if n + step:
            self._uids[uid] = n + step
        else:
            del self._uids[uid]

    def podgroups_to_read(self, podgroups: dict[str, Any], since: int, moved: set[str], kept: dict[str, Any],
                          gone: set[str]) -> list[str] | None:
        """The uids of the PodGroups whose job the snapshot must look at, in `podgroups` order: all but
        those the very objects it read last time (`self.podgroups`), not written since `since`, whose pods
        did not move (`moved`), with a kept job (in `kept`, not `gone`), each of which it takes as it is.
        None when the PodGroups are not those read last (other keys, order or objects): then it looks at
        each. Found with one C pass per test rather than a Python step per PodGroup (8,152 in openb)."""
        seen = self.podgroups
        if len(seen) != len(podgroups) or not seen:
            return None
        keys = list(podgroups)
        objs = list(podgroups.values())
        if keys != list(seen) or not all(map(operator.is_, objs, seen.values())):
            return None
        todo: set[str] = set()
        if not self.quiet:  # (else no PodGroup was written since the last reading, at `since`)
            revs = np.fromiter(map(_rev, objs), dtype=np.int64, count=len(objs))
            todo.update(keys[i] for i in np.flatnonzero(revs >= since).tolist())
        todo.update(podgroups.keys() & moved, podgroups.keys() & gone)
        # (the jobs kept are the last session's, of PodGroups it read, which are these: with as many, every
        # PodGroup has one)
        if len(kept) != len(podgroups):
            todo.update(podgroups.keys() - kept.keys())
        return list(filter(todo.__contains__, keys)) if todo else []

    # ---- what the snapshot asks, in pod order --------------------------------------------------------
    def in_order(self, keys: Any) -> list[str]:
        return sorted(keys, key=self._pos.__getitem__)

    def pods_of(self, job: str) -> list[str]:
        """The keys of the job's pods."""
        return self.in_order(self._in_job.get(job, ()))

    def pods_on(self, node: str) -> list[str]:
        """The keys of the pods on the node."""
        return self.in_order(self._on_node.get(node, ()))

    def jobless(self, jobs: dict[str, Any]) -> list[str]:
        """The keys of the pods of no job in `jobs` (of no PodGroup, or of one not there)."""
        out = list(self._groupless)
        for job in self._in_job.keys() - jobs.keys():
            out.extend(self._in_job[job])
        return self.in_order(out)

    def node_of(self, key: str) -> str:
        return self._node_of[key]

    def task_of(self, key: str, jobs: dict[str, Any]) -> Any:
        """The task of the pod at `key` in its job in `jobs` (a job kept with its tasks)."""
        return jobs[self._job_of[key]].tasks[self._fields[key][0]]

    def _redo(self, names: set[str], members: dict[str, dict[str, None]],
              out: dict[str, tuple[tuple[Any, ...], ...]]) -> None:
        fields, pos = self._fields, self._pos
        for name in names:
            keys = members.get(name)
            if keys:
                out[name] = tuple(fields[k] for k in sorted(keys, key=pos.__getitem__))
            else:
                members.pop(name, None)
                out.pop(name, None)

    def _afresh(self, keys: list[str], objs: list[PodObj]) -> None:
        self._keys, self._objs = keys, objs
        self._pos = {k: i for i, k in enumerate(keys)}
        self._fields, self._node_of, self._job_of = {}, {}, {}
        self._on_node, self._in_job, self._groupless = {}, {}, {}
        self._uids, self.shared_uids = {}, 0
        on_node: dict[str, list[tuple[Any, ...]]] = {}
        in_job: dict[str, list[tuple[Any, ...]]] = {}
        for k, p in zip(keys, objs, strict=True):
            sig = self._fields[k] = pod_fields(p)
            self._count(p.uid, 1)
            node, job = p.node_name, (f"{p.namespace}/{p.group}" if p.group else "")
            self._node_of[k], self._job_of[k] = node, job
            if node:
                self._on_node.setdefault(node, {})[k] = None
                on_node.setdefault(node, []).append(sig)
            if job:
                self._in_job.setdefault(job, {})[k] = None
                in_job.setdefault(job, []).append(sig)
            else:
                self._groupless[k] = None
        self.occupied = {name: tuple(sigs) for name, sigs in on_node.items()}
        self.in_job = {name: tuple(sigs) for name, sigs in in_job.items()}
        return None
