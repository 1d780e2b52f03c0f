"""One scheduling cycle end to end: open a session, run the actions, close, write back.

This is Volcano's runOnce (scheduler.go:124-153) plus the part of the API server and kubelet that a
snapshot-to-snapshot simulator needs: binds land on pods, evictions mark pods terminating, PodGroup
phases persist (spec actions-framework §11).

It is also the composition root (issue 28), as scheduler.go is where Volcano wires framework, plugins and
actions together: the engine switch (capacity.accel.engine) chooses the reference engine
(capacity.framework's Session, capacity.plugins' REGISTRY, capacity.actions) or the accelerated one composed in
capacity.accel (AcceleratedSession, ACCELERATED_PLUGINS, accelerated actions), which sits above the reference
engine and is imported only here, at the first session that needs it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from capacity.accel import REFERENCE, Acceleration, engine
from capacity.core.cluster import Cluster
from capacity.core.gcpause import gc_paused  # noqa: F401  (here since issue 9; also holds it while a dump is read)
from capacity.core.trace import Trace
from capacity.framework.session import CycleResult, Session, SessionOptions
from capacity.plugins import REGISTRY

if TYPE_CHECKING:
    from capacity.accel.snapshot_cache import SnapshotCache

ACTIONS = ("enqueue", "allocate", "backfill", "reclaim", "preempt")


def open_session(cluster: Cluster, trace: Trace | None = None, options: SessionOptions | None = None,
                 cache: SnapshotCache | None = None, accel: Acceleration | None = None) -> Session:
    """OpenSession (framework.go): the session and every configured plugin opened in tier order, on the engine
    `accel` names (the switch's, by default)."""
    accel = accel or engine()
    attach: Callable[[Any, str, Any], None] | None = None
    if accel == REFERENCE:
        ssn = Session(cluster, trace=trace, options=options)
        registry = REGISTRY
    else:
        from capacity.accel.plugin_forms import attach as attach_forms
        from capacity.accel.plugins import ACCELERATED_PLUGINS
        from capacity.accel.session import AcceleratedSession
        ssn = AcceleratedSession(cluster, trace=trace, options=options, cache=cache, accel=accel)
        registry, attach = {**REGISTRY, **ACCELERATED_PLUGINS}, attach_forms
    ssn.trace.action = "open"
    for tier in ssn.conf.tiers:
        for opt in tier:
            cls = registry.get(opt.name)
            if cls is None:
                continue
            plugin = cls(opt)
            ssn.plugins[opt.name] = plugin
            plugin.on_session_open(ssn)
            if attach is not None:
                attach(ssn, opt.name, plugin)  # (the plugins' accelerated forms, capacity.accel.plugin_forms)
    return ssn


_MODULES: dict[str, Any] = {}


def run_actions(ssn: Session) -> None:
    """Each configured action in order: capacity.actions.<name>, or its accelerated form capacity.accel.<name>
    where the session's engine has one (Acceleration.actions)."""
    fast = ssn.accel.actions
    for name in ssn.conf.actions:
        if name not in ACTIONS:
            continue
        ssn.trace.action = name
        path = f"capacity.accel.{name}" if name in fast else f"capacity.actions.{name}"
        module = _MODULES.get(path)
        if module is None:  # imported on first use (a replay runs tens of thousands of cycles)
            module = _MODULES[path] = importlib.import_module(path)
        module.execute(ssn)
    ssn.trace.action = "close"


def run_cycle(cluster: Cluster, trace: Trace | None = None, options: SessionOptions | None = None,
              write_back: bool = True, cache: SnapshotCache | None = None) -> CycleResult:
    """Run one cycle on `cluster`; with write_back the cluster moves to the next cycle's state.

    Tracing is on unless the caller passes a disabled Trace: the cycle's records come back in
    `result.records` (and stay in `trace.records` when a Trace is given). A `cache` kept from one cycle
    to the next on the same cluster saves rebuilding what did not change (`SnapshotCache`).
    """
    trace = trace if trace is not None else Trace(enabled=True)
    start = len(trace.records)
    with gc_paused():
        ssn = open_session(cluster, trace, options, cache)
        kept = ssn.cache  # (None where the engine has no snapshot cache: capacity.accel)
        run_actions(ssn)
        result = ssn.close()
        if kept is not None:
            kept.keep()
        ssn.release()
        del ssn
    result.records = trace.records[start:]
    if write_back:
        apply_cycle(cluster, result)
    return result


def apply_cycle(cluster: Cluster, result: CycleResult, deleting: Iterable[str] | None = None) -> None:
    """What the API server and kubelet do between two cycles, in the simplest faithful form.

    Pods terminating since the last cycle are gone; bound pods start running; evicted pods become
    terminating (Releasing) for one cycle; PodGroup phases and nominated nodes persist. `deleting`: the
    keys of the terminating pods, when the caller keeps them (the Simulator), instead of a scan.
    """
    if deleting is None:
        deleting = [k for k, p in cluster.pods.items() if p.deleting]
    for key in deleting:
        del cluster.pods[key]
    for key, node in result.binds.items():
        pod = cluster.pods.get(key)
        if pod is not None:
            pod.node_name = node
            pod.phase = "Running"
    # (A field is written only where it changes: every write stamps the object (PodObj.rev), and a SnapshotCache
    # reads stamped pods and PodGroups again, which a cycle's result, naming every job's phase, would make all.)
    for key in result.evicted:
        pod = cluster.pods.get(key)
        if pod is not None and not pod.deleting:
            pod.deleting = True
    for key, node in result.nominated.items():
        pod = cluster.pods.get(key)
        if pod is not None and pod.nominated_node != node:
            pod.nominated_node = node
    for uid, phase in result.podgroup_phases.items():
        pg = cluster.podgroups.get(uid)
        if pg is not None and pg.phase != phase:
            pg.phase = phase


@dataclass
class RunResult:
    """Several cycles: binds and evictions accumulate, the rest is the last cycle's."""

    cycles: list[CycleResult] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        binds: dict[str, str] = {}
        evicted: list[str] = []
        for c in self.cycles:
            binds.update(c.binds)
            evicted.extend(k for k in c.evicted if k not in evicted)
        last = self.cycles[-1] if self.cycles else CycleResult()
        return {"binds": binds, "evicted": evicted, "pipelined": last.pipelined,
                "podgroupPhases": last.podgroup_phases, "queues": last.queues}


def simulate(cluster: Cluster, cycles: int = 1, trace: Trace | None = None,
             options: SessionOptions | None = None) -> RunResult:
    run = RunResult()
    trace = trace if trace is not None else Trace(enabled=True)
    for i in range(cycles):
        trace.cycle = i + 1
        run.cycles.append(run_cycle(cluster, trace, options))
    return run
