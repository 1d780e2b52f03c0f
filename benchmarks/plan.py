"""Capacity planning throughput: candidates per minute on the Helios-15k replay, local processes vs Ray.

    python -m capacity bench --only plan [--data ../shared/data] [--plan-limit N]

Each measurement runs a fresh plan of `PER_WORKER` candidates per worker (the heaviest user's GPU deserved
varied, every candidate one whole replay of the trace) on a fresh backend: local processes (`--workers`)
and a private local Ray instance (`--ray local`), each at 1 and 2 workers. Every worker builds the trace's
cluster once (about 6 s) and keeps it for its next candidates; that set-up is inside the figure. Ray's own
start (`ray.init`, a few seconds, once per cluster) is not: it is printed beside the figure.
"""

from __future__ import annotations

import time
from typing import Any

PER_WORKER = 2


def busiest_queue(folder: str, limit: int | None) -> str:
    """The user with the most GPU-seconds (user-020 in the whole 15k cut): its queue's deserved is varied."""
    from collections import Counter

    from capacity.simulation.replay import helios_rows
    use: Counter[int] = Counter()
    for r in helios_rows(folder, limit):
        use[int(r["user"])] += int(r["gpu_num"]) * int(r["run_time"])
    return f"user-{use.most_common(1)[0][0]:03d}"


def plan_spec(folder: str, candidates: int, limit: int | None) -> Any:
    from capacity.plan.spec import parse_spec
    cluster: dict[str, Any] = {"helios": folder}
    if limit:
        cluster["limit"] = limit
    return parse_spec({
        "cluster": cluster,
        "search": {"strategy": "grid", "candidates": candidates},
        "vary": [{"queue": busiest_queue(folder, limit), "field": "deserved", "resource": "nvidia.com/gpu",
                  "values": [str(200 + 8 * i) for i in range(candidates)]}],
        "goals": [{"metric": "evictions", "at_most": 1000}],
    }, source="bench")


def measure(folder: str, backend_kind: str, workers: int, limit: int | None) -> tuple[float, float, float, str]:
    """(candidates per minute, wall seconds, Ray start seconds, note) for one backend at `workers`."""
    from capacity.plan.backends import ProcessBackend, RayBackend
    from capacity.plan.run import prepare, run_plan
    n = PER_WORKER * workers
    spec = plan_spec(folder, n, limit)
    prepared = prepare(spec)
    t0 = time.perf_counter()
    backend = RayBackend("local", workers) if backend_kind == "ray" else ProcessBackend(workers)
    started = time.perf_counter() - t0 if backend_kind == "ray" else 0.0
    t1 = time.perf_counter()
    try:
        run = run_plan(spec, backend, prepared_run=prepared)
    finally:
        backend.close()
    wall = time.perf_counter() - t1
    ok = sum(1 for r in run.rows if r["status"] == "ok")
    cycles = [r["cycles"] for r in run.rows if r["status"] == "ok"]
    note = f"{n} candidates ({ok} ok), {cycles[0] if cycles else 0} cycles each"
    return n / wall * 60.0, wall, started, note


def figures(folder: str, limit: int | None = None) -> list[Any]:
    from benchmarks.suite import Figure, _load, _probe
    out = []
    rates: dict[tuple[str, int], float] = {}
    for kind in ("local", "ray"):
        for workers in (1, 2):
            trace = f"Helios first {limit} jobs" if limit else "Helios-15k"
            fig = Figure(f"plan, {trace}, {kind}, {workers} worker(s)", "/min", None)
            before, probe = _load(), _probe()
            rate, wall, started, note = measure(folder, kind, workers, limit)
            fig.wall = [rate]  # (no CPU figure: the work is in the workers)
            fig.load, fig.probe = (before, _load()), (probe, _probe())
            fig.note = f"{note}; wall {wall:.1f} s" + (f", ray.init {started:.1f} s (not counted)" if started else "")
            rates[(kind, workers)] = rate
            out.append(fig)
    for kind in ("local", "ray"):
        one, two = rates[(kind, 1)], rates[(kind, 2)]
        eff = two / (2 * one) if one else float("nan")
        fig = Figure(f"plan scaling, {kind}: 2 workers / 1", "x", None)
        fig.wall = [two / one if one else float("nan")]
        fig.note = (f"efficiency {eff:.0%}; estimate at N workers ~ N x {one:.2f} x {eff:.2f} candidates/min "
                    f"(e.g. 32 workers: {32 * one * eff:.0f}/min) while the replays, not the driver, are the work")
        out.append(fig)
    return out
