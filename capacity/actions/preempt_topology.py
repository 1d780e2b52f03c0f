"""Topology-aware preemption: kube-scheduler's default preemption, as Volcano ports it (spec §7.5).

Enabled by the preempt argument `enableTopologyAwarePreemption`. Instead of walking nodes by score and
evicting until the preemptor fits (normal preemption), it dry-runs every candidate node: remove victims
in victim order until the preemptor fits, then reprieve them from the most important down, keeping only
those whose return would break the fit. Among the nodes that yield victims it picks one with
pickOneNodeForPreemption's criteria, evicts that node's victims and pipelines the preemptor there.

Volcano dry-runs on node clones while plugins keep copies of their state in a CycleState. Here the
removals are applied to the live node and undone exactly afterwards; plugins that offer simulate hooks
get their own state copy as upstream, the others are kept in step through their event handlers (see
`Simulation`).

Deterministic where Volcano is not: the dry run starts at node offset 0 (Volcano: a random offset and 16
parallel workers) and candidates keep dry-run order, so "the first node" of the last tie-break is the
first in predicate order (Volcano: Go map order). Both are recorded in the trace.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from capacity.actions.queue_change import file_eviction, file_placement, queues_now
from capacity.actions.reclaim import validate_victims
from capacity.core.model import Node, QueueSpec, Task
from capacity.core.resources import ZERO
from capacity.framework.extension_points import Skipped
from capacity.framework.session import FitError, Session
from capacity.framework.statement import Statement

#: Reason the predicates plugin gives for the pod-count check; SimulatePredicate does not run it.
POD_COUNT_REASON = "Too many pods"
MAX_INT32_PLUS_ONE = 2**31


@dataclass(frozen=True, slots=True)
class CandidateLimits:
    """How many successful dry runs to collect (preempt arguments; defaults as in Volcano)."""

    min_percentage: int = 10
    min_absolute: int = 1
    max_absolute: int = 100


@dataclass(slots=True)
class Candidate:
    """One node that can host the preemptor, with the victims it would cost (most important first)."""

    node: Node
    victims: list[Task]


def calculate_num_candidates(num_nodes: int, limits: CandidateLimits) -> int:
    """calculateNumCandidates: a percentage of the nodes, clamped to [min, max] and to the node count."""
    n = num_nodes * limits.min_percentage // 100
    n = max(n, limits.min_absolute)
    n = min(n, limits.max_absolute)
    return min(n, num_nodes)


def pod_priority(task: Task) -> int:
    """PodPriority: the pod's spec.priority, and 0 (not Volcano's task default of 1) when it is unset."""
    return task.spec.raw_priority if task.spec.has_priority else 0


def topology_aware_preempt(ssn: Session, stmt: Statement, task: Task, queue: QueueSpec, nodes: Sequence[Node],
                           candidates_on: Callable[[Node], list[Task]], limits: CandidateLimits,
                           bound: Any = None) -> bool:
    """topologyAwarePreempt: dry-run the nodes, choose one candidate, evict its victims, pipeline there."""
    candidates = find_candidates(ssn, task, queue, nodes, candidates_on, limits, bound)
    if not candidates:
        ssn.trace.event("preemptNoCandidates", task.key, False, nodes=[n.name for n in nodes])
        return False
    best = select_candidate(ssn, task, candidates)
    ssn.trace.event("preemptCandidateChosen", task.key, best.node.name,
                    victims=[v.key for v in best.victims], candidates=[c.node.name for c in candidates])
    node_stmt = Statement(ssn)
    traced = ssn.trace.enabled
    for victim in best.victims:
        before = queues_now(ssn, victim, task) if traced else None
        node_stmt.evict(victim, "preempt")
        if before is not None:
            file_eviction(ssn, "preempt", task, victim, before)
    before = queues_now(ssn, task) if traced else None
    node_stmt.pipeline(task, best.node.name, True)
    if before is not None:
        file_placement(ssn, "preempt", task, best.node.name, before)
    stmt.merge(node_stmt)
    return True


def find_candidates(ssn: Session, task: Task, queue: QueueSpec, nodes: Sequence[Node],
                    candidates_on: Callable[[Node], list[Task]], limits: CandidateLimits,
                    bound: Any = None) -> list[Candidate]:
    """DryRunPreemption: visit nodes from the offset until enough nodes yielded at least one victim.

    Nodes that `bound` (extension_points.NodeBound) passes over, where no victim set validates, are rejected
    without a dry run, all in one record. With tracing off so are, silently, nodes `bound` knows to hold
    no candidate at all: their dry run finds no victim.
    """
    if not nodes:
        return []
    wanted = calculate_num_candidates(len(nodes), limits)
    offset = 0
    ssn.trace.event("preemptDryRun", task.key, True, offset=offset, wanted=wanted, nodes=len(nodes),
                    note="Volcano starts the dry run at a random node offset with parallel workers; "
                         "Capacity Lab starts at offset 0 and visits nodes in predicate order")
    found: list[Candidate] = []
    skipped = Skipped(ssn)
    for i in range(len(nodes)):
        node = nodes[(offset + i) % len(nodes)]
        if bound is not None and not bound.passes(node):
            skipped.add(node)
            continue
        if bound is not None and bound.holds_no_candidate(node):
            continue
        victims, why = select_victims_on_node(ssn, task, queue, node, candidates_on(node))
        if not victims:
            ssn.trace.event("preemptNodeRejected", task.key, node.name, why=why)
            continue
        ssn.trace.event("preemptCandidate", task.key, node.name, victims=[v.key for v in victims])
        found.append(Candidate(node, victims))
        if len(found) >= wanted:
            break
    skipped.file(ssn, "preemptNodeRejected", task, NO_VALIDATED_VICTIMS)
    return found


NO_VALIDATED_VICTIMS = "no validated victims: the preemptor does not fit even if every victim goes"


def select_victims_on_node(ssn: Session, task: Task, queue: QueueSpec, node: Node,
                           candidates: list[Task]) -> tuple[list[Task], str]:
    """SelectVictimsOnNode: the smallest victim set found by remove-until-fit, then reprieve.

    Returns the victims, most important first, or an empty list and the reason the node is unusable.
    """
    all_victims = ssn.preemptable(task, candidates) or []
    if not validate_victims(task, node, all_victims):
        return [], NO_VALIDATED_VICTIMS
    sim = Simulation(ssn, node)
    try:
        potential: list[Task] = []
        for victim in ssn.victims_in_order(all_victims, task):
            potential.append(victim)
            sim.remove(victim)
            if sim.fits(queue, task):
                break
        if not potential:
            return [], "no preemption victims found for incoming pod"
        err = sim.predicate(task)
        if err is not None:
            return [], f"failed to predicate the pod after removing every victim: {err}"
        victims: list[Task] = []
        reprieve = list(reversed(potential))  # reprieve the most important victims first
        if ssn.options.older("pr5214"):  # preempt.go:L813-818 @v1.14.0: in pop order, least important first
            reprieve = potential
            if len(potential) > 1 and ssn.trace.enabled:
                ssn.trace.event("reprieveOrder", task.key, node.name, switch="pr5214",
                                order=[v.key for v in potential],
                                words=f"{ssn.options.older_words('pr5214')}: reprieved in the order "
                                      f"{', '.join(v.key for v in potential)}")
            # (v1.14 also sorted the victims by MoreImportantPod before the victim heap, preempt.go:L750: no
            # effect on the pop order, which within a queue or a job is a strict order either way.)
        for victim in reprieve:
            sim.add(victim)
            if not sim.fits(queue, task):
                sim.remove(victim)
                victims.append(victim)
        if not victims:
            return [], "expected at least one victim pod on the node"
        return victims, ""
    finally:
        sim.undo()


class Simulation:
    """One node's dry run: Volcano's node clone plus CycleState, emulated on the live session.

    Removing a task takes it off the live node and fires the plugins' DeallocateFunc, which keeps the
    Kubernetes mirror and the queue counters of plugins without simulate hooks in step; plugins that
    offer hooks (`simulate_state`, `simulate_remove_task`, `simulate_add_task`, `simulate_allocatable`,
    `simulate_predicate`, as proportion does) get their own state copy, as upstream. `undo` restores
    everything exactly. Why not a Statement: discarding an eviction returns the task as Running
    (trap 19), records a last transaction and moves the job's task index; a dry run must leave no trace.
    """

    def __init__(self, ssn: Session, node: Node) -> None:
        self.ssn = ssn
        self.node = node
        self.removed: dict[str, Task] = {}
        self._task_order = list(node.tasks)
        self._mirror_order = list(node.mirror)
        self.states: dict[str, Any] = {}
        for name, plugin in ssn.plugins.items():
            if hasattr(plugin, "simulate_state") and _enabled(ssn, name, "preemptable", "allocatable"):
                self.states[name] = plugin.simulate_state()

    def remove(self, task: Task) -> None:
        """NodeInfo.RemoveTask on the node plus SimulateRemoveTask."""
        self.node.remove_task(task)
        self.ssn.fire_deallocate(task)
        for name, state in self.states.items():
            hook = getattr(self.ssn.plugins[name], "simulate_remove_task", None)
            if hook is not None:
                hook(state, task)
        self.removed[task.uid] = task

    def add(self, task: Task) -> None:
        """NodeInfo.AddTask on the node plus SimulateAddTask."""
        self.node.add_task(task)
        self.ssn.fire_allocate(task)
        for name, state in self.states.items():
            hook = getattr(self.ssn.plugins[name], "simulate_add_task", None)
            if hook is not None:
                hook(state, task)
        del self.removed[task.uid]

    def undo(self) -> None:
        """Put every removed task back on the live node and restore the node's iteration orders."""
        for task in reversed(list(self.removed.values())):
            self.node.add_task(task)
            self.ssn.fire_allocate(task)
        self.removed.clear()
        _reorder(self.node.tasks, self._task_order)
        _reorder(self.node.mirror, self._mirror_order)

    def fits(self, queue: QueueSpec, task: Task) -> bool:
        """SimulateAllocatable, the request within FutureIdle, then SimulatePredicate."""
        if not self.allocatable(queue, task):
            return False
        if not task.init_resreq.less_equal(self.node.future_idle(), ZERO):
            return False
        return self.predicate(task) is None

    def allocatable(self, queue: QueueSpec, task: Task) -> bool:
        """SimulateAllocatableFn: AND over the plugins with Allocatable on.

        A plugin with a `simulate_allocatable` hook answers on its state copy (proportion's, like
        Volcano's, skips the queue-Open check); one without answers with its Allocatable function on
        its live counters, which the removals above have already moved.
        """
        ssn = self.ssn
        for tier in ssn.tiered("allocatable"):
            for name, fn in tier:
                hook = getattr(ssn.plugins.get(name), "simulate_allocatable", None)
                if hook is not None and name in self.states:
                    ok = hook(self.states[name], queue, task)
                else:
                    ok = fn(queue, task)
                ssn.trace.take()  # a dry-run answer is not a decision; drop the plugin's reasons
                if not ok:
                    return False
        return True

    def predicate(self, task: Task) -> FitError | None:
        """SimulatePredicateFn: the first error of the plugins with Predicate on.

        Upstream only the predicates plugin has one and it runs just the inter-pod affinity filter: no
        pod count (FutureIdle's `pods` covers it) and no static filters (they passed
        PredicateForPreemptAction already). Without a `simulate_predicate` hook the plugin's full
        predicate stands in, with a failure that is only the pod count ignored.
        """
        ssn = self.ssn
        for tier in ssn.tiered("predicate"):
            for name, fn in tier:
                hook = getattr(ssn.plugins.get(name), "simulate_predicate", None)
                if hook is not None:
                    err = hook(self.states.get(name), task, self.node)
                else:
                    err = fn(task, self.node)
                    if err is not None and all(r == POD_COUNT_REASON for r in err.reasons):
                        err = None
                if err is not None:
                    return err
        return None


