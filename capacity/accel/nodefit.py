"""Vectorised node fit and scoring: numpy mirrors of the session's node accounting.

Volcano checks a task against every node one at a time (allocate's predicateNodes, PrioritizeNodes,
reclaim's and preempt's node loops). At openb scale that is 1,500 nodes x 8,000 tasks of
`Resource.less_equal`, predicate and kube-scheduler score calls in Python. `NodeFit` keeps, per node,
the values those checks read (FutureIdle, Idle, Used, Allocatable, the Kubernetes mirror's pod count
and request sums, how many preemptable Bound/Running tasks sit there per queue and job) as numpy
columns. A node's columns are recomputed from its Python objects whenever `Node.add_task` or
`remove_task` (or the predicates plugin's mirror update) touches it, lazily, right before the next
question, so they are exact copies of what the per-node reference code reads. The questions are
answered with the same comparisons (Volcano's LessEqual: ε = 0.1, a key missing on the node reads 0,
pods included) and the same float and integer arithmetic, so decisions are identical to the reference
path, which stays in place: with `ENABLED` False every caller runs it (tests/unit/test_nodefit.py
compares both on randomized clusters).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from capacity.accel import kernels
from capacity.core.model import UNRESOLVABLE, UNSCHEDULABLE, FitError, Job, Node, Task
from capacity.core.resources import MIN_RESOURCE, Resource
from capacity.framework.extension_points import EXACT_LIMIT

if TYPE_CHECKING:
    from capacity.accel.session import AcceleratedSession as Session

ENABLED = True
"""Switch for the vectorised path; False runs the per-node reference code everywhere (tests)."""

SMALL_UPDATE = 40
"""A Placement update of at most this many nodes runs node by node in plain Python (numpy's per-call
overhead dominates below that); both ways compute the same values (tests/unit/test_placement_paths.py)."""

# EXACT_LIMIT (capacity.framework.extension_points): request and allocatable values must be integers below it for
# vectorised scoring: sums of them are then exact in float64, so their order (the reference adds the mirror's pods
# one by one) cannot matter.

GPU = "nvidia.com/gpu"
DEFAULT_MILLI_CPU = 100.0
DEFAULT_MEMORY = 200.0 * 1024 * 1024
_NEG_EPS = -MIN_RESOURCE


class CandidateList(Sequence):
    """Nodes that passed a vectorised filter, in NodeList order; `idx` holds their NodeList positions.

    From a Placement (allocate), `idx` is found only when read: the node choice reads the Placement
    itself, so the untraced path needs no list of positions, only to know that there is one."""

    __slots__ = ("nodes", "_idx", "placement", "version")

    def __init__(self, nodes: list[Node], idx: np.ndarray | None, placement: Placement | None = None,
                 version: int = -1) -> None:
        self.nodes = nodes
        self._idx = idx  # None: the candidates of `placement` (not empty), as they were at `version`
        self.placement = placement  # the Placement they came from, valid while the NodeFit log is at version
        self.version = version

    def _cand(self) -> np.ndarray:
        """The Placement's candidate mask, refused once its nodes have moved on since the list was made."""
        placement = self.placement
        assert placement is not None
        if len(placement.fit.log) != self.version:
            raise RuntimeError("CandidateList read after the nodes changed")
        return placement.cand

    @property
    def idx(self) -> np.ndarray:
        idx = self._idx
        if idx is None:
            idx = self._idx = self._cand().nonzero()[0]
        return idx

    def __bool__(self) -> bool:
        return self._idx is None or len(self._idx) > 0

    def __len__(self) -> int:
        if self._idx is None:  # (how many, without listing them)
            return int(np.count_nonzero(self._cand()))
        return len(self._idx)

    def __getitem__(self, k: Any) -> Any:
        if isinstance(k, slice):
            return [self.nodes[i] for i in self.idx[k].tolist()]
        return self.nodes[int(self.idx[k])]

    def __iter__(self) -> Iterator[Node]:
        nodes = self.nodes
        return (nodes[i] for i in self.idx.tolist())

    def __repr__(self) -> str:
        return f"CandidateList({[n.name for n in self]})"


def _zero(r: Resource) -> bool:
    return r.cpu == 0 and r.memory == 0 and not (r.scalars and any(r.scalars.values()))


def _settled(node: Node) -> bool:
    """Nothing Releasing or Pipelined: FutureIdle = Idle + 0 - 0, the same values as Idle."""
    return _zero(node.releasing) and _zero(node.pipelined)


def request_facts(resources: list[Resource]) -> tuple[frozenset[str], bool]:
    """The scalar names among these resources, and whether every cpu, memory and scalar value is an integer
    of magnitude below EXACT_LIMIT (NaN and infinities are not: the magnitude test fails first)."""
    names: set[str] = set()
    exact = True
    lim = EXACT_LIMIT
    for r in resources:
        if exact:
            c, m = r.cpu, r.memory
            if not (abs(c) < lim and c % 1 == 0 and abs(m) < lim and m % 1 == 0):
                exact = False
        s = r.scalars
        if s:
            names.update(s)
            if exact:
                for v in s.values():
                    if not (abs(v) < lim and v % 1 == 0):
                        exact = False
                        break
    facts = (frozenset(names), exact)
    return _FACTS.setdefault(facts, facts)


