"""What would have to change for a pending job to be placed: single changes, each proven by re-running.

Candidates are derived from the numbers the job is short of (queue capability, deserved, guarantee on
the dimensions it requests, or room on a node). Every candidate is applied to a copy of the cluster
and the same cycle(s) are run again; only changes after which the job's pods are bound or pipelined
are reported, smallest first (relative to the cluster's total of each dimension). Nothing is guessed.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from capacity.cluster import Cluster
from capacity.errors import InputError
from capacity.framework.session import SessionOptions
from capacity.quantity import format_resource_value
from capacity.resources import Resource
from capacity.scheduler import open_session, simulate

DIMS = ("cpu", "memory")


@dataclass
class Change:
    """One edit to the cluster, with its size and what re-running the cycle showed."""

    kind: str            # capability | deserved | guarantee | free-node
    target: str          # "Queue/team-a" or "Node/n1"
    description: str
    size: float          # sum over dimensions of delta / cluster total
    placed: list[str]    # the job's pods bound or pipelined after the change

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "target": self.target, "description": self.description, "size": self.size,
                "placed": self.placed}


def _get(r: Resource | None, dim: str) -> float:
    if r is None:
        return 0.0
    return getattr(r, dim) if dim in DIMS else r.get(dim)


def _set(r: Resource | None, dim: str, value: float) -> Resource:
    out = r.clone() if r is not None else Resource.empty()
    if dim in DIMS:
        setattr(out, dim, value)
    else:
        out.set_scalar(dim, value)
    return out


def _placed(cluster: Cluster, job_uid: str, cycles: int, options: SessionOptions | None) -> list[str]:
    trial = copy.deepcopy(cluster)
    run = simulate(trial, cycles, None, options)
    out = run.as_json()
    pods = {k for k, p in cluster.pods.items() if f"{p.namespace}/{p.group}" == job_uid and not p.node_name}
    placed = [k for k in out["binds"] if k in pods]
    if job_uid in out["pipelined"]:
        placed += [k for k in sorted(pods) if k not in placed][: len(out["pipelined"][job_uid])]
    return sorted(placed)


def _describe(dim: str, before: float, after: float) -> str:
    return f"{dim} {format_resource_value(dim, before)} -> {format_resource_value(dim, after)}"


def what_would_change(cluster: Cluster, job_uid: str, cycles: int = 1,
                      options: SessionOptions | None = None, limit: int = 5) -> list[Change]:
    """The smallest single changes that let the job be placed, each verified by re-running."""
    pg = cluster.podgroups.get(job_uid)
    if pg is None:
        raise InputError(f"PodGroup/{job_uid}", "", "no such PodGroup in the cluster")
    pending = [p for p in cluster.pods.values()
               if p.namespace == pg.namespace and p.group == pg.name and not p.node_name]
    if not pending:
        return []
    if _placed(cluster, job_uid, cycles, options):
        return []
    need = Resource.empty()
    for p in pending:
        need.add(p.resreq)
    dims = [d for d in ("cpu", "memory", *sorted((need.scalars or {}).keys())) if d != "pods" and _get(need, d) > 0]
    total = open_session(cluster, options=options).total_resource
    candidates = _queue_changes(cluster, pg.queue, need, dims, total, options) + \
        _node_changes(cluster, pending, dims, total)
    found: list[Change] = []
    for size, kind, target, desc, apply in sorted(candidates, key=lambda c: c[0]):
        trial = copy.deepcopy(cluster)
        apply(trial)
        placed = _placed(trial, job_uid, cycles, options)
        if placed:
            found.append(Change(kind, target, desc, size, placed))
            if len(found) >= limit:
                break
    return found


def _queue_changes(cluster: Cluster, leaf: str, need: Resource, dims: list[str], total: Resource,
                   options: SessionOptions | None) -> list[tuple]:
    ssn = open_session(cluster, options=options)
    attrs = getattr(ssn.plugins.get("capacity"), "attrs", {}) or getattr(ssn.plugins.get("proportion"), "attrs", {})
    path = [leaf]
    q = cluster.queues.get(leaf)
    while q is not None and q.parent and q.parent in cluster.queues and q.parent not in path:
        path.append(q.parent)
        q = cluster.queues[q.parent]
    out: list[tuple] = []
    for name in path:
        attr = attrs.get(name)
        allocated = attr.allocated if attr is not None else Resource.empty()
        spec = cluster.queues[name]
        for field in ("capability", "deserved", "guarantee"):
            if field != "capability" and name != leaf:
                continue
            current = getattr(spec, field)
            changes = []
            size = 0.0
            for d in dims:
                want = _get(allocated, d) + _get(need, d)
                have = _get(current, d)
                if field == "capability" and current is not None and d in DIMS and have <= 0:
                    continue  # cpu/memory 0 in a capability already means unlimited
                if current is None and field == "capability":
                    continue  # no capability: nothing to raise
                if have < want:
                    changes.append((d, have, want))
                    size += (want - have) / max(_get(total, d), 1.0)
            if not changes:
                continue

            def apply(c: Cluster, name: str = name, field: str = field, changes: list = changes) -> None:
                q = c.queues[name]
                r = getattr(q, field)
                for d, _have, want in changes:
                    r = _set(r, d, want)
                setattr(q, field, r)

            desc = f"raise {field} of queue {name}: " + ", ".join(_describe(d, h, w) for d, h, w in changes)
            out.append((size, field, f"Queue/{name}", desc, apply))
    return out


def _node_changes(cluster: Cluster, pending: list[Any], dims: list[str], total: Resource) -> list[tuple]:
    """Freeing room: on each node, the running pods of other jobs (lowest priority first) that make the
    job's largest pod fit."""
    largest = max(pending, key=lambda p: tuple(_get(p.resreq, d) for d in dims))
    out: list[tuple] = []
    for node in cluster.nodes:
        on_node = (p for p in cluster.pods.values()
                   if p.node_name == node.name and p.phase in ("Running", "Pending") and p not in pending)
        running = sorted(on_node, key=lambda p: (p.priority, p.key))
        free = node.allocatable.clone()
        for p in running:
            free.sub_without_assert(p.resreq)
        chosen = []
        for p in running:
            if all(_get(free, d) >= _get(largest.resreq, d) for d in dims):
                break
            chosen.append(p.key)
            free.add(p.resreq)
        if not chosen or not all(_get(free, d) >= _get(largest.resreq, d) for d in dims):
            continue
        size = sum(_get(cluster.pods[k].resreq, d) / max(_get(total, d), 1.0) for k in chosen for d in dims)

        def apply(c: Cluster, chosen: list = chosen) -> None:
            for k in chosen:
                c.pods.pop(k, None)

        out.append((size, "free-node", f"Node/{node.name}", f"free node {node.name} by removing "
                    f"{', '.join(chosen)}", apply))
    return out
