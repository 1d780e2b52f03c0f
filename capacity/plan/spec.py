"""A plan spec: the starting cluster, the workload, what to vary, constraints, goals, how to search.

    cluster: {fixture: default}          # or {dump: CLUSTER.yaml} or {helios: FOLDER, nodes: 128, limit: N}
    workload:                            # optional; without it the cluster's own jobs (with their durations)
      synthetic: {seed: 7, jobs: 60, rate: 0.01, queues: {prod-serving: 1, research-train: 2},
                  service_types: {training: 1}, duration_median: 600, replicas: {1: 1}}
    replay: {period: 60, until: 86400, max_cycles: 5000}
    search: {strategy: grid, seed: 0, candidates: 20, batch: 4}   # grid | random | optuna
    vary:
      - {queue: prod-serving, field: guarantee, resource: nvidia.com/gpu, values: [0, 2, 4]}
      - {queue: production, field: weight, range: {min: 1, max: 4, step: 1}}
    constraints:
      - {sum_of: deserved, resource: nvidia.com/gpu, queues: [research, production, analytics], equals: cluster}
    goals:
      - {metric: wait_p95, queue: prod-serving, at_most: 600}
      - {metric: started_within, queue: prod-serving, within: 300, at_least: 0.9}
      - {metric: utilisation, resource: nvidia.com/gpu, at_least: 0.5}
      - {metric: evictions, at_most: 10}
      - {metric: fairness, at_least: 0.5}
    prefer: {minimize: prod-serving.guarantee.nvidia.com/gpu}   # picks the best of those meeting every goal

    volcano: "1.13"    # optional: the Volcano release whose webhook judges and whose scheduler replays each
                       # candidate (`plan --volcano-version` overrides it; HEAD when unset)

Every candidate must also pass Volcano's queue admission webhook (always on, `capacity.core.webhook`). A
mistake is one `InputError` naming the spec's section and field (`vary[1]`, `range.step`, ...).
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

from capacity.core.errors import InputError

STRATEGIES = ("grid", "random", "optuna")
FIELDS = ("deserved", "guarantee", "capability", "weight")
METRICS = ("wait_p50", "wait_p95", "started_within", "utilisation", "evictions", "fairness")
#: A grid larger than this is refused: a spec meant for `random` or `optuna`.
MAX_GRID = 100_000
MAX_CANDIDATES = 100_000
SECTIONS = ("cluster", "workload", "replay", "search", "vary", "constraints", "goals", "prefer", "volcano")


@dataclass(frozen=True)
class Param:
    """One setting to vary: a queue's quota on one resource, or its weight, over a list of values."""

    queue: str
    field: str
    resource: str
    values: tuple[str, ...]

    @property
    def name(self) -> str:
        return f"{self.queue}.{self.field}" + (f".{self.resource}" if self.resource else "")


@dataclass(frozen=True)
class Goal:
    metric: str
    queue: str = ""
    resource: str = ""
    within: float = 0.0
    at_most: float | None = None
    at_least: float | None = None

    @property
    def column(self) -> str:
        return metric_column(self.metric, self.queue, self.resource, self.within)

    @property
    def minimize(self) -> bool:
        return self.at_most is not None

    @property
    def target(self) -> float:
        return self.at_most if self.at_most is not None else self.at_least  # type: ignore[return-value]

    def met(self, value: float) -> bool:
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return False
        return value <= self.target if self.minimize else value >= self.target

    def __str__(self) -> str:
        return f"{self.column} {'<=' if self.minimize else '>='} {self.target:g}"


@dataclass(frozen=True)
class SumConstraint:
    """The sum of `field` on `resource` over `queues` equals the cluster's total (`equals: cluster`) or a number."""

    field: str
    resource: str
    queues: tuple[str, ...]
    equals: str


@dataclass(frozen=True)
class PlanSpec:
    raw: dict[str, Any]
    source: str
    strategy: str
    seed: int
    candidates: int
    batch: int
    params: tuple[Param, ...]
    constraints: tuple[SumConstraint, ...]
    goals: tuple[Goal, ...]
    prefer: tuple[str, str]              # ("minimize" | "maximize", column)
    period: float
    until: float | None
    max_cycles: int | None
    lacking: frozenset[str] = frozenset()  # switches the chosen Volcano release lacks (capacity.versions)
    version: str = "HEAD"                  # that release as a sentence names it

    @property
    def digest(self) -> str:
        """Names the spec in a results file, so that a resume with another spec is refused."""
        return hashlib.sha256(json.dumps(self.raw, sort_keys=True, default=str).encode()).hexdigest()[:12]