_FACTS: dict[tuple[frozenset[str], bool], tuple[frozenset[str], bool]] = {}
"""Each distinct `request_facts` answer, one object per value: equal answers are the same object, so a set
of them (session_request_facts) compares them by identity. (Few values: sets of scalar names in use.)"""


def _job_facts(job: Job) -> tuple[frozenset[str], bool]:
    """`request_facts` of a job's tasks, kept on the job (Job.request_facts) while no task is added."""
    got = job.request_facts
    if got is None:
        got = job.request_facts = request_facts([t.resreq for t in job.tasks.values()])
    return got


def session_request_facts(ssn: Session) -> set[tuple[frozenset[str], bool]]:
    """`request_facts` of every request a node can see in the session: its jobs' tasks (a task's
    init_resreq is its resreq) and the pods on nodes at open outside every job (the snapshot's `loose`
    tasks). A node holds nothing else: clones of those, and of session tasks placed on it.

    As a set: the callers only take the union of the names and whether every one is exact, and most jobs
    ask the same (8,152 openb jobs, a handful of distinct facts, each one object: `_FACTS`). Counted per
    job once, then carried from session to session (`_jobs_facts`)."""
    counts = _jobs_facts(ssn)
    facts = {f for f, n in counts.items() if n}
    facts.add(request_facts([t.resreq for t in ssn.loose]))
    return facts


def _jobs_facts(ssn: Session) -> dict[tuple[frozenset[str], bool], int]:
    """How many of the session's jobs have each `request_facts`. With a SnapshotCache that kept the count
    for the last session's jobs (the same uids: `last_jobs`), only the jobs built anew change it: each
    takes its predecessor's facts away and adds its own (a kept job's tasks, and so its facts, are the
    ones it had). Kept for the next session, and for a second ask in this one."""
    cache = ssn.cache
    carried = cache.request_facts if cache is not None else None
    if carried is not None and carried[0] is ssn.jobs:
        return carried[1]
    last = ssn.last_jobs
    counts: dict[tuple[frozenset[str], bool], int] | None = None
    if carried is not None and last is not None and carried[0] is last:
        counts = dict(carried[1])
        for job in ssn.fresh_jobs:
            old = last[job.uid].request_facts
            if old is None or not counts.get(old):
                counts = None  # (not the jobs the count was made of: count afresh)
                break
            counts[old] -= 1
            new = _job_facts(job)
            counts[new] = counts.get(new, 0) + 1
    if counts is None:
        counts = {}
        for f in map(_job_facts, ssn.jobs.values()):
            counts[f] = counts.get(f, 0) + 1
    if cache is not None:
        cache.request_facts = (ssn.jobs, counts)
    return counts


def row_reader(scalar_dims: list[str]) -> Callable[[Resource], list[float]]:
    """A resource's values in table order (cpu, memory, then these scalars, 0.0 where missing), as a list.
    Written out for up to two scalar dimensions (the usual pods and GPU): NodeFit reads two or three of
    these per refreshed node, once per bind, and a comprehension costs its own frame."""
    if len(scalar_dims) == 1:
        (k0,) = scalar_dims

        def row1(r: Resource) -> list[float]:
            s = r.scalars
            return [r.cpu, r.memory, s.get(k0, 0.0)] if s else [r.cpu, r.memory, 0.0]

        return row1
    if len(scalar_dims) == 2:
        k0, k1 = scalar_dims

        def row2(r: Resource) -> list[float]:
            s = r.scalars
            return [r.cpu, r.memory, s.get(k0, 0.0), s.get(k1, 0.0)] if s else [r.cpu, r.memory, 0.0, 0.0]

        return row2
    zeros = [0.0] * len(scalar_dims)

    def row(r: Resource) -> list[float]:
        s = r.scalars
        return [r.cpu, r.memory, *[s.get(k, 0.0) for k in scalar_dims]] if s else [r.cpu, r.memory, *zeros]

    return row


class NodeBase:
    """What NodeFit derives from a NodeList's allocatable alone: names and positions, the allocatable
    table and an empty node's rows per set of dimensions, pod limits, whether the values are integral.
    Shared read-only by the NodeFits of one session or, through a SnapshotCache, of many."""

    __slots__ = ("allocs", "names", "pos", "scalars", "exact", "max_tasks", "max_tasks_list", "_tables", "shared")

    def __init__(self, nodes: list[Node]) -> None:
        self.allocs = [node.allocatable for node in nodes]
        self.names = [node.name for node in nodes]
        self.pos = {name: i for i, name in enumerate(self.names)}
        self.scalars, self.exact = request_facts(self.allocs)
        self.max_tasks = np.array([node.max_task_num() for node in nodes], dtype=np.int64)
        self.max_tasks.flags.writeable = False
        self.max_tasks_list: list[int] = self.max_tasks.tolist()
        self._tables: dict[tuple[str, ...], tuple[np.ndarray, list[list[float]]]] = {}
        self.shared: dict[Any, Any] = {}  # NodeFit.shared

    def table(self, dims: list[str]) -> tuple[np.ndarray, list[list[float]]]:
        """The allocatable table for these dimensions (one row each, then a row of zeros) and, per node,
        the Python row an empty node's FutureIdle and Idle read (with the trailing 0.0)."""
        key = tuple(dims)
        got = self._tables.get(key)
        if got is None:
            scalar_dims = dims[2:]
            rows = [[r.cpu, r.memory, *[(r.scalars or {}).get(k, 0.0) for k in scalar_dims], 0.0] for r in self.allocs]
            alloc = np.zeros((len(dims) + 1, len(rows)))
            if rows:
                alloc[:] = np.array(rows).T
            alloc.flags.writeable = False
            got = self._tables[key] = (alloc, rows)
        return got


