"""The dashboard's side of planning: a spec set up from the current scenario, and applying a candidate.

The Plan page lays out widgets; what the choices mean is here, so a script can do the same.
"""

from __future__ import annotations

import copy
from typing import Any

from capacity.authoring.edit import Edited, checked
from capacity.core.cluster import Cluster
from capacity.plan.base import set_values
from capacity.plan.spec import Param


def leaf_queues(cluster: Cluster) -> list[str]:
    parents = {q.parent for q in cluster.queues.values() if q.parent}
    return sorted(q for q in cluster.queues if q not in parents and q != "root")


def resources(cluster: Cluster) -> list[str]:
    names = {"cpu", "memory"}
    for n in cluster.nodes:
        names |= {k for k in (n.allocatable.scalars or {}) if k != "pods"}
    return sorted(names, key=lambda r: (r not in ("nvidia.com/gpu", "cpu", "memory"), r))


def page_spec(cluster: Cluster, settings: list[dict[str, Any]], workload: dict[str, Any], goals: list[dict[str, Any]],
              search: dict[str, Any], period: float = 60.0, volcano: str = "HEAD") -> dict[str, Any]:
    """A plan spec (as `capacity.plan.spec.parse_spec` reads it) on the current scenario's objects, judged by
    the dashboard's chosen Volcano release (`volcano`, its label)."""
    from capacity.io.export import export_yaml
    return {"cluster": {"inline": export_yaml(cluster)}, "workload": {"synthetic": workload},
            "replay": {"period": period}, "search": search, "vary": settings, "goals": goals, "volcano": volcano}


def apply_candidate(cluster: Cluster, params: tuple[Param, ...], values: dict[str, str]) -> Edited:
    """The workspace's cluster with the candidate's settings, checked as every dashboard edit is."""
    out = copy.deepcopy(cluster)
    set_values(out, params, values)
    return checked(cluster, out)


def queue_value(cluster: Cluster, p: Param) -> str:
    """The setting's value in `cluster` as a user writes it ("" when unset)."""
    from capacity.authoring.edit import resource_strings
    q = cluster.queues.get(p.queue)
    if q is None:
        return ""
    if p.field == "weight":
        return str(q.weight)
    return resource_strings(getattr(q, p.field)).get(p.resource, "")
