"""`run_plan`: candidates from the search, through a backend, into the results file, resumable.

The same seed gives the same rows on every backend: the search proposes its candidates in a fixed order
and is told each batch's rows in candidate order (`capacity.plan.search`), and every replay is a pure
function of the spec and the candidate (`capacity.plan.evaluate`). On resume the rows already in the file
are handed back to the search instead of being run again; `failed` rows are run again.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from capacity.core.errors import InputError
from capacity.plan.base import Base, build_base
from capacity.plan.evaluate import STATUS_FAILED, figure_columns, remember
from capacity.plan.results import LEAD, ResultsFile, read_rows
from capacity.plan.search import make_search
from capacity.plan.spec import PlanSpec

#: progress(done, total, row): after every finished candidate (row None for one taken from the file).
Progress = Callable[[int, int, "dict[str, Any] | None"], None]


@dataclass
class PlanRun:
    spec: PlanSpec
    base: Base
    rows: list[dict[str, Any]] = field(default_factory=list)
    reused: int = 0
    seconds: float = 0.0
    backend: str = ""
    workers: int = 1

    @property
    def columns(self) -> list[str]:
        return [*LEAD, *(p.name for p in self.spec.params), *figure_columns(self.spec, self.base)]


def prepare(spec: PlanSpec) -> PlanRun:
    """Build the base once and check the goals name figures the replays will have."""
    base = build_base(spec)
    remember(spec, base)
    run = PlanRun(spec, base)
    have = set(run.columns)
    for i, g in enumerate(spec.goals):
        if g.column not in have:
            raise InputError(spec.source, f"goals[{i}]", f"{g.column}: queue {g.queue!r} receives no jobs in this "
                             f"workload (queues with jobs: {', '.join(base.queues_with_jobs) or 'none'})")
    way, column = spec.prefer
    if column not in have:
        raise InputError(spec.source, f"prefer.{way}", f"{column!r} is neither a varied setting nor a figure")
    return run


def run_plan(spec: PlanSpec, backend: Any, results_path: str | None = None, resume: bool = False,
             progress: Progress | None = None, prepared_run: PlanRun | None = None) -> PlanRun:
    run = prepared_run or prepare(spec)
    run.backend, run.workers = backend.name, backend.workers
    started = time.perf_counter()
    text = [p.name for p in spec.params]
    previous = {int(r["id"]): r for r in (read_rows(results_path, spec.digest, text) if resume and results_path
                                          else [])}
    keep = [r for r in previous.values() if r.get("status") != STATUS_FAILED]
    out = ResultsFile(results_path, run.columns, spec.digest, keep) if results_path else None
    search = make_search(spec)
    total = spec.candidates if search.adaptive else min(spec.candidates, math.prod(len(p.values) for p in spec.params))
    done = 0
    try:
        while True:
            batch = []
            while True:  # a non-adaptive search hands out every candidate before the first runs
                more = search.batch()
                batch += more
                if not more or search.adaptive:
                    break
            if not batch:
                break
            rows: dict[int, dict[str, Any]] = {}
            todo = []
            for c in batch:
                old = previous.get(c["id"])
                if old is not None and old.get("status") != STATUS_FAILED and _same(old, c):
                    rows[c["id"]] = old
                    run.reused += 1
                    done += 1
                    if progress:
                        progress(done, total, None)
                else:
                    if old is not None and not _same(old, c):
                        raise InputError(results_path or "", f"id {c['id']}", "holds other values than this spec's "
                                         "candidate: resume with the spec that wrote it")
                    todo.append(c)
            columns = run.columns
            for found in backend.map(spec.raw, todo):
                row = {c: found.get(c) for c in columns}  # (every row has every column: None where none)
                row["spec"] = spec.digest
                rows[int(row["id"])] = row
                if out is not None:
                    out.add(row)
                done += 1
                if progress:
                    progress(done, total, row)
            ordered = [rows[c["id"]] for c in batch]
            search.tell(ordered)
            run.rows += ordered
    finally:
        run.seconds = time.perf_counter() - started
    return run


def _same(row: dict[str, Any], candidate: dict[str, Any]) -> bool:
    return all(str(row.get(k)) == str(v) for k, v in candidate["values"].items())