def metric_column(metric: str, queue: str = "", resource: str = "", within: float = 0.0) -> str:
    """The results file's column for a figure: `wait_p95[prod-serving]`, `started_within_300s[q]`, ..."""
    name = f"started_within_{within:g}s" if metric == "started_within" else metric
    key = queue or resource
    return f"{name}[{key}]" if key else name


def read_spec(path: str) -> PlanSpec:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(path, "", f"cannot be read: {exc.strerror or exc}") from None
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise InputError(path, "", f"is not valid YAML: {' '.join(str(exc).split())}") from None
    return parse_spec(raw, source=path, base_dir=str(Path(path).resolve().parent))


def parse_spec(raw: Any, source: str = "spec", base_dir: str = "") -> PlanSpec:
    """Check a spec read from YAML (or built by the dashboard); relative paths are resolved from `base_dir`."""
    top = _map(raw, source, "")
    unknown = sorted(set(map(str, top)) - set(SECTIONS))
    if unknown:
        raise InputError(source, unknown[0], f"unknown section (one of {', '.join(SECTIONS)})")
    raw = dict(top)
    raw["cluster"] = _cluster(raw.get("cluster"), source, base_dir)
    if raw.get("workload") is not None:
        _workload(raw["workload"], source)
    replay = _map(raw.get("replay") or {}, source, "replay")
    period = _number(replay.get("period", 60.0), source, "replay.period", 0.001, 1e9)
    until = replay.get("until")
    until = None if until is None else _number(until, source, "replay.until", 0, 1e9)
    max_cycles = replay.get("max_cycles")
    max_cycles = None if max_cycles is None else int(_number(max_cycles, source, "replay.max_cycles", 1, 1e9))
    search = _map(raw.get("search") or {}, source, "search")
    strategy = str(search.get("strategy", "grid"))
    if strategy not in STRATEGIES:
        raise InputError(source, "search.strategy", f"must be one of {', '.join(STRATEGIES)}, got {strategy!r}")
    seed = int(_number(search.get("seed", 0), source, "search.seed", 0, 2**32 - 1))
    params = tuple(_param(p, source, f"vary[{i}]") for i, p in enumerate(_list(raw.get("vary"), source, "vary")))
    if not params:
        raise InputError(source, "vary", "needs at least one setting to vary")
    names = [p.name for p in params]
    dup = next((n for n in names if names.count(n) > 1), None)
    if dup:
        raise InputError(source, "vary", f"{dup} is varied twice")
    grid = math.prod(len(p.values) for p in params)
    default_n = grid if strategy == "grid" else 20
    candidates = int(_number(search.get("candidates", default_n), source, "search.candidates", 1, MAX_CANDIDATES))
    if strategy == "grid" and grid > MAX_GRID:
        raise InputError(source, "vary", f"the grid has {grid:,} candidates (at most {MAX_GRID:,}): use "
                         "search.strategy random or optuna")
    batch = int(_number(search.get("batch", 4), source, "search.batch", 1, 10_000))
    constraints = tuple(_constraint(c, source, f"constraints[{i}]")
                        for i, c in enumerate(_list(raw.get("constraints") or [], source, "constraints")))
    goals = tuple(_goal(g, source, f"goals[{i}]") for i, g in enumerate(_list(raw.get("goals") or [], source, "goals")))
    prefer = _prefer(raw.get("prefer"), source, goals, names)
    release = _release(raw.get("volcano"), source)
    return PlanSpec(raw=raw, source=source, strategy=strategy, seed=seed, candidates=candidates, batch=batch,
                    params=params, constraints=constraints, goals=goals, prefer=prefer, period=period,
                    until=until, max_cycles=max_cycles, lacking=release.lacking, version=release.label)


def with_release(spec: PlanSpec, text: str) -> PlanSpec:
    """The spec on another Volcano release (`plan --volcano-version`): in `raw` too, so the replay workers
    and a resumed results file see it."""
    raw = {**spec.raw, "volcano": text}
    release = _release(text, spec.source)
    return replace(spec, raw=raw, lacking=release.lacking, version=release.label)


def _release(value: Any, source: str) -> Any:
    from capacity.versions import UnknownVersion, version
    if value is None:
        return version("head")
    try:
        return version(str(value))
    except UnknownVersion as exc:
        raise InputError(source, "volcano", str(exc)) from None


