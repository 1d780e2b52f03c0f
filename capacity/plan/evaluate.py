"""One candidate, start to finish, as every backend runs it: a pure function of (spec, candidate).

`evaluate(raw_spec, candidate)` is what a local process or a Ray task calls; it never raises: a candidate
the constraints or the webhook refuse comes back `rejected` with the reason, one whose replay fails comes
back `failed` with the error, so that no candidate is lost. The base cluster is built once per process
and kept for the next candidates of the same spec.
"""

from __future__ import annotations

import time
import traceback
from typing import Any

from capacity.plan.base import Base, build_base, candidate_cluster, refusal
from capacity.plan.spec import PlanSpec, parse_spec

#: spec digest -> (spec, base): what this process has built already.
_CACHE: dict[str, tuple[PlanSpec, Base]] = {}
STATUS_OK, STATUS_REJECTED, STATUS_FAILED = "ok", "rejected", "failed"


def prepared(raw: dict[str, Any]) -> tuple[PlanSpec, Base]:
    spec = parse_spec(raw, source="spec")
    hit = _CACHE.get(spec.digest)
    if hit is None:
        _CACHE.clear()
        hit = _CACHE[spec.digest] = (spec, build_base(spec))
    return hit


def remember(spec: PlanSpec, base: Base) -> None:
    """Hand an already built base to this process's cache (the inline backend's, which built it first)."""
    _CACHE.clear()
    _CACHE[spec.digest] = (spec, base)


def goal_windows(spec: PlanSpec) -> tuple[float, ...]:
    return tuple(sorted({g.within for g in spec.goals if g.metric == "started_within"}))


def goal_resources(spec: PlanSpec, base: Base) -> tuple[str, ...]:
    wanted = [g.resource for g in spec.goals if g.metric == "utilisation"]
    main = "nvidia.com/gpu" if base.totals.get("nvidia.com/gpu") else "cpu"
    return tuple(dict.fromkeys([main, *wanted]))


def evaluate(raw: dict[str, Any], candidate: dict[str, Any]) -> dict[str, Any]:
    """The results row of one candidate: {id, status, error, seconds, <params>, <figures>}."""
    started = time.perf_counter()
    row: dict[str, Any] = {"id": candidate["id"], "status": STATUS_FAILED, "error": ""}
    row.update(candidate["values"])
    try:
        spec, base = prepared(raw)
        cluster = candidate_cluster(base, spec.params, candidate["values"])
        why = refusal(base, cluster, spec.constraints)
        if why:
            row.update(status=STATUS_REJECTED, error=why)
        else:
            row.update(run_replay(spec, base, cluster))
            row["status"] = STATUS_OK
    except Exception as exc:  # noqa: BLE001 - a failed replay is recorded, never lost
        row["status"] = STATUS_FAILED
        where = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
        at = f" (at {where[0].filename.rsplit('/', 1)[-1]}:{where[0].lineno})" if where else ""
        row["error"] = f"{type(exc).__name__}: {exc}{at}"
    row["seconds"] = round(time.perf_counter() - started, 3)
    return row


def run_replay(spec: PlanSpec, base: Base, cluster: Any) -> dict[str, Any]:
    """The replay itself (a seam the tests use to make one candidate fail)."""
    from capacity.plan.figures import replay_figures
    return replay_figures(cluster, base.queues_with_jobs, spec.period, spec.until, spec.max_cycles,
                          goal_windows(spec), goal_resources(spec, base), spec.lacking, spec.version)


def figure_columns(spec: PlanSpec, base: Base) -> list[str]:
    """The figure columns of the results file, in order (fixed before the first row is written)."""
    cols = ["jobs", "unstarted", "cycles", "virtual_seconds", "evictions", "fairness"]
    cols += [f"utilisation[{r}]" for r in goal_resources(spec, base)]
    for q in base.queues_with_jobs:
        cols += [f"wait_p50[{q}]", f"wait_p95[{q}]"]
        cols += [f"started_within_{t:g}s[{q}]" for t in goal_windows(spec)]
        cols.append(f"evictions[{q}]")
    return cols