def _enabled(ssn: Session, plugin: str, *points: str) -> bool:
    """Whether the plugin's first tier entry turns on any of these extension points."""
    opt = ssn.conf.plugin(plugin)
    return opt is not None and any(opt.enabled(p) for p in points)


def _reorder(d: dict[str, Task], order: list[str]) -> None:
    """Re-insert a dict's items in a saved key order (keys that vanished are dropped from the order)."""
    saved = set(order)
    items = [(k, d[k]) for k in order if k in d]
    rest = [(k, v) for k, v in d.items() if k not in saved]
    d.clear()
    d.update(items)
    d.update(rest)


def select_candidate(ssn: Session, task: Task, candidates: list[Candidate]) -> Candidate:
    """SelectCandidate: one candidate is taken as is; otherwise pickOneNodeForPreemption decides."""
    if len(candidates) == 1:
        return candidates[0]
    return pick_one_node(ssn, task, candidates)


def pick_one_node(ssn: Session, task: Task, candidates: list[Candidate]) -> Candidate:
    """pickOneNodeForPreemption: lowest highest-victim priority, lowest priority sum (each + 2^31), fewest
    victims, latest start of the highest-priority victims, then the first node left."""
    score_fns: list[tuple[str, Callable[[Candidate], float]]] = [
        ("minHighestPriority", lambda c: -pod_priority(c.victims[0])),
        ("minSumPriorities", lambda c: -sum(pod_priority(v) + MAX_INT32_PLUS_ONE for v in c.victims)),
        ("minNumPods", lambda c: -len(c.victims)),
        ("latestStartTime", lambda c: earliest_start_of_highest_priority(c.victims)),
    ]
    left = candidates
    for rule, fn in score_fns:
        scores = [fn(c) for c in left]
        best = max(scores)
        left = [c for c, s in zip(left, scores, strict=True) if s == best]
        if len(left) == 1:
            ssn.trace.event("preemptPickNode", task.key, left[0].node.name, rule=rule)
            return left[0]
    ssn.trace.event("preemptPickNode", task.key, left[0].node.name, rule="first",
                    tied=[c.node.name for c in left],
                    note="Volcano takes the first of the tied nodes in Go map order (random); Capacity Lab "
                         "takes the first in dry-run order")
    return left[0]


def earliest_start_of_highest_priority(victims: list[Task]) -> float:
    """GetEarliestPodStartTime over the highest-priority victims, as a POSIX timestamp.

    Pod start times are not modelled: the pod's creationTimestamp stands in for status.startTime. A pod
    without one counts as starting now, like a pod whose startTime is nil upstream.
    """
    top = max(pod_priority(v) for v in victims)
    return min(_start_time(v) for v in victims if pod_priority(v) == top)


def _start_time(task: Task) -> float:
    raw = task.spec.creation
    if not raw:
        return math.inf
    try:
        return datetime.fromisoformat(raw.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return math.inf