# ---- sections ------------------------------------------------------------------------------------
def _cluster(value: Any, source: str, base_dir: str) -> dict[str, Any]:
    c = dict(_map(value, source, "cluster"))
    kinds = [k for k in ("fixture", "dump", "helios", "inline") if k in c]
    if len(kinds) != 1:
        raise InputError(source, "cluster", "needs exactly one of fixture (a built-in scenario), dump (a YAML "
                         "file), helios (a trace folder)")
    kind = kinds[0]
    if not isinstance(c[kind], str) or not c[kind]:
        raise InputError(source, f"cluster.{kind}", "must be a name or a path")
    if kind in ("dump", "helios") and base_dir and not Path(c[kind]).is_absolute():
        c[kind] = str(Path(base_dir) / c[kind])
    for key in ("nodes", "limit"):
        if key in c:
            c[key] = int(_number(c[key], source, f"cluster.{key}", 1, 100_000))
    return c


_WORKLOAD_KEYS = {"seed", "jobs", "rate", "queues", "service_types", "duration_median", "duration_sigma",
                  "replicas", "gang", "policies", "inference_duration", "start"}


def _workload(value: Any, source: str) -> None:
    w = _map(value, source, "workload")
    if set(w) != {"synthetic"}:
        raise InputError(source, "workload", "must be {synthetic: {...}} (or left out: the cluster's own jobs)")
    s = _map(w["synthetic"], source, "workload.synthetic")
    unknown = sorted(set(map(str, s)) - _WORKLOAD_KEYS)
    if unknown:
        raise InputError(source, f"workload.synthetic.{unknown[0]}", f"unknown field (one of "
                         f"{', '.join(sorted(_WORKLOAD_KEYS))})")
    for key, low, high in (("seed", 0, 2**32 - 1), ("jobs", 0, 100_000), ("rate", 1e-6, 1e6),
                           ("duration_median", 1, 1e9), ("duration_sigma", 0, 10)):
        if key in s:
            _number(s[key], source, f"workload.synthetic.{key}", low, high)
    if "queues" in s:
        _map(s["queues"], source, "workload.synthetic.queues")


def _param(value: Any, source: str, where: str) -> Param:
    p = _map(value, source, where)
    queue = p.get("queue")
    if not isinstance(queue, str) or not queue:
        raise InputError(source, f"{where}.queue", "names the queue to vary")
    fld = p.get("field")
    if fld not in FIELDS:
        raise InputError(source, f"{where}.field", f"must be one of {', '.join(FIELDS)}, got {fld!r}")
    resource = p.get("resource", "")
    if fld == "weight":
        if resource:
            raise InputError(source, f"{where}.resource", "a weight is one number, not per resource")
    elif not isinstance(resource, str) or not resource:
        raise InputError(source, f"{where}.resource", f"names the resource of {fld} to vary (cpu, memory, "
                         "nvidia.com/gpu, ...)")
    if ("values" in p) == ("range" in p):
        raise InputError(source, where, "needs either values (a list) or range ({min, max, step})")
    if "values" in p:
        values = _list(p["values"], source, f"{where}.values")
        if not values:
            raise InputError(source, f"{where}.values", "is empty")
        out = tuple(_value(v, source, f"{where}.values[{i}]") for i, v in enumerate(values))
    else:
        r = _map(p["range"], source, f"{where}.range")
        lo = _number(r.get("min"), source, f"{where}.range.min", 0, 1e15)
        hi = _number(r.get("max"), source, f"{where}.range.max", 0, 1e15)
        step = _number(r.get("step"), source, f"{where}.range.step", 1e-9, 1e15)
        if hi < lo:
            raise InputError(source, f"{where}.range.max", f"{hi:g} is below min {lo:g}")
        n = int(math.floor((hi - lo) / step + 1e-9)) + 1
        if n > MAX_GRID:
            raise InputError(source, f"{where}.range.step", f"gives {n:,} values (at most {MAX_GRID:,})")
        out = tuple(f"{round(lo + i * step, 9):g}" for i in range(n))
    if fld != "weight":
        from capacity.core.resources import from_resource_list
        for i, v in enumerate(out):
            try:
                from_resource_list({resource: v}, obj=source, field=f"{where}.values[{i}]")
            except InputError as err:
                raise InputError(source, f"{where}.values[{i}]", f"{v!r} is not a quantity of {resource}: "
                                 f"{err.message}") from None
    if fld == "weight":
        for v in out:
            if not v.isdigit() or not 1 <= int(v) <= 65535:
                raise InputError(source, f"{where}.values", f"a weight is a whole number from 1 to 65535, got {v!r}")
    return Param(queue, str(fld), str(resource or ""), out)