class NodeFit:
    """Column-per-node arrays of one session's nodes, kept in step with `Node` accounting.

    Resource tables (fi = FutureIdle, idle, used, alloc) have one row per dimension (cpu, memory, then
    every scalar seen on a node or a task, sorted) plus a last row of zeros, which is what LessEqual
    reads for a key the node does not have.
    """

    def __init__(self, ssn: Session) -> None:
        self.ssn = ssn
        nodes = ssn.node_list
        self.nodes = nodes
        self.n = n = len(nodes)
        cache = ssn.cache
        base = cache.node_base if cache is not None else None
        # A cache drops its NodeBase whenever its nodes change (SnapshotCache.nodes), so one it still holds
        # is of these very nodes.
        if base is None:
            base = NodeBase(nodes)
            if cache is not None:
                cache.node_base = base
        self.base = base
        self.names = base.names
        self.pos = base.pos
        facts = session_request_facts(ssn)  # every request a node can see this session
        # Nodes as the snapshot builds them without pods start as NodeBase's rows; the others are refreshed.
        touched = cache.touched_positions(nodes) if cache is not None else None
        changed = sorted(touched) if touched is not None else [
            i for i, node in enumerate(nodes) if node.touched or node.tasks or node.mirror]
        scalars: set[str] = set(base.scalars).union(*[f[0] for f in facts])
        self.dims = ["cpu", "memory", *sorted(scalars)]
        self.dims_key = tuple(self.dims)
        self.col = {name: i for i, name in enumerate(self.dims)}
        self.scalar_dims = self.dims[2:]
        self._row = row_reader(self.scalar_dims)
        self.alloc: np.ndarray
        self.alloc, empty_rows = base.table(self.dims)
        shape = self.alloc.shape
        self.state = np.zeros((3, *shape))  # FutureIdle, Idle, Used
        self.fi, self.idle, self._used = self.state
        # Nodes the per-node refresh brought up to date but for their Used column (read only by `used`).
        self._used_stale: set[int] = set()
        # The same memory flat, for writing one node's column a value at a time (`refresh`): some twice as
        # fast as numpy's assignment of a few values, which a cycle makes once per allocated task.
        self._state_flat: Any = memoryview(self.state.reshape(-1))  # type: ignore[arg-type]
        self.fi[:] = self.alloc  # an empty node's FutureIdle and Idle are its allocatable
        self.idle[:] = self.alloc
        self.max_tasks = base.max_tasks
        self.pods = np.zeros(n, dtype=np.int64)
        # Mirror request sums: kube-scheduler's non-zero cpu and memory (rows 0, 1 of nonzero) and the
        # raw cpu, memory and GPU requests (rows 0, 1, 2 of requested).
        self.mirror_sums = np.zeros((5, n))  # the two tables in one, for one gather: nonzero then requested
        self._sums_flat: Any = memoryview(self.mirror_sums.reshape(-1))  # type: ignore[arg-type]  # (as _state_flat)
        self.nonzero = self.mirror_sums[:2]
        self.requested = self.mirror_sums[2:]
        # The same values as Python lists, for the node-by-node Placement update: per node its FutureIdle
        # and Idle rows (plus the trailing 0.0 that row -1 reads), pod count, and the mirror sums
        # (nonzero cpu, nonzero memory, cpu, memory, GPU). Rows are replaced, never changed in place.
        self.fi_rows: list[list[float]] = list(empty_rows)
        self.idle_rows: list[list[float]] = list(empty_rows)
        self.max_tasks_list: list[int] = base.max_tasks_list
        self.pods_list: list[int] = [0] * n
        self.sums: list[tuple[float, float, float, float, float]] = [(0.0, 0.0, 0.0, 0.0, 0.0)] * n
        self.exact = base.exact and all(f[1] for f in facts)
        self._requests: dict[tuple[Any, ...], tuple[list[str], np.ndarray, np.ndarray, list[tuple[int, float]]]] = {}
        # The last session's placements, per placement key (cand, s1, s2 as it left them), when its tables
        # are taken over: a Placement resumes from them at its first use here.
        self.carried: dict[tuple[Any, ...], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        last = cache.fit_tables if cache is not None else None
        if last is not None and last[0] is base and last[1] == self.dims_key:
            # The last NodeFit's tables (left by Session.release) hold the columns of every node handed out
            # again unchanged (kept empty, or kept with its pods); only the others are read.
            _, _, state, mirror_sums, fi_rows, idle_rows, pods_list, sums, last_nodes, placed, inputs = last
            if inputs == (ssn.conf, ssn.options, self.exact):
                # Its placements likewise: a node's answer for a kind of task is a function of the node's
                # columns, its fixed parts and the configured plugins alone (what a placement key promises
                # within a session), so only the nodes read again here need answering again.
                self.carried = placed
            self.state[:] = state
            self.mirror_sums[:] = mirror_sums
            self.pods[:] = pods_list
            self.fi_rows, self.idle_rows = list(fi_rows), list(idle_rows)
            self.pods_list, self.sums = list(pods_list), list(sums)
            changed = [i for i, (node, before) in enumerate(zip(nodes, last_nodes, strict=True))
                       if node is not before or node.changed]
        self.dirty: set[int] = set(changed)
        self.mirror_dirty: set[int] = set(changed)  # nodes whose mirror sums must be added up again
        self.log: list[int] = []  # every refreshed node position, in order: what changed since version v
        self.log_array = np.empty(max(64, n), dtype=np.int64)  # `log` as int64 (grown as needed): its spans as views
        # Per node, len(log) right after its last refresh: node i changed since version v iff stamp[i] > v.
        self.stamp = np.zeros(n, dtype=np.int64)
        self.placements: dict[tuple[Any, ...], Placement] = {}
        # For the compiled placement loop (None: not for this NodeList): every position, and room for the
        # positions it flags.
        self.lean_loop: Any = kernels.lean_loop() if n >= kernels.MIN_NODES else None
        self.all_positions = np.arange(n, dtype=np.int64)
        self.flag_buffer = np.empty(max(n, 64), dtype=np.int64)  # (64: the longest log span handed over)
        for i, node in enumerate(self.nodes):
            node.index = i
            node.fit = self
        self.refresh()
        self._write_used()  # (every table complete from the start)

    def tables(self) -> tuple[Any, ...]:
        """What the next NodeFit on the same NodeBase and dimensions can start from (SnapshotCache.fit_tables):
        every table, and the nodes they describe (a node changed since its columns were read is one the next
        snapshot builds again, and so reads again); the placements used in this session, which answer for every
        node but those changed since (a placement carried over and not used here is not handed on: it also
        misses the nodes this session read again), and what their answers were worked out under."""
        placed = {key: (p.cand, p.s1, p.s2) for key, p in self.placements.items()}
        self._write_used()
        return (self.base, self.dims_key, self.state, self.mirror_sums, self.fi_rows, self.idle_rows,
                self.pods_list, self.sums, list(self.nodes), placed, (self.ssn.conf, self.ssn.options, self.exact))

    @property
    def used(self) -> np.ndarray:
        """The Used table. The per-node refresh leaves a node's Used column to be written at the first read
        after it (`_write_used`); allocate, which refreshes a node per bind, never reads it."""
        self._write_used()
        return self._used

    def _write_used(self) -> None:
        """The Used columns the per-node refresh left out: each node's current Used, which for a node not
        changed since (not dirty, the state in which every table is read: after Session.node_fit) is the one
        that refresh read."""
        stale = self._used_stale
        if stale:
            flat, n, row = self._state_flat, self.n, self._row
            base = 2 * self.state.shape[1] * n
            nodes = self.nodes
            for i in stale:
                k = base + i
                for v in row(nodes[i].used):
                    flat[k] = v
                    k += n
            stale.clear()

    def shared(self, key: Any, make: Callable[[], Any]) -> Any:
        """What a plugin derives from the NodeList's fixed parts alone (allocatable, labels, taints, cordons),
        made once per NodeBase: per session, or once for many through a SnapshotCache. Read-only."""
        got = self.base.shared.get(key)
        if got is None:
            got = self.base.shared[key] = make()
        return got

    # ---- keeping in step ---------------------------------------------------------------------
    def touch(self, node: Node) -> None:
        """Node accounting changed (a task clone added or removed): recompute its columns lazily."""
        self.dirty.add(node.index)

    def mirror_changed(self, node: Node, removed: Task | None, added: Task | None) -> None:
        """The predicates plugin replaced `removed` by `added` in the node's Kubernetes mirror (either
        may be None). With integral quantities the sums move incrementally (exactly); otherwise the
        next refresh adds them up again in the mirror's order, as the reference does."""
        i = node.index
        self.dirty.add(i)
        if not self.exact:
            self.mirror_dirty.add(i)
            return
        pods = self.pods_list[i]
        nzc, nzm, c, m, g = self.sums[i]
        # (x - v is x + -v in IEEE arithmetic, and -v is exact: the removed task's values are subtracted)
        if removed is not None:
            r = removed.resreq
            rc, rm, s = r.cpu, r.memory, r.scalars
            pods -= 1
            nzc -= rc if rc > 0 else DEFAULT_MILLI_CPU
            nzm -= rm if rm > 0 else DEFAULT_MEMORY
            c -= rc
            m -= rm
            g -= s.get(GPU, 0.0) if s else 0.0
        if added is not None:
            r = added.resreq
            rc, rm, s = r.cpu, r.memory, r.scalars
            pods += 1
            nzc += rc if rc > 0 else DEFAULT_MILLI_CPU
            nzm += rm if rm > 0 else DEFAULT_MEMORY
            c += rc
            m += rm
            g += s.get(GPU, 0.0) if s else 0.0
        self._set_mirror_sums(i, pods, (nzc, nzm, c, m, g))

    def _set_mirror_sums(self, i: int, pods: int, sums: tuple[float, float, float, float, float]) -> None:
        self.pods_list[i] = pods
        self.sums[i] = sums
        self.pods[i] = pods
        flat, n, k = self._sums_flat, self.n, i
        for v in sums:  # mirror_sums[:, i] = sums
            flat[k] = v
            k += n

    def bound(self, victims: np.ndarray) -> np.ndarray:
        """FutureIdle plus the requests of possible victims: no victim set on a node frees more (requests
        are never negative). Exact only with integral quantities (`exact`), which callers check."""
        return self.fi + victims

    def refresh(self) -> None:
        dirty = self.dirty
        if not dirty:
            return
        nodes = self.nodes
        row = self._row
        fi_rows, idle_rows = self.fi_rows, self.idle_rows
        if len(dirty) > 32:  # a whole NodeList at session start: one array per table
            idx = sorted(dirty)
            sel = [nodes[i] for i in idx]
            idle_sel = [row(n.idle) for n in sel]
            fi_sel = [r if _settled(n) else row(n.future_idle()) for n, r in zip(sel, idle_sel, strict=True)]
            used_sel = [row(n.used) for n in sel]
            # FutureIdle, Idle and Used of these nodes in one assignment (state is those three tables)
            self.state[:, :-1, np.array(idx, dtype=np.intp)] = np.array((fi_sel, idle_sel, used_sel)).transpose(0, 2, 1)
            for i, ir, fr in zip(idx, idle_sel, fi_sel, strict=True):
                idle_rows[i] = [*ir, 0.0]
                fi_rows[i] = [*fr, 0.0]
        else:
            # state[:2, :-1, i] = (fi_row, idle_row), a value at a time (see _state_flat); the Used column
            # is written at its next read (`used`)
            flat, n = self._state_flat, self.n
            plane = self.state.shape[1] * n
            for i in dirty:
                node = nodes[i]
                idle_row = row(node.idle)
                k = plane + i
                for v in idle_row:
                    flat[k] = v
                    k += n
                padded = idle_rows[i] = [*idle_row, 0.0]
                if _settled(node):  # (FutureIdle is Idle: the same values, the same padded row, never changed)
                    fi_row = idle_row
                    fi_rows[i] = padded
                else:
                    fi_row = row(node.future_idle())
                    fi_rows[i] = [*fi_row, 0.0]
                k = i
                for v in fi_row:
                    flat[k] = v
                    k += n
            self._used_stale.update(dirty)
        log = self.log
        start = len(log)
        log.extend(dirty)
        version = len(log)
        stamp = self.stamp
        logged = self.log_array
        if version > len(logged):
            logged = self.log_array = np.resize(logged, 2 * version)
        for i in dirty:  # (the order `extend` took)
            stamp[i] = version
            logged[start] = i
            start += 1
        dirty.clear()
        for i in self.mirror_dirty:
            mirror = nodes[i].mirror
            nzc = nzm = c = m = g = 0.0
            for t in mirror.values():
                r = t.resreq
                rc = r.cpu
                rm = r.memory
                c += rc
                m += rm
                nzc += rc if rc > 0 else DEFAULT_MILLI_CPU
                nzm += rm if rm > 0 else DEFAULT_MEMORY
                s = r.scalars
                if s:
                    g += s.get(GPU, 0.0)
            self._set_mirror_sums(i, len(mirror), (nzc, nzm, c, m, g))
        self.mirror_dirty.clear()

    # ---- resource fit --------------------------------------------------------------------------
    def request(self, r: Resource) -> tuple[list[str], np.ndarray, np.ndarray]:
        """The dimensions `r.less_equal(·, ZERO)` compares, in its order: names, table rows, values."""
        s = r.scalars
        got = self._requests.get((r.cpu, r.memory, tuple(s.items()) if s else ()))
        if got is None:
            got = self._request(r)
        return got[0], got[1], got[2]

    def request_pairs(self, r: Resource) -> list[tuple[int, float]]:
        """`request` as (row, value) pairs for one node's Python rows (fi_rows, idle_rows)."""
        s = r.scalars
        got = self._requests.get((r.cpu, r.memory, tuple(s.items()) if s else ()))
        if got is None:
            got = self._request(r)
        return got[3]

    def _request(self, r: Resource) -> tuple[list[str], np.ndarray, np.ndarray, list[tuple[int, float]]]:
        """`request`'s answer, kept per request value (names in the request's own scalar order)."""
        names = ["cpu", "memory"]
        vals = [r.cpu, r.memory]
        s = r.scalars
        if s:
            names.extend(s)
            vals.extend(s.values())
        cols = [self.col.get(k, -1) for k in names]
        rows = np.array(cols, dtype=np.intp)
        values = np.array(vals)[:, None]
        got = (names, rows, values, list(zip(cols, values[:, 0].tolist(), strict=True)))
        self._requests[(r.cpu, r.memory, tuple(s.items()) if s else ())] = got
        return got

    def fit(self, r: Resource, table: np.ndarray, idx: np.ndarray | None = None) -> tuple[np.ndarray, FitFailures]:
        """`r.less_equal(row, ZERO)` against every node's row of table (fi, idle, ...), or those in idx.

        Per dimension LessEqual holds iff a < b or |a - b| < ε, which for IEEE doubles is exactly
        b - a > -ε (b - a rounds to 0 only when a == b, keeps its sign, and is -(a - b)); NaN fails both.
        """
        names, rows, values = self.request(r)
        sub = table.take(rows, axis=0)
        if idx is not None:
            sub = sub.take(idx, axis=1)  # two takes: a 2-D fancy gather costs ~10x more
        dim_ok = (sub - values) > _NEG_EPS
        return np.logical_and.reduce(dim_ok, axis=0), FitFailures(names, dim_ok)

    # ---- allocate's node choice, kept per kind of task ------------------------------------------------
    def placement(self, task: Task) -> Placement | None:
        """The Placement of tasks like this one, brought up to date with the nodes changed since its
        last use; None when the session cannot promise node-local answers for it."""
        key = self.ssn.placement_key(task)
        if key is None:
            return None
        p = self.placements.get(key)
        version = len(self.log)
        if p is None:
            got = self.carried.pop(key, None) if self.carried else None
            if got is None:
                p = self.placements[key] = Placement(self, task)
                p.version = version
                return p
            # the last session's answers, good but for the nodes read again since (log[0:])
            p = self.placements[key] = Placement.resume(self, got)
        if p.version != version:
            few = version - p.version <= 64
            # The compiled loop answers each node afresh from the tables, so a node listed twice or out of
            # order costs one more answer, the same: a short log span as it is (at most 64 <= n positions,
            # what the flag buffer holds).
            if few and p.update_compiled(task, self.log_array[p.version:version]):
                p.version = version
                return p
            if few:  # a few log entries: dedupe them in Python
                nodes: Any = sorted(set(self.log[p.version:]))
            else:  # many (repeats included): one pass over the stamps, sorted and distinct
                nodes = (self.stamp > p.version).nonzero()[0]
            if p.update_compiled(task, nodes):  # (any number of nodes: the compiled loop, where it applies)
                pass
            elif 2 * len(nodes) >= self.n:
                p.update(task, None)
            elif len(nodes) > SMALL_UPDATE:
                p.update(task, np.asarray(nodes, dtype=np.intp))
            else:
                nodes = nodes if isinstance(nodes, list) else nodes.tolist()
                if not p.update_nodes(task, nodes):
                    p.update(task, np.array(nodes, dtype=np.intp))
        p.version = version
        return p

    def fit_both(self, r: Resource, idx: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """`fit` against FutureIdle and against Idle at once: (fits FutureIdle, fits Idle)."""
        _, rows, values = self.request(r)
        sub = self.state[:2].take(rows, axis=1)
        if idx is not None:
            sub = sub.take(idx, axis=2)  # two takes: a 3-D fancy gather costs ~10x more
        ok = np.logical_and.reduce((sub - values) > _NEG_EPS, axis=1)
        return ok[0], ok[1]


class Placement:
    """allocate's per-node view for one kind of task (same requests, same predicate inputs): whether
    the node is a candidate (FutureIdle fit and predicates), and its score in gradient G1 (fits Idle) or
    G2 (the other candidates), -inf elsewhere. Updated only for nodes that changed since last used."""

    __slots__ = ("fit", "ssn", "version", "cand", "s1", "s2", "per_node", "loop_args")

    def __init__(self, fit: NodeFit, task: Task) -> None:
        self.fit = fit
        self.ssn = fit.ssn
        self.version = -1
        # update_nodes' inputs, the same for every task of this kind: the request's (row, value) pairs, the
        # plugins' per-node predicate and score functions; None until first needed, False if unavailable.
        self.per_node: Any = None
        # The compiled loop's inputs (update_compiled) between the positions and the outputs, the same at
        # every call: made at the first; False: the loop does not apply.
        self.loop_args: Any = None
        self.cand = np.zeros(fit.n, dtype=bool)
        self.s1 = np.full(fit.n, -np.inf)
        self.s2 = np.full(fit.n, -np.inf)
        if not self.update_compiled(task, None):
            self.update(task, None)

    @classmethod
    def resume(cls, fit: NodeFit, arrays: tuple[np.ndarray, np.ndarray, np.ndarray]) -> Placement:
        """A Placement from an earlier NodeFit's answers on the same nodes (NodeFit.carried), stale only at
        the nodes this NodeFit read again at its start: version 0, so its first use updates those. Copies:
        the earlier tables stay as they were should this session fail."""
        p = cls.__new__(cls)
        p.fit = fit
        p.ssn = fit.ssn
        p.version = 0
        p.per_node = p.loop_args = None
        p.cand, p.s1, p.s2 = (a.copy() for a in arrays)
        return p

    def update(self, task: Task, idx: np.ndarray | None) -> None:
        fit = self.fit
        fits_fi, fits_idle = fit.fit_both(task.init_resreq, idx)
        pv = self.ssn.predicate_vector(task, None, idx)
        assert pv is not None
        cand = fits_fi & pv.passed
        sel = np.arange(fit.n) if idx is None else idx
        s1 = np.full(len(sel), -np.inf)
        s2 = np.full(len(sel), -np.inf)
        ci = cand.nonzero()[0]
        if len(ci):
            scores = self.ssn.node_scores_vector(task, sel[ci])
            g1 = fits_idle[ci]
            s1[ci[g1]] = scores[g1]
            s2[ci[~g1]] = scores[~g1]
        if idx is None:
            self.cand, self.s1, self.s2 = cand, s1, s2
        else:
            self.cand[idx] = cand
            self.s1[idx] = s1
            self.s2[idx] = s2

    def _per_node(self, task: Task) -> Any:
        """update_nodes' inputs (see `per_node`), made at first need; False if a plugin has no per-node form.
        A fourth item holds the compiled loop's arguments when the plugins are the usual pair whose per-node
        forms it reproduces (kernel_args on both functions) and numba is there; else None."""
        per_node = self.per_node
        if per_node is None:
            ssn = self.ssn
            preds = ssn.node_fns("predicate", task)
            scorers = ssn.node_fns("nodeOrder", task) if preds is not None else None
            if preds is None or scorers is None:
                per_node = self.per_node = False
            else:
                req = self.fit.request_pairs(task.init_resreq)
                compiled = None
                if self.fit.lean_loop is not None and len(preds) == 1 and len(scorers) == 1:
                    pred_args = getattr(preds[0], "kernel_args", None)
                    score_args = getattr(scorers[0], "kernel_args", None)
                    if pred_args is not None and score_args is not None:
                        last = self.fit.fi.shape[0] - 1  # row -1: the row of zeros, for dimensions a node lacks
                        rk = np.array([k if k >= 0 else last for k, _ in req], dtype=np.int64)
                        rv = np.array([v for _, v in req], dtype=float)
                        compiled = (rk, rv, *pred_args, *score_args)
                per_node = self.per_node = (req, preds, scorers, compiled)
        return per_node

    def update_compiled(self, task: Task, idx: Any) -> bool:
        """`update_nodes` for the positions idx (None: every node) through the compiled loop
        (capacity.accel.kernels); nodes it flags are answered again in Python. False (nothing done) when the loop
        does not apply to this kind of task."""
        args = self.loop_args
        fit = self.fit
        if args is None:  # (made at its first update, used at every later one: some 8,000 a cycle at openb scale)
            per_node = self._per_node(task)
            if per_node is False or per_node[3] is None:
                args = False
            else:
                rk, rv, ok, pods, max_tasks, sums, alloc, whole, cpu, mem, rc, rm, rg, lw, bw = per_node[3]
                args = (rk, rv, fit.fi, fit.idle, ok, pods, max_tasks, sums, alloc, whole, cpu, mem, rc, rm, rg,
                        lw, bw, _NEG_EPS)
            self.loop_args = args
        if args is False:
            return False
        flagged = fit.flag_buffer
        n = fit.lean_loop(fit.all_positions if idx is None else np.asarray(idx, dtype=np.int64), *args,
                          self.cand, self.s1, self.s2, flagged)
        if n:
            self.update_nodes(task, flagged[:n].tolist())
        return True

    def update_nodes(self, task: Task, idx: list[int]) -> bool:
        """`update` for a few NodeList positions, node by node in plain Python with the plugins' per-node
        forms (Session.node_fns): the same comparisons and arithmetic on the same values. False (nothing
        done) when a plugin has no per-node form for this task."""
        per_node = self._per_node(task)
        if per_node is False:
            return False
        req, preds, scorers, _ = per_node
        fit = self.fit
        fi_rows, idle_rows = fit.fi_rows, fit.idle_rows
        cand, s1, s2 = self.cand, self.s1, self.s2
        neg_eps = _NEG_EPS
        ninf = -np.inf
        if len(preds) == 1 and len(scorers) == 1:  # the usual plugin set: the loop below, calls unrolled
            passed, scorer = preds[0], scorers[0]
            for i in idx:
                row = fi_rows[i]
                for k, v in req:
                    if not row[k] - v > neg_eps:
                        break
                else:
                    if passed(i):
                        score = 0.0 + scorer(i)
                        cand[i] = True
                        row = idle_rows[i]
                        for k, v in req:
                            if not row[k] - v > neg_eps:
                                s1[i] = ninf
                                s2[i] = score
                                break
                        else:
                            s1[i] = score
                            s2[i] = ninf
                        continue
                cand[i] = False
                s1[i] = ninf
                s2[i] = ninf
            return True
        for i in idx:
            row = fi_rows[i]
            ok = True
            for k, v in req:
                if not row[k] - v > neg_eps:
                    ok = False
                    break
            if ok:
                for passed in preds:
                    if not passed(i):
                        ok = False
                        break
            if not ok:
                cand[i] = False
                s1[i] = ninf
                s2[i] = ninf
                continue
            score = 0.0
            for scorer in scorers:
                score += scorer(i)
            row = idle_rows[i]
            in_idle = True
            for k, v in req:
                if not row[k] - v > neg_eps:
                    in_idle = False
                    break
            cand[i] = True
            if in_idle:
                s1[i] = score
                s2[i] = ninf
            else:
                s1[i] = ninf
                s2[i] = score
        return True


class FitFailures:
    """Which dimensions passed LessEqual on which nodes, to name the others ("Insufficient cpu") later."""

    __slots__ = ("names", "dim_ok")

    def __init__(self, names: list[str], dim_ok: np.ndarray) -> None:
        self.names = names
        self.dim_ok = dim_ok

    def reasons(self, i: int) -> list[str]:
        return [f"Insufficient {n}" for n, ok in zip(self.names, self.dim_ok[:, i].tolist(), strict=True) if not ok]


class PredicateVector:
    """Session.Predicate for every node: where it passes (no error), where its error is
    UnschedulableAndUnresolvable, and the error itself on demand.

    `error(i)` builds the FitError the per-node predicate returned for node i when the vector was
    computed (what it depends on is captured).
    """

    __slots__ = ("passed", "unresolvable", "error")

    def __init__(self, passed: np.ndarray, unresolvable: np.ndarray,
                 error: Callable[[int], FitError | None]) -> None:
        self.passed = passed
        self.unresolvable = unresolvable
        self.error = error

    @staticmethod
    def combine(parts: list[PredicateVector], n: int) -> PredicateVector:
        """The tier walk: the first plugin with an error decides a node."""
        if not parts:
            return PredicateVector(np.ones(n, dtype=bool), np.zeros(n, dtype=bool), lambda i: None)
        if len(parts) == 1:
            return parts[0]
        passed = parts[0].passed
        unresolvable = parts[0].unresolvable
        for p in parts[1:]:
            unresolvable = unresolvable | (passed & p.unresolvable)
            passed = passed & p.passed

        def error(i: int) -> FitError | None:
            for p in parts:
                err = p.error(i)
                if err is not None:
                    return err
            return None

        return PredicateVector(passed, unresolvable, error)


class FitErrors(Mapping):
    """A failed task's per-node fit errors (allocate's predicateNodes), materialised on demand.

    Nodes failing FutureIdle get "Insufficient ..." (Unschedulable), the others the predicate's error,
    as when the task failed; `unresolvable()` gives the mask reclaim and preempt filter nodes with,
    without building 1,500 FitError objects.
    """

    def __init__(self, fit: NodeFit, fits: np.ndarray, failures: FitFailures, pv: PredicateVector) -> None:
        self.fit = fit
        self.fits = fits
        self.failures = failures
        self.pv = pv
        self._failing: np.ndarray | None = None
        self._cache: dict[int, FitError] = {}

    @property
    def failing(self) -> np.ndarray:
        if self._failing is None:
            self._failing = ~(self.fits & self.pv.passed)
        return self._failing

    def _error(self, i: int) -> FitError:
        err = self._cache.get(i)
        if err is None:
            if not self.fits[i]:
                err = FitError(self.fit.names[i], UNSCHEDULABLE, self.failures.reasons(i))
            else:
                err = self.pv.error(i)
                assert err is not None
            self._cache[i] = err
        return err

    def __getitem__(self, name: str) -> FitError:
        i = self.fit.pos.get(name)
        if i is None or not self.failing[i]:
            raise KeyError(name)
        return self._error(i)

    def __contains__(self, name: object) -> bool:
        i = self.fit.pos.get(name) if isinstance(name, str) else None
        return i is not None and bool(self.failing[i])

    def __iter__(self) -> Iterator[str]:
        names = self.fit.names
        return (names[i] for i in np.flatnonzero(self.failing).tolist())

    def __len__(self) -> int:
        return int(np.count_nonzero(self.failing))

    def unresolvable(self) -> np.ndarray:
        return self.fits & self.pv.unresolvable


def unresolvable_mask(fit: NodeFit, fit_errors: Mapping[str, Any] | None) -> np.ndarray:
    """Nodes whose recorded fit error is UnschedulableAndUnresolvable (reclaim/preempt skip them)."""
    if isinstance(fit_errors, FitErrors) and fit_errors.fit is fit:
        return fit_errors.unresolvable()
    out = np.zeros(fit.n, dtype=bool)
    for name, err in (fit_errors or {}).items():
        i = fit.pos.get(name)
        if i is not None and err.code == UNRESOLVABLE:
            out[i] = True
    return out


class NodeErrors(Mapping):
    """preempt's per-group predicate error cache (node name -> FitError), filled a mask at a time."""

    def __init__(self, fit: NodeFit) -> None:
        self.fit = fit
        self.mask = np.zeros(fit.n, dtype=bool)
        self._chunks: list[tuple[np.ndarray, PredicateVector]] = []
        self._set: dict[str, FitError] = {}

    def add(self, mask: np.ndarray, pv: PredicateVector) -> None:
        self.mask |= mask
        self._chunks.append((mask, pv))

    def __setitem__(self, name: str, err: FitError) -> None:
        self._set[name] = err
        i = self.fit.pos.get(name)
        if i is not None:
            self.mask[i] = True

    def __getitem__(self, name: str) -> FitError:
        if name in self._set:
            return self._set[name]
        i = self.fit.pos.get(name)
        if i is not None:
            for mask, pv in reversed(self._chunks):
                if mask[i]:
                    err = pv.error(i)
                    assert err is not None
                    return err
        raise KeyError(name)

    def __contains__(self, name: object) -> bool:
        i = self.fit.pos.get(name) if isinstance(name, str) else None
        return (i is not None and bool(self.mask[i])) or name in self._set

    def __iter__(self) -> Iterator[str]:
        names = self.fit.names
        return (names[i] for i in np.flatnonzero(self.mask).tolist())

    def __len__(self) -> int:
        return int(np.count_nonzero(self.mask))


class LazyMapping(Mapping[str, Any]):
    """A mapping built on first read (`_get`), then read as what was built: for trace details and error
    maps that are usually never read."""

    __slots__ = ()

    def _get(self) -> Mapping[str, Any]:
        raise NotImplementedError

    def __getitem__(self, key: str) -> Any:
        return self._get()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._get())

    def __len__(self) -> int:
        return len(self._get())


class DeferredErrors(LazyMapping):
    """predicate_nodes' error map when candidates were found (allocate then never reads it): built on
    first use, which must come before any node changes."""

    def __init__(self, build: Callable[[], tuple[Any, Mapping[str, Any]] | None], fit: NodeFit, version: int) -> None:
        self._build = build
        self._fit = fit
        self._version = version
        self._errors: Mapping[str, Any] | None = None

    def _get(self) -> Mapping[str, Any]:
        if self._errors is None:
            self._fit.refresh()
            if len(self._fit.log) != self._version:
                raise RuntimeError("fit errors read after the nodes changed; read them right away")
            built = self._build()
            assert built is not None
            self._errors = built[1]
        return self._errors
