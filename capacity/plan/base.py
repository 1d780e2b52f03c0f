"""The starting cluster and workload of a plan, and one candidate's cluster built from them.

The base is built once per process (a worker keeps it for every candidate it runs); a candidate's
cluster is a `copy_state` of it with the varied queues copied and changed. Whether Volcano would take
the candidate's queues is `capacity.core.webhook.validate_cluster`'s answer, never re-derived here.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from capacity.authoring.edit import parse_resources, resource_strings
from capacity.core.cluster import Cluster
from capacity.core.errors import InputError
from capacity.core.quantity import format_resource_value
from capacity.core.resources import from_resource_list
from capacity.plan.spec import Param, PlanSpec, SumConstraint
from capacity.simulation.sim import node_totals

FIXTURES = Path(__file__).resolve().parent.parent.parent / "fixtures"
_FIELD_PATH = {"deserved": "spec.deserved", "guarantee": "spec.guarantee.resource", "capability": "spec.capability"}


@dataclass
class Base:
    cluster: Cluster
    queues_with_jobs: tuple[str, ...]     # leaf queues that receive jobs: one wait column each
    totals: dict[str, float]              # ready nodes' allocatable per resource (internal units)
    known_rejections: frozenset[str]      # webhook errors the starting cluster already has
    lacking: frozenset[str] = frozenset()  # the chosen release's missing switches: its webhook judges


def build_base(spec: PlanSpec) -> Base:
    """The starting cluster with the workload's jobs, checked against the varied settings."""
    c = spec.raw["cluster"]
    cluster = _cluster(c)
    workload = spec.raw.get("workload")
    if workload:
        cluster = _with_synthetic(cluster, workload["synthetic"])
    for p in spec.params:
        if p.queue not in cluster.queues:
            raise InputError(spec.source, "vary", f"queue {p.queue!r} is not in the cluster (it has "
                             f"{', '.join(sorted(cluster.queues)[:10])}{', ...' if len(cluster.queues) > 10 else ''})")
    for con in spec.constraints:
        for q in con.queues:
            if q not in cluster.queues:
                raise InputError(spec.source, "constraints", f"queue {q!r} is not in the cluster")
    for g in spec.goals:
        if g.queue and g.queue not in cluster.queues:
            raise InputError(spec.source, "goals", f"queue {g.queue!r} is not in the cluster")
    from capacity.core.webhook import validate_cluster
    known = frozenset(str(e) for errs in validate_cluster(cluster, spec.lacking).values() for e in errs)
    queues = sorted({pg.queue for pg in cluster.podgroups.values() if pg.queue in cluster.queues})
    return Base(cluster, tuple(queues), node_totals(cluster), known, spec.lacking)


def _cluster(c: dict[str, Any]) -> Cluster:
    from capacity.io.k8s import load_cluster, load_cluster_file
    if "fixture" in c:
        path = FIXTURES / f"{c['fixture']}.yaml"
        if not path.exists():
            raise InputError("cluster.fixture", "", f"no built-in scenario {c['fixture']!r} (one of "
                             f"{', '.join(sorted(p.stem for p in FIXTURES.glob('*.yaml')))})")
        return load_cluster(path.read_text(encoding="utf-8"), source=f"fixtures/{c['fixture']}.yaml")
    if "inline" in c:
        return load_cluster(c["inline"], source="the workspace")
    if "dump" in c:
        return load_cluster_file(c["dump"])
    from capacity.simulation.replay import helios_cluster
    return helios_cluster(c["helios"], nodes=c.get("nodes", 128), job_limit=c.get("limit"))


def _with_synthetic(cluster: Cluster, s: dict[str, Any]) -> Cluster:
    """The cluster with a seeded synthetic workload added to its own objects (`capacity.simulation.workload`)."""
    from capacity.io.export import export_objects
    from capacity.io.k8s import load_objects
    from capacity.simulation.workload import WorkloadSpec, generate
    leaves = sorted(q for q in cluster.queues if not any(o.parent == q for o in cluster.queues.values())
                    and q != "root")
    queues = {str(k): float(v) for k, v in (s.get("queues") or dict.fromkeys(leaves, 1.0)).items()}
    for q in queues:
        if q not in cluster.queues:
            raise InputError("workload.synthetic.queues", q, "is not a queue of the cluster")
    kw: dict[str, Any] = {"seed": int(s.get("seed", 0)), "jobs": int(s.get("jobs", 50)),
                          "arrival_rate": float(s.get("rate", 1 / 60)), "queues": queues}
    for key in ("duration_median", "duration_sigma", "gang", "start"):
        if key in s:
            kw[key] = float(s[key])
    if "inference_duration" in s:
        kw["inference_duration"] = float(s["inference_duration"])
    if "replicas" in s:
        kw["replicas"] = {int(k): float(v) for k, v in s["replicas"].items()}
    for key in ("service_types", "policies"):
        if key in s:
            kw[key] = {("" if k is None else str(k)): float(v) for k, v in s[key].items()}
    if "namespaces" not in kw:
        namespaces = sorted({pg.namespace for pg in cluster.podgroups.values()}) or ["default"]
        kw["namespaces"] = {namespaces[0]: 1.0}
    spec = WorkloadSpec(**kw)
    return load_objects([*export_objects(cluster), *generate(spec)], source=f"{cluster} + workload seed {spec.seed}")


def candidate_cluster(base: Base, params: tuple[Param, ...], values: dict[str, str]) -> Cluster:
    """A copy of the base whose varied queues carry the candidate's values (the base is left unchanged)."""
    cluster = base.cluster.copy_state()
    set_values(cluster, params, values)
    return cluster


def set_values(cluster: Cluster, params: tuple[Param, ...], values: dict[str, str]) -> None:
    """Give `cluster` new copies of the varied queues, carrying `values` (other queues stay shared)."""
    cluster.queues = dict(cluster.queues)
    for p in params:
        q = cluster.queues[p.queue] = copy.copy(cluster.queues[p.queue])
        value = values[p.name]
        if p.field == "weight":
            q.weight = int(value)
            continue
        current = resource_strings(getattr(q, p.field))
        current[p.resource] = value
        setattr(q, p.field, parse_resources(current, f"Queue/{p.queue}", _FIELD_PATH[p.field]))


def refusal(base: Base, cluster: Cluster, constraints: tuple[SumConstraint, ...]) -> str:
    """Why the candidate cannot be applied ("" when it can): a constraint, or the webhook's own words."""
    for con in constraints:
        total = 0.0
        for name in con.queues:
            r = getattr(cluster.queues[name], con.field)
            total += 0.0 if r is None else r.get(con.resource)
        if con.equals == "cluster":
            want = base.totals.get(con.resource, 0.0)
            what = "the cluster's"
        else:
            want = from_resource_list({con.resource: con.equals}, obj="constraints", field="equals").get(con.resource)
            what = "the constraint's"
        if abs(total - want) > 1e-6 * max(1.0, abs(want)):
            return (f"constraint: the sum of {con.field}[{con.resource}] over {', '.join(con.queues)} is "
                    f"{format_resource_value(con.resource, total)}, not {what} "
                    f"{format_resource_value(con.resource, want)}")
    from capacity.core.webhook import validate_cluster
    for errs in validate_cluster(cluster, base.lacking).values():  # the chosen release's webhook
        for e in errs:
            if str(e) not in base.known_rejections:
                return f"webhook: {e}"
    return ""
