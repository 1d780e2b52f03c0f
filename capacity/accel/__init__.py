"""Acceleration: everything that makes a cycle fast without changing what it decides (issue 28).

The reference engine (capacity.framework, capacity.plugins, capacity.actions) reads like Volcano: plain
loops over nodes, jobs and tasks, no caches. Beside it sit the fast paths: the SnapshotCache handed from one
cycle to the next, the vectorised node fit (capacity.accel.nodefit) with its compiled loops (capacity.accel.kernels),
victim bounds (capacity.accel.victim_bound), order keys and the capacity plugin's own queue heap
(capacity.accel.capacity_heap), and the shortcuts an untraced cycle may take past effect-free answers.
Each is reached through one field of `Acceleration`, which the Session holds (`Session.accel`); one switch,
the environment variable CAPACITY_LAB_ENGINE (read here and nowhere else), chooses:

    CAPACITY_LAB_ENGINE=reference    none of them: the reference engine alone
    CAPACITY_LAB_ENGINE=accelerated  all of them (the default)

Both decide the same: tests/unit/test_engines_agree.py runs both on the acceptance corpus, the lessons, the
property scenarios and random hierarchies and compares decisions, queue numbers and trace records.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from capacity.core.errors import InputError

ENGINE_ENV = "CAPACITY_LAB_ENGINE"
"""The one switch: `reference` or `accelerated` (default)."""


@dataclass(frozen=True, slots=True)
class Acceleration:
    """Which fast paths a session may take. Every one answers exactly as the reference code beside it."""

    name: str
    snapshot_cache: bool
    """A Simulator hands a SnapshotCache from one cycle to the next (capacity.accel.snapshot_cache):
    nodes, jobs and the capacity plugin's queue tree that did not change are taken as they are."""
    node_fit: bool
    """The vectorised node fit (capacity.accel.nodefit.NodeFit, Placements, plugins' NodeVector forms) for
    predicates, scores and the victim tables; compiled loops (capacity.accel.kernels) where numba is."""
    jit: bool
    """numba-compiled loops (capacity.accel.kernels) where numba is installed."""
    victim_bounds: bool
    """Reclaim and preempt pass over nodes on the plugins' bounds (PossibleVictims forms, Session.add_fast)."""
    order_keys: bool
    """Heaps compare plugins' order keys (OrderKey / OrderLess / OrderHeap / OrderFn forms, Session.add_fast), the
    capacity plugin's own queue heap (capacity.accel.capacity_heap) and its memoised queue pairs."""
    exact_sums: bool
    """The capacity plugin sums its queue tree leaf by leaf where every sum is exact, instead of passing
    each job's change up to every ancestor as Volcano does."""
    actions: tuple[str, ...]
    """The actions run by their accelerated form, capacity.accel.<name>, instead of capacity.actions.<name>."""
    untraced_shortcuts: bool
    """With nothing traced, the actions are handed only the jobs whose answers can change a decision
    (capacity.accel.job_lists, ssn.job_lists) and pass over nodes holding no candidate: the answers skipped
    would only leave their trace record (JobValid, JobStarving of jobs that cannot matter, queues that cannot act)."""


ACCELERATED = Acceleration("accelerated", snapshot_cache=True, node_fit=True, jit=True, victim_bounds=True,
                           order_keys=True, exact_sums=True, actions=("enqueue",),
                           untraced_shortcuts=True)
REFERENCE = Acceleration("reference", snapshot_cache=False, node_fit=False, jit=False, victim_bounds=False,
                         order_keys=False, exact_sums=False, actions=(),
                         untraced_shortcuts=False)
ENGINES = {a.name: a for a in (ACCELERATED, REFERENCE)}


def engine() -> Acceleration:
    """The engine CAPACITY_LAB_ENGINE names (read at each call, so a test can set it); an unknown name is
    refused with the names there are."""
    raw = os.environ.get(ENGINE_ENV, "").strip().lower()
    if not raw:
        return ACCELERATED
    got = ENGINES.get(raw)
    if got is None:
        raise InputError("environment", ENGINE_ENV,
                         f"{raw!r} is not an engine: expected one of {', '.join(sorted(ENGINES))}")
    return got
