"""The session's extension points for acceleration: vector forms of predicates and node orders over every
node at once (NodeFit), victim bounds, order keys, and the jobs that may starve, where a SnapshotCache knows.

Each answers exactly as the per-item rule it stands for (capacity.framework.session); the reference engine
(CAPACITY_LAB_ENGINE=reference) registers none of them and asks the rules (capacity.accel.Acceleration).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from capacity.accel import nodefit
from capacity.core.model import Job, Task
from capacity.core.resources import Resource
from capacity.framework.fast_forms import NodeVector
from capacity.framework.snapshot import SessionAttrs

if TYPE_CHECKING:
    from capacity.accel.session import AcceleratedSession

STARVING_NEEDS_MAY_STARVE = frozenset({"priority", "gang"})
"""The plugins whose jobStarving answers yes only for a job that Job.may_starve."""


class PluginBound:
    """One plugin's bound (PossibleVictims, Session.add_fast) for one preemptor: its test and the key under which
    its answers may be reused (None: not reusable)."""

    __slots__ = ("key", "test", "vector")

    def __init__(self, key: Any, test: Callable[[Task], bool],
                 vector: Callable[[Any, Any], Any] | None = None) -> None:
        self.key = key
        self.test = test
        self.vector = vector  # (table, rows) -> `test` of each of a VictimTable's rows at once, or None


class VictimBound:
    """Session.victim_possible's answer: what `_victims` can answer for one preemptor, tier by tier.

    `tiers` holds, per tier with plugins, the bounds of its plugins that have one and the bound of its
    last plugin (None if that one has none). A tier answers nothing on a node where one of those plugins
    allows none of the candidates (that plugin answers empty, which ends the tier); elsewhere it answers
    at most what its last plugin allows (its answer is intersected with, or after an empty intersection
    replaces, what came before), or anything if that plugin has no bound.
    """

    __slots__ = ("tiers",)

    def __init__(self, tiers: list[tuple[list[PluginBound], PluginBound | None]]) -> None:
        self.tiers = tiers

    def allowed(self, candidates: list[Task]) -> list[Task]:
        """The candidates (of one node, all of them) that `_victims` could name, in their order."""
        keep: set[int] = set()
        for bounds, last in self.tiers:
            if any(not any(b.test(t) for t in candidates) for b in bounds):
                continue
            if last is None:
                return list(candidates)
            keep.update(k for k, t in enumerate(candidates) if last.test(t))
        return [t for k, t in enumerate(candidates) if k in keep]


def _job_key(key_fns: tuple[Callable[[Job], Any], ...], log: list[Job]) -> Callable[[Job], tuple[Any, ...]]:
    """Session.job_key over the plugins' order keys `key_fns`; the jobs keyed go to `log`
    (Session.output_log)."""

    def key(job: Job) -> tuple[Any, ...]:
        k = job.order_key
        if k is None:
            k = job.order_key = (*[f(job) for f in key_fns], job.creation, job.uid)
            log.append(job)
        return k

    if len(key_fns) != 2:
        return key
    f0, f1 = key_fns

    def key2(job: Job) -> tuple[Any, ...]:
        """`key` for two plugin keys (the usual priority and gang), the tuple written out."""
        k = job.order_key
        if k is None:
            k = job.order_key = (f0(job), f1(job), job.creation, job.uid)
            log.append(job)
        return k

    return key2


def _keyed_job_less(key: Callable[[Job], tuple[Any, ...]]) -> Callable[[Job, Job], bool]:
    """`_first_decisive` for job orders that all have keys (the usual priority and gang): a heap comparison
    is one comparison of the two jobs' kept keys (Session.job_key): the first differing field decides as
    the first decisive plugin, then _job_tie, would."""

    def less(l: Job, r: Job) -> bool:
        kl = l.order_key
        if kl is None:
            kl = key(l)
        kr = r.order_key
        if kr is None:
            kr = key(r)
        return kl < kr

    return less


def _resource_key(r: Resource) -> tuple[Any, ...]:
    return r.cpu, r.memory, None if r.scalars is None else tuple(r.scalars.items())


class SessionFast(SessionAttrs):
    """Session's acceleration extension points (capacity.accel)."""

    def _open_fast(self) -> None:
        """The registries of the plugins' vector forms, empty, and whether the session may use NodeFit."""
        self.vectorised = nodefit.ENABLED and self.accel.node_fit
        self.vector_fns = {}
        self.vector_keys = {}
        self.node_fn_makers = {}
        self._node_fit = None

    def may_starve_now(self) -> list[Job] | None:
        """The jobs that might starve now (Job.may_starve), in the session's job order, with a cache: those
        that might at open and those a task moved in since (Job.change_log); None without a cache."""
        if self.may_starve_open is None or self.cache is None:
            return None
        jobs = self.jobs
        uids = self.may_starve_open.union(job.uid for job in self.cache.job_log)
        return [jobs[uid] for uid in sorted(uids) if uid in jobs]

    def starving_candidates(self) -> list[Job] | None:
        """`may_starve_now` if the deciding jobStarving functions are only priority's and gang's, which
        answer yes only for such a job; else None (ask every job)."""
        tier = self._starving_fns()
        if not tier or any(name not in STARVING_NEEDS_MAY_STARVE for name, _fn in tier):
            return None
        return self.may_starve_now()

    def victim_possible(self, point: str, preemptor: Task) -> VictimBound:
        """What `_victims(point, preemptor, candidates)` can answer now, from the plugins' bounds
        (PossibleVictims): see VictimBound."""
        tiers: list[tuple[list[PluginBound], PluginBound | None]] = []
        for tier in self.tiered(point):
            if not tier:
                continue
            bounds: list[PluginBound] = []
            last: PluginBound | None = None
            for name, _fn in tier:
                make = self.possible_fns.get((point, name))
                last = None
                if make is not None:
                    key, test, *vector = make(preemptor)  # (vector: [] or [the test's VictimTable form])
                    last = PluginBound(None if key is None else (point, name, key), test, *vector)
                    bounds.append(last)
            tiers.append((bounds, last))
        return VictimBound(tiers)

    def victim_bound_exact(self) -> bool:
        """Whether every request and allocatable is an integer small enough that node sums are exact
        (NodeFit's `exact`, over the same values): only then does a sum over a superset of victims bound
        every victim set's sum, and may reclaim / preempt pass over nodes on that bound."""
        if self._bound_exact is None:
            if self._node_fit is not None:
                self._bound_exact = self._node_fit.exact
            else:
                facts = nodefit.session_request_facts(cast("AcceleratedSession", self))
                facts.add(nodefit.request_facts([node.allocatable for node in self.node_list]))
                self._bound_exact = all(exact for _, exact in facts)
        return self._bound_exact

    # ---- the same questions for all nodes at once (capacity.accel.nodefit) --------------------------------
    def _add_vector_form(self, point: str, plugin: str, form: NodeVector) -> None:
        """Session.add_fast's NodeVector: the plugin's whole-NodeList form of `point` (see NodeVector)."""
        self.vector_fns[(point, plugin)] = form.fn
        self._placement_key_fns = None
        if form.key is not None:
            self.vector_keys[(point, plugin)] = form.key
        if form.node_fn is not None:
            self.node_fn_makers[(point, plugin)] = form.node_fn

    def node_fns(self, point: str, task: Task) -> list[Callable[[int], Any]] | None:
        """Every enabled plugin's per-node form of `point` for `task`, in tier order (see NodeVector);
        None if one has none. Predicates pass where all pass; nodeOrder scores add up in this order."""
        if point == "nodeOrder" and self.flat("batchNodeOrder"):
            return None
        out = []
        makers = self.node_fn_makers
        for name, _fn in self.flat(point):
            make = makers.get((point, name))
            got = make(task) if make is not None else None
            if got is None:
                return None
            out.append(got)
        return out

    def placement_key(self, task: Task) -> tuple[Any, ...] | None:
        """What allocate's node choice for `task` depends on besides node state, or None if unknown."""
        fns = self._placement_key_fns
        if fns is None:
            fns = self._placement_key_fns = self._key_fns()
        if fns is False:
            return None
        init, req = task.init_resreq, task.resreq
        k0 = _resource_key(init)
        keys: list[Any] = [k0, k0 if req is init else _resource_key(req)]
        for kf in fns:
            k = kf(task)
            if k is None:
                return None
            keys.append(k)
        return tuple(keys)

    def _key_fns(self) -> tuple[Callable[[Task], Any], ...] | bool:
        """placement_key's plugin keys in tier order (predicates, then node orders), looked up once the
        plugins are open; False when one has none or batchNodeOrder is in play (no key for any task)."""
        if self.flat("batchNodeOrder"):
            return False
        fns = []
        for point in ("predicate", "nodeOrder"):
            for name, _fn in self.flat(point):
                kf = self.vector_keys.get((point, name))
                if kf is None:
                    return False
                fns.append(kf)
        return tuple(fns)

    def node_fit(self) -> nodefit.NodeFit | None:
        """The session's NodeFit, current with every accounting change; None on the reference path."""
        fit = self._node_fit
        if fit is None:
            if not self.vectorised:
                return None
            fit = self._node_fit = nodefit.NodeFit(cast("AcceleratedSession", self))  # (a part of Session)
        elif fit.dirty:
            fit.refresh()
        return fit

    def predicate_vector(self, task: Task, among: Any = None, idx: Any = None) -> nodefit.PredicateVector | None:
        """Session.Predicate for every node (or the NodeList positions idx); `among` (a bool mask over all
        nodes) marks the nodes whose answer is used, so a plugin may skip its costly per-node checks
        elsewhere. None if a plugin has no vector form."""
        fit = self.node_fit()
        if fit is None:
            return None
        parts = []
        for name, _fn in self.flat("predicate"):
            vf = self.vector_fns.get(("predicate", name))
            if vf is None:
                return None
            parts.append(vf(task, among, idx))
        return nodefit.PredicateVector.combine(parts, fit.n if idx is None else len(idx))

    def node_scores_vector(self, task: Task, idx: Any) -> Any:
        """node_scores for the nodes at NodeList positions `idx`, as a float64 array in that order."""
        import numpy as np
        acc = np.zeros(len(idx))
        nodes = self.node_list
        for name, fn in self.flat("nodeOrder"):
            vf = self.vector_fns.get(("nodeOrder", name))
            got = vf(task, idx) if vf is not None else None
            if got is None:
                got = np.array([fn(task, nodes[i]) for i in idx.tolist()], dtype=float)
            acc += got
        batch = [fn for _name, fn in self.flat("batchNodeOrder")]
        if batch:
            chosen = [nodes[i] for i in idx.tolist()]
            pos = {n.name: k for k, n in enumerate(chosen)}
            for fn in batch:
                for node_name, s in fn(task, chosen).items():
                    acc[pos[node_name]] += s
        return acc
