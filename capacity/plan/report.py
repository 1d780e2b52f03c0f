"""Reading the rows: which candidates meet every goal, the Pareto front, the best one as Queue YAML."""

from __future__ import annotations

import math
from typing import Any

import yaml

from capacity.plan.base import Base, candidate_cluster
from capacity.plan.spec import Param, PlanSpec


def number(v: Any) -> float | None:
    """A figure or a varied setting as a number: quantities in the units people write (cpu cores, GiB,
    whole GPUs); None when absent."""
    if v is None or v == "":
        return None
    try:
        f = float(v)
    except (TypeError, ValueError):
        from capacity.core.resources import from_resource_list
        try:
            r = from_resource_list({"memory": str(v)}, obj="value", field="value")
        except Exception:  # noqa: BLE001 - not a quantity either
            return None
        return r.memory / 2**30
    return None if math.isnan(f) else f


def meets(spec: PlanSpec, row: dict[str, Any]) -> bool:
    return row.get("status") == "ok" and all(g.met(number(row.get(g.column))) for g in spec.goals)


def missed(spec: PlanSpec, row: dict[str, Any]) -> list[str]:
    return [str(g) for g in spec.goals if not g.met(number(row.get(g.column)))]


def objectives(spec: PlanSpec) -> list[tuple[str, bool]]:
    """(column, minimise?) per goal, the preferred column last if it is not a goal's."""
    out = [(g.column, g.minimize) for g in spec.goals]
    way, column = spec.prefer
    if column not in [c for c, _ in out]:
        out.append((column, way == "minimize"))
    return out


def pareto(spec: PlanSpec, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The candidates no other candidate beats on every objective (and strictly on one)."""
    objs = objectives(spec)
    ok = [r for r in rows if r.get("status") == "ok"]

    def vec(r: dict[str, Any]) -> tuple[float, ...]:
        out = []
        for col, minimise in objs:
            v = number(r.get(col))
            v = math.inf if v is None else (v if minimise else -v)
            out.append(v)
        return tuple(out)

    vecs = [vec(r) for r in ok]
    front = []
    for i, a in enumerate(vecs):
        beaten = any(all(x <= y for x, y in zip(b, a, strict=True)) and b != a for j, b in enumerate(vecs) if j != i)
        if not beaten:
            front.append(ok[i])
    return front


def best(spec: PlanSpec, rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Among the candidates meeting every goal, the one `prefer` ranks first (ties: the lower id); None
    when no candidate meets every goal."""
    good = [r for r in rows if meets(spec, r)]
    if not good:
        return None
    way, column = spec.prefer
    sign = 1.0 if way == "minimize" else -1.0

    def key(r: dict[str, Any]) -> tuple[float, int]:
        v = number(r.get(column))
        return (math.inf if v is None else sign * v, int(r["id"]))

    return min(good, key=key)


def queue_yaml(spec: PlanSpec, base: Base, row: dict[str, Any]) -> str:
    """The varied queues of `row` as Queue objects, ready for `kubectl apply -f`."""
    from capacity.io.export import export_objects
    values = {p.name: str(row[p.name]) for p in spec.params}
    cluster = candidate_cluster(base, spec.params, values)
    names = {p.queue for p in spec.params}
    docs = []
    for obj in export_objects(cluster):
        if obj.get("kind") == "Queue" and obj["metadata"]["name"] in names:
            obj.pop("status", None)
            meta = obj["metadata"]
            for key in ("creationTimestamp", "uid", "resourceVersion"):
                meta.pop(key, None)
            docs.append(obj)
    return yaml.safe_dump_all(docs, sort_keys=False)


def values_of(params: tuple[Param, ...], row: dict[str, Any]) -> dict[str, str]:
    return {p.name: str(row[p.name]) for p in params}
