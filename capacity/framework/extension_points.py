"""The typed extension points through which the actions reach acceleration (issue 28).

An action calls the same method in both engines: `ssn.placement` (allocate's and backfill's node choice)
and `ssn.victims` (the nodes reclaim and preempt visit). The classes here are the reference forms, plain
loops over the NodeList as Volcano writes them (its framework/util helpers: PredicateNodes,
PrioritizeNodes, SelectBestNode); the accelerated forms (capacity.accel.allocate_fit,
capacity.accel.victim_paths) subclass them and answer the same from NodeFit's vectors. Which class a
session holds is chosen once at open (SessionFast._open_fast), from the Acceleration.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from capacity.core.model import UNRESOLVABLE, UNSCHEDULABLE, FitError, Job, Node, Task
from capacity.core.resources import ZERO, Resource

if TYPE_CHECKING:
    from capacity.framework.session import Session

TIE_NOTE = "Volcano picks at random among equal scores; Capacity Lab takes the first in node order"


class NodePlacement(Protocol):
    """Where a task may go and which node it gets (allocate, backfill)."""

    def predicate_nodes(self, task: Task, nodes: list[Node]) -> tuple[Sequence[Node], Mapping[str, FitError]]:
        """ph.PredicateNodes with allocate's predicate: the nodes passing it (NodeList order), the others'
        errors."""
        ...

    def choose_node(self, task: Task, candidates: Sequence[Node]) -> tuple[Node | None, bool]:
        """allocate's prioritizeNodes: the node, and whether the task is pipelined there (gradient G2)."""
        ...

    def fit_report(self, errors: Mapping[str, FitError], total: int) -> tuple[str, Mapping[str, str]]:
        """allocate's noFit record: fit_summary(errors, total) and every node's error as text."""
        ...

    def backfill_nodes(self, task: Task) -> Sequence[Node]:
        """backfill's candidates: the nodes passing PredicateForAllocateAction, in NodeList order."""
        ...


def fit_summary(errors: Mapping[str, FitError], total: int) -> str:
    """kube-scheduler style: '0/3 nodes are available: 2 Insufficient cpu, 1 node selector'."""
    counts: dict[str, int] = {}
    for e in errors.values():
        for r in e.reasons:
            counts[r] = counts.get(r, 0) + 1
    parts = ", ".join(f"{n} {r}" for r, n in sorted(counts.items(), key=lambda x: (-x[1], x[0])))
    return f"0/{total} nodes are available: {parts}" if parts else f"0/{total} nodes are available"


class ReferencePlacement:
    """NodePlacement as plain loops over the nodes, asking the plugins node by node."""

    __slots__ = ("ssn",)

    def __init__(self, ssn: Session) -> None:
        self.ssn = ssn

    def allocate_predicate(self, task: Task, node: Node) -> FitError | None:
        """allocate.go:985-993 @ed72c7c8: FutureIdle fit (pods included), then PredicateForAllocateAction."""
        fi = node.future_idle()
        if not task.init_resreq.less_equal(fi, ZERO):
            _, failed = task.init_resreq.less_equal_with_resources_name(fi, ZERO)
            return FitError(node.name, UNSCHEDULABLE, [f"Insufficient {n}" for n in failed])
        return self.ssn.predicate_for_allocate(task, node)

    def predicate_nodes(self, task: Task, nodes: list[Node]) -> tuple[Sequence[Node], Mapping[str, FitError]]:
        ok: list[Node] = []
        errors: dict[str, FitError] = {}
        for n in nodes:
            err = self.allocate_predicate(task, n)
            if err is None:
                ok.append(n)
            else:
                errors[n.name] = err
        return ok, errors

    def choose_node(self, task: Task, candidates: Sequence[Node]) -> tuple[Node | None, bool]:
        """Gradient G1 (fits Idle) then G2 (fits FutureIdle); a single node wins unscored (§8.2)."""
        ssn = self.ssn
        g1 = [n for n in candidates if task.init_resreq.less_equal(n.idle, ZERO)]
        g1_names = {n.name for n in g1}
        g2 = [n for n in candidates if n.name not in g1_names]
        for gradient, pipelined in ((g1, False), (g2, True)):
            if not gradient:
                continue
            if len(gradient) == 1:
                return gradient[0], pipelined
            scores = ssn.node_scores(task, gradient)
            best = max(scores.values())
            tied = [n for n in gradient if scores[n.name] == best]
            if len(tied) > 1:
                ssn.trace.event("scoreTie", task.key, tied[0].name, tied=[n.name for n in tied], note=TIE_NOTE)
            return tied[0], pipelined
        return None, False

    def fit_report(self, errors: Mapping[str, FitError], total: int) -> tuple[str, Mapping[str, str]]:
        return fit_summary(errors, total), {name: str(e) for name, e in errors.items()}

    def backfill_nodes(self, task: Task) -> Sequence[Node]:
        ssn = self.ssn
        return [n for n in ssn.node_list if ssn.predicate_for_allocate(task, n) is None]