def _value(v: Any, source: str, where: str) -> str:
    if isinstance(v, bool) or not isinstance(v, (int, float, str)) or str(v).strip() == "":
        raise InputError(source, where, f"must be a number or a quantity such as '16Gi', got {v!r}")
    if isinstance(v, float):
        if not math.isfinite(v) or v < 0:
            raise InputError(source, where, f"must be a finite number >= 0, got {v!r}")
        return f"{v:g}"
    return str(v).strip()


def _constraint(value: Any, source: str, where: str) -> SumConstraint:
    c = _map(value, source, where)
    fld = c.get("sum_of")
    if fld not in ("deserved", "guarantee", "capability"):
        raise InputError(source, f"{where}.sum_of", f"must be deserved, guarantee or capability, got {fld!r}")
    resource = c.get("resource")
    if not isinstance(resource, str) or not resource:
        raise InputError(source, f"{where}.resource", "names the resource summed")
    queues = _list(c.get("queues"), source, f"{where}.queues")
    if not queues or not all(isinstance(q, str) and q for q in queues):
        raise InputError(source, f"{where}.queues", "lists the queues whose values are summed")
    equals = c.get("equals", "cluster")
    if equals != "cluster":
        equals = _value(equals, source, f"{where}.equals")
    return SumConstraint(str(fld), resource, tuple(queues), str(equals))


def _goal(value: Any, source: str, where: str) -> Goal:
    g = _map(value, source, where)
    metric = g.get("metric")
    if metric not in METRICS:
        raise InputError(source, f"{where}.metric", f"must be one of {', '.join(METRICS)}, got {metric!r}")
    if ("at_most" in g) == ("at_least" in g):
        raise InputError(source, where, "needs either at_most or at_least")
    bound = "at_most" if "at_most" in g else "at_least"
    target = _number(g[bound], source, f"{where}.{bound}", -1e15, 1e15)
    queue = g.get("queue", "")
    if metric in ("wait_p50", "wait_p95", "started_within") and not queue:
        raise InputError(source, f"{where}.queue", f"{metric} is per queue: name the queue")
    if not isinstance(queue, str):
        raise InputError(source, f"{where}.queue", "must be a queue name")
    resource = g.get("resource", "")
    if metric == "utilisation" and not resource:
        resource = "cpu"
    within = 0.0
    if metric == "started_within":
        within = _number(g.get("within"), source, f"{where}.within", 0, 1e9)
        if not 0 <= target <= 1:
            raise InputError(source, f"{where}.{bound}", f"is a share of jobs, from 0 to 1, got {target:g}")
    return Goal(str(metric), queue, str(resource), within,
                target if bound == "at_most" else None, target if bound == "at_least" else None)


def _prefer(value: Any, source: str, goals: tuple[Goal, ...], names: list[str]) -> tuple[str, str]:
    if value is None:
        if goals:
            return ("minimize" if goals[0].minimize else "maximize", goals[0].column)
        return ("minimize", "evictions")
    p = _map(value, source, "prefer")
    if len(p) != 1 or next(iter(p)) not in ("minimize", "maximize"):
        raise InputError(source, "prefer", "must be {minimize: COLUMN} or {maximize: COLUMN}")
    way, column = next(iter(p.items()))
    if not isinstance(column, str) or not column:
        raise InputError(source, f"prefer.{way}", "names a varied setting or a figure column")
    return str(way), column


# ---- small readers ---------------------------------------------------------------------------------
def _map(value: Any, source: str, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InputError(source, where or "(top level)", f"must be a mapping, got {type(value).__name__}")
    return value


def _list(value: Any, source: str, where: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise InputError(source, where, f"must be a list, got {type(value).__name__}")
    return value


def _number(value: Any, source: str, where: str, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        try:
            value = float(str(value))
        except ValueError:
            raise InputError(source, where, f"must be a number, got {value!r}") from None
    if not (low <= value <= high):
        raise InputError(source, where, f"must be from {low:g} to {high:g}, got {value:g}")
    return float(value)
