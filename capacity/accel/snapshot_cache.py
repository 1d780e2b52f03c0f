"""What one session can hand to the next: what nothing changed since it was built (nodes, jobs, trees).

A replayed cluster is mostly idle (openb: at most 56 pods at a time on 1,523 nodes), yet every session
built a `Node` per cluster node and NodeFit's columns for all of them, a third of each cycle. A
`SnapshotCache`, owned by whoever runs cycle after cycle on one cluster (the `Simulator`), keeps:

* the nodes a session left empty and untouched (no task ever added or removed), which are exactly what
  the next snapshot would build for a node without pods;
* per NodeList, what NodeFit derives from the nodes' allocatable alone (names, the allocatable table,
  the rows an empty node starts with);
* the jobs nothing changed (`keep`: no task moved, the phase their close gave them), with what each was
  built from, and what the last session wrote on them of its own (`output_log`), cleared before they go on;
* the last close's phases (`close_phases`), which the next close keeps for the jobs nothing changed, and the
  last session's task index (`all_tasks`);
* what plugins derive from fixed inputs (`plugin_state`: capacity's queue tree, and its leaves as last built);
* the VictimTable the last session used (`victim_table`), for the next session to take over;
* how many of the last session's jobs have each set of request facts NodeFit reads (`request_facts`).

Reuse is checked (the same NodeObj objects in the same order, no pod on the node and, for NodeFit's part,
no change of NodeObjs since it was made; the same queue specs and total for capacity's tree), so a changed
cluster only costs a rebuild. Sessions without a cache build everything, as before.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any

from capacity.accel.pod_reading import PodReading
from capacity.core.model import Job, Node
from capacity.core.resources import Resource
from capacity.framework.reuse import KeptJobs

if TYPE_CHECKING:
    from capacity.core.cluster import NodeObj


class SnapshotCache:
    """Reusable snapshot parts of one cluster, from one session to the next."""

    def __init__(self) -> None:
        self._cluster_nodes: list[NodeObj] = []  # the last session's cluster's nodes, as it listed them
        self._objs: list[NodeObj] = []  # the ready ones among them, in order
        self._by_name: dict[str, Node] = {}  # the nodes last handed out, by name
        self._missing: list[int] = []  # positions whose node `keep` did not keep
        self._names: list[str] = []
        self._pos: dict[str, int] = {}
        self._total = Resource.empty()  # the sum of their allocatable
        self._kept: list[Node | None] = []  # per position: the node left as built, else None
        self.touched: list[Node] = []  # the handed-out nodes touched since (each node's Node.touch_log)
        self._handed: list[Node] | None = None  # the NodeList `nodes` handed out last
        # Occupied nodes: per position, the pods a handed-out node was built with (their fields, `PodSig`s),
        # and after `keep` the nodes no session op changed since, with those pods: built again from the
        # same pods they would be the same, so the next snapshot takes them as they are.
        self._built_with: dict[int, tuple[Any, ...]] = {}
        self._clean: dict[int, tuple[Node, tuple[Any, ...]]] = {}
        # Jobs likewise: those handed out last with what each was built from, and after `keep` the same with
        # the uids of those not to hand over again: a task moved in them, or their phase is not the one they
        # were built with (KeptJobs).
        self._handed_jobs: tuple[dict[str, Job], dict[str, tuple[Any, ...]]] | None = None
        self._jobs = KeptJobs({}, {}, set())
        self.pod_reading = PodReading()  # the pods' fields per node and job, as of the last snapshot
        # The jobs the session changed so far (Job.change_log: every job the cache's sessions built reports
        # here), and the last session's jobs that might starve when it opened (Job.may_starve; a superset).
        self.job_log: list[Job] = []
        self.may_starve: set[str] = set()
        # The jobs on which the session wrote outputs of its own (Job.nodes_fit_errors, Job.order_key), cleared
        # before the next session takes them; the jobs whose close moved their phase (Session.close); and
        # the last close's phases of every job with the plugins that closed it and the session's jobs dict
        # (Session.close reuses them).
        self.output_log: list[Job] = []
        self.phase_moved: set[str] | None = None  # (None: the session has not closed)
        self.close_phases: tuple[tuple[str, ...], dict[str, Job], dict[str, str]] | None = None  # (with its jobs)
        self.all_tasks: tuple[dict[str, Job], dict[str, Any]] | None = None  # the last session's jobs, all_tasks
        self.node_base: Any = None  # capacity.accel.nodefit.NodeBase of the last NodeList (NodeFit keeps it)
        self.fit_tables: Any = None  # the last released session's NodeFit.tables()
        # How many of the last session's jobs (its `jobs` dict, paired by identity) have each request_facts
        # (nodefit._jobs_facts).
        self.request_facts: tuple[dict[str, Job], dict[Any, int]] | None = None
        self.plugin_state: dict[str, Any] = {}  # per plugin, what it keeps (each checks it still applies)
        # The VictimTable (reclaim, preempt) the last session used, for the next session only (`take_victim_table`).
        self.victim_table: Any = None

    def nodes(self, cluster_nodes: list[NodeObj], occupied: dict[str, tuple[Any, ...]]
              ) -> tuple[list[NodeObj], list[Node], dict[str, Node], Resource, set[str]]:
        """The session's ready NodeObjs and NodeList (kept nodes wherever a node has no pod or the same pods
        as a kept occupied node, fresh ones elsewhere), the nodes by name (the session's own dict), the sum
        of their allocatable (its own copy) and the names of the occupied nodes taken as they are (their
        tasks in place: the snapshot only points their mirror at its own Task objects).

        `occupied`: per node name, the fields of the pods bound to it, in the cluster's pod order (PodSig).

        A cluster's nodes are replaced, never changed in place (`Cluster.copy_state` relies on it too),
        so the same NodeObj objects in the same order are the same nodes.
        """
        kept = self._kept
        self._kept = []  # handed out: if this session fails, nothing it touched is handed out again
        log = self.touched
        log.clear()
        last = self._cluster_nodes
        if len(cluster_nodes) == len(last) and all(map(operator.is_, cluster_nodes, last)) \
                and len(kept) == len(self._objs):
            objs = self._objs
            out = kept
            pos = self._pos
            missing = self._missing
            for name in occupied:
                i = pos.get(name)
                if i is not None:
                    missing.append(i)
        else:
            self._cluster_nodes = list(cluster_nodes)
            objs = self._objs = [n for n in cluster_nodes if n.ready]
            self.node_base = None  # NodeFit.shared holds what plugins derived from the old nodes' labels
            self._names = [n.name for n in objs]
            self._pos = {name: i for i, name in enumerate(self._names)}
            self._total = Resource.empty()
            for n in objs:
                self._total.add(n.allocatable)
            out = [None] * len(objs)
            missing = list(range(len(objs)))
            self._by_name = {}
        by_name = self._by_name
        clean = self._clean if out is kept else {}
        self._clean = {}
        built = self._built_with = {}
        reused: set[str] = set()
        for i in sorted(set(missing)):  # (a position may be both touched last time and occupied now)
            n = objs[i]
            pods = occupied.get(n.name)
            got = clean.get(i)
            if got is not None and got[1] == pods:
                node = out[i] = got[0]
                log.append(node)  # touched since it was built: NodeFit reads its columns
                reused.add(n.name)
            else:
                node = out[i] = Node(n.name, n.labels, n.allocatable, n.taints, n.unschedulable)
                node.touch_log = log
            by_name[n.name] = node
            if pods is not None:
                built[i] = pods
        self._missing = []
        self._handed = out  # type: ignore[assignment]
        return objs, out, dict(by_name), self._total.clone(), reused  # type: ignore[return-value]

    def take_jobs(self) -> KeptJobs:
        """The kept jobs with what they were built from (PodGroup and pod fields), for the snapshot to take
        those whose inputs are the same again; handed out once. (They were built at the PodReading's last
        reading: only the snapshot reads, just after taking them.) Clears what the last session wrote on
        them besides their tasks (`output_log`)."""
        for job in self.output_log:
            job.nodes_fit_errors = {}
            job.order_key = None  # (made by the last session's order)
        self.output_log.clear()
        self.phase_moved = None
        jobs = self._jobs
        self._jobs = KeptJobs({}, {}, set())
        self._handed_jobs = None
        return jobs

    def take_victim_table(self) -> Any:
        """The VictimTable the last session used, handed out once: a session that uses none hands none on.
        Its rows are checked against the jobs built anew in the taking session only, so it must come from
        the session just before (a job built anew in between would be kept by then, unseen)."""
        table = self.victim_table
        self.victim_table = None
        return table

    def hand_jobs(self, jobs: dict[str, Job], built: dict[str, tuple[Any, ...]]) -> None:
        """The session's jobs and what each was built from (`built` may name more), to keep the unchanged ones
        at `keep`."""
        self._handed_jobs = (jobs, built)

    def touched_positions(self, nodes: list[Node]) -> list[int] | None:
        """The positions of the nodes touched so far, if `nodes` is the list `nodes()` handed out last
        (whose nodes report to `touched`); else None."""
        if nodes is not self._handed:
            return None
        pos = self._pos
        return [pos[node.name] for node in self.touched]

    def keep(self) -> None:
        """After the session on the nodes `nodes` handed out last: keep those still as built, without
        pods (a node that has held a task or a mirrored pod has been touched), and the occupied ones that
        nothing changed after the snapshot, for a next snapshot with the same pods on them."""
        handed = self._handed
        if handed is None:
            return
        pos = self._pos
        self._missing = [pos[node.name] for node in self.touched]  # to build afresh (the rest: as left)
        built = self._built_with
        self._clean = {i: (node, built[i]) for node in self.touched
                       if not node.changed and (i := pos[node.name]) in built}
        self._built_with = {}
        self.touched.clear()
        handed_jobs = self._handed_jobs
        self._handed_jobs = None
        if handed_jobs is not None and self.phase_moved is not None:
            jobs, jobs_built = handed_jobs
            # (a phase moved by the session is written back to the PodGroup: the job is built again)
            self._jobs = KeptJobs(jobs, jobs_built, self.phase_moved.union(job.uid for job in self.job_log))
        self._kept = list(handed)
        self._handed = None