# ---- victims: the nodes reclaim and preempt visit -----------------------------------------------------------

def room_bound_fails(task: Task, node: Node, candidates: list[Task], possible: Any = None) -> bool:
    """True if the task does not fit FutureIdle plus every one of the node's candidates (all of them, in
    node order) that `possible` (an accelerated engine's VictimBound) says the plugins could name (all if
    None): then no victim set validates (ValidateVictims), and the attempt there would change nothing."""
    avail = node.future_idle()
    for t in candidates if possible is None else possible.allowed(candidates):
        avail.add(t.resreq)
    return not task.init_resreq.less_equal(avail, ZERO)


class Skipped:
    """The nodes one preemptor's attempt passed over on the room bound, for the one summary record."""

    __slots__ = ("names", "tracing")

    def __init__(self, ssn: Session) -> None:
        self.tracing = ssn.trace.enabled
        self.names: list[str] = []

    def add(self, node: Node) -> None:
        if self.tracing:
            self.names.append(node.name)

    def extend(self, names: list[str]) -> None:
        if self.tracing:
            self.names.extend(names)

    def file(self, ssn: Session, kind: str, task: Task, why: str) -> None:
        if self.tracing and self.names:
            ssn.trace.event(kind, task.key, False, nodes=self.names, why=why)
            self.names = []


def not_unresolvable(ssn: Session, fit_errors: Mapping[str, FitError]) -> list[Node]:
    """FilterOutUnschedulableAndUnresolvableNodesForTask: the NodeList less the nodes whose fit error (from
    allocate) is UnschedulableAndUnresolvable."""
    return [n for n in ssn.node_list if not (n.name in fit_errors and fit_errors[n.name].code == UNRESOLVABLE)]


def num_feasible_nodes_to_find(n: int) -> int:
    """CalculateNumOfFeasibleNodesToFind: all nodes up to 100, then a shrinking share, never below 100."""
    if n <= 100:
        return n
    found = n * max(5, 50 - n // 125) // 100
    return max(found, 100)


class VictimFilter:
    """A preempt phase's victim filter: `keep(t)`, and what it stands for, so that an accelerated engine can
    apply it to all nodes at once: the preemptor's other jobs in `queue`, or (queue None) its own job."""

    __slots__ = ("keep", "preemptor", "queue")

    def __init__(self, keep: Callable[[Task], bool], preemptor: Task, queue: str | None) -> None:
        self.keep = keep
        self.preemptor = preemptor
        self.queue = queue

    def __call__(self, t: Task) -> bool:
        return self.keep(t)


def node_tasks(ssn: Session, node: Node) -> list[Task]:
    """The node's tasks as session tasks (node order)."""
    out = []
    for nt in node.tasks.values():
        t = ssn.all_tasks.get(nt.uid)
        if t is not None:
            out.append(t)
    return out


EXACT_LIMIT = float(2**44)
"""Request and allocatable values must be integers below this for sums of them to be exact in float64, so that
their order cannot matter: only then may a bound over a superset of victims stand for every victim set."""


def exact_integers(resources: Iterable[Resource]) -> bool:
    """Whether every cpu, memory and scalar value of `resources` is an integer of magnitude below EXACT_LIMIT
    (NaN and infinities are not: the magnitude test fails first)."""
    lim = EXACT_LIMIT
    for r in resources:
        c, m = r.cpu, r.memory
        if not (abs(c) < lim and c % 1 == 0 and abs(m) < lim and m % 1 == 0):
            return False
        if r.scalars and not all(abs(v) < lim and v % 1 == 0 for v in r.scalars.values()):
            return False
    return True


class NodeBound:
    """Which nodes a preemptor's attempt passes over: where it does not fit FutureIdle even with every
    candidate gone (integral quantities only: Session.victim_bound_exact). Node by node here; an
    accelerated engine knows for all nodes at once (`room`) and which nodes hold no candidate (`has`)."""

    __slots__ = ("ssn", "task", "keep", "possible", "exact", "has", "room")

    def __init__(self, ssn: Session, task: Task, keep: Callable[[Task], bool], possible: Any = None) -> None:
        self.ssn = ssn
        self.task = task
        self.keep = keep
        self.possible = possible
        self.exact = ssn.victim_bound_exact()
        self.has: Any = None  # (numpy bool arrays over the NodeList where known)
        self.room: Any = None

    def passes(self, node: Node) -> bool:
        """False: no victim set on the node validates (ValidateVictims), so it is passed over."""
        if self.room is not None:
            return bool(self.room[node.index])
        if not self.exact:
            return True
        candidates = [t for t in node_tasks(self.ssn, node) if self.keep(t)]
        return not room_bound_fails(self.task, node, candidates, self.possible)

    def visits_none(self, nodes: Sequence[Node], skipped: Skipped) -> bool:
        """True if the bound passes over every node (they are then added to `skipped`): known only to an
        accelerated engine, which need not order them."""
        return False

    def needs_no_victim(self, node: Node) -> bool:
        """True if the node holds no candidate, where known and nothing is traced: there the attempt
        succeeds only if the task fits as it is and the queue is Allocatable."""
        return False

    def holds_no_candidate(self, node: Node) -> bool:
        """True if the node holds no candidate, where known and nothing is traced: a dry run there finds no
        victim, and its only effect would be its record."""
        return False


class VictimPaths(Protocol):
    """Which nodes reclaim and preempt try, in which order, and which they pass over."""

    def reclaim_nodes(self, task: Task, job: Job, reclaimees: Callable[[Node], list[Task]],
                      skipped: Skipped) -> Iterator[tuple[Node, list[Task]]]:
        """reclaim.go's node loop for one task: the nodes not unresolvable and passing
        PredicateForPreemptAction, in NodeList order, that hold reclaimees (with them), less those where
        the reclaimees cannot make room (added to `skipped`)."""
        ...

    def preempt_predicate_nodes(self, task: Task, error_cache: dict[str, Any], use_cache: bool) -> Sequence[Node]:
        """preempt's FilterOutUnschedulableAndUnresolvableNodesForTask and PredicateNodes with
        PredicateForPreemptAction, `error_cache` the action's PredicateHelper cache ("<job>/<role>" -> node ->
        error), read only if `use_cache`."""
        ...

    def node_bound(self, task: Task, nodes: Sequence[Node], keep: VictimFilter) -> NodeBound:
        """The nodes a preemptor with the phase's filter `keep` passes over."""
        ...

    def nodes_by_score(self, task: Task, nodes: Sequence[Node]) -> Sequence[Node]:
        """PrioritizeNodes + SortNodes: score descending; equal scores keep predicate (NodeList) order."""
        ...


class ReferenceVictims:
    """VictimPaths as Volcano's loops, node by node."""

    __slots__ = ("ssn",)

    def __init__(self, ssn: Session) -> None:
        self.ssn = ssn

    def possible(self, point: str, task: Task) -> Any:
        """The plugins' bound on `point`'s victims: none on the reference engine (every candidate counts)."""
        return None

    def reclaim_nodes(self, task: Task, job: Job, reclaimees: Callable[[Node], list[Task]],
                      skipped: Skipped) -> Iterator[tuple[Node, list[Task]]]:
        ssn = self.ssn
        possible = self.possible("reclaimable", task)
        exact = ssn.victim_bound_exact()
        nodes = not_unresolvable(ssn, job.nodes_fit_errors.get(task.uid) or {})
        for node in [n for n in nodes if ssn.predicate_for_preempt(task, n) is None]:
            found = reclaimees(node)
            if not found:
                continue
            if exact and room_bound_fails(task, node, found, possible):
                skipped.add(node)
                continue
            yield node, found

    def preempt_predicate_nodes(self, task: Task, error_cache: dict[str, Any], use_cache: bool) -> Sequence[Node]:
        """One error cache serves the whole action, keyed "<job>/<role>"; it is read only for tasks with a
        role. Nodes are checked in NodeList order starting at index 0 (Volcano: a rotating global index)."""
        ssn = self.ssn
        nodes = not_unresolvable(ssn, ssn.jobs[task.job].nodes_fit_errors.get(task.uid) or {})
        group = f"{task.job}/{task.role}"
        cached = error_cache.get(group)
        use_cache = use_cache and bool(task.role) and cached is not None
        limit = num_feasible_nodes_to_find(len(nodes))
        found: list[Node] = []
        for node in nodes:
            if use_cache and cached is not None and node.name in cached:
                continue
            err = ssn.predicate_for_preempt(task, node)
            if err is not None:
                error_cache.setdefault(group, {})[node.name] = err
                continue
            found.append(node)
            if len(found) >= limit:
                break
        return found

    def node_bound(self, task: Task, nodes: Sequence[Node], keep: VictimFilter) -> NodeBound:
        return NodeBound(self.ssn, task, keep, self.possible("preemptable", task))

    def nodes_by_score(self, task: Task, nodes: Sequence[Node]) -> Sequence[Node]:
        scores = self.ssn.node_scores(task, nodes)
        return sorted(nodes, key=lambda n: -scores[n.name])


# ---- job lists: the jobs an action ranges over ----------------------------------------------------------------

class JobLists(Protocol):
    """The jobs allocate, preempt and reclaim range over (Volcano: `for _, job := range ssn.Jobs`). An accelerated
    engine may leave out, with nothing traced, jobs whose answers (JobValid, JobStarving) would have no effect
    but their trace record: the actions make the same decisions either way (tests/unit/test_engines_agree.py)."""

    def allocate_jobs(self, has_enqueue: bool) -> Iterable[Job]:
        """buildAllocateContext's jobs (allocate.go:L142-206 @ed72c7c8): every job, or a subset holding every
        job past Pending with a Pending task and (without enqueue) every Pending job."""
        ...

    def preempt_jobs(self, older: bool) -> Iterable[Job]:
        """preempt's jobs (preempt.go:L112-151 @ed72c7c8): every job, or a subset holding every starving job past
        Pending (`older`: before PR #5142, where every valid job's queue counts)."""
        ...

    def reclaim_jobs(self, queued: set[str]) -> Iterable[Job]:
        """reclaim's jobs (reclaim.go:L72-104 @ed72c7c8), read lazily: every job, or a subset holding every job
        past Pending that is starving or whose queue is not yet in `queued` (the queues met so far)."""
        ...

    def reclaim_skips_queues(self) -> bool:
        """True if reclaim may skip its queue loop when no job is starving: it would only ask each queue
        `overused` (reclaim.go:L106-116 @ed72c7c8), an answer that then has no effect but its record."""
        ...


class ReferenceJobLists:
    """JobLists as Volcano ranges: every job, every queue asked."""

    __slots__ = ("ssn",)

    def __init__(self, ssn: Session) -> None:
        self.ssn = ssn

    def allocate_jobs(self, has_enqueue: bool) -> Iterable[Job]:
        return self.ssn.jobs.values()

    def preempt_jobs(self, older: bool) -> Iterable[Job]:
        return self.ssn.jobs.values()

    def reclaim_jobs(self, queued: set[str]) -> Iterable[Job]:
        return self.ssn.jobs.values()

    def reclaim_skips_queues(self) -> bool:
        return False
