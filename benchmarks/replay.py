"""Time whole-trace replays (issue 4 targets: Helios-15k <= 30 s, openb <= 60 s). Not a test: run by hand.

    python -m benchmarks.replay helios PATH/TO/helios-dirlab-15k [--runs 3] [--period 60] [--limit N]
    python -m benchmarks.replay openb PATH/TO/alibaba-openb-gpu-2023 [--runs 3] [--period 60] [--limit N]

Each run builds the cluster from the CSVs and replays it until nothing can change (event-driven
stepping). Prints the median wall time of the load and of the replay, with the cycles run and
skipped, and the replay's outcome, so that a faster engine and a different period can be compared.
"""

from __future__ import annotations

import argparse
import statistics
import time

from capacity.simulation.replay import helios_cluster, openb_cluster
from capacity.simulation.sim import SimOptions, Simulator


def once(kind: str, folder: str, period: float, limit: int | None, skip: bool) -> tuple[float, float, dict]:
    t0 = time.perf_counter()
    cluster = helios_cluster(folder, job_limit=limit) if kind == "helios" else openb_cluster(folder, pod_limit=limit)
    sim = Simulator(cluster, SimOptions(period=period, event_driven=skip))
    t1 = time.perf_counter()
    sim.run_to_end()
    t2 = time.perf_counter()
    return t1 - t0, t2 - t1, sim.summary()


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("kind", choices=("helios", "openb"))
    p.add_argument("folder")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--period", type=float, default=60.0, help="seconds between cycles (default 60)")
    p.add_argument("--limit", type=int, default=None, help="only the first N jobs (helios) or pods (openb)")
    p.add_argument("--every-cycle", action="store_true", help="disable event-driven skipping")
    a = p.parse_args()
    loads, runs = [], []
    summary: dict = {}
    for i in range(a.runs):
        load, run, summary = once(a.kind, a.folder, a.period, a.limit, not a.every_cycle)
        loads.append(load)
        runs.append(run)
        print(f"run {i + 1}: load {load:.2f} s, replay {run:.2f} s", flush=True)
    total = [x + y for x, y in zip(loads, runs, strict=True)]
    per_cycle = statistics.median(runs) / max(1, summary["executed"]) * 1000
    print(f"{a.kind} replay, period {a.period:g} s: median total {statistics.median(total):.2f} s "
          f"(load {statistics.median(loads):.2f} s, replay {statistics.median(runs):.2f} s) over {a.runs} runs")
    print(f"cycles {summary['cycle']}: {summary['executed']} run ({per_cycle:.1f} ms each), "
          f"{summary['skipped']} skipped; binds {summary['binds']}, evictions {summary['evictions']}, "
          f"restarts {summary['restarts']}, jobs {summary['jobStates']}, still pending {summary['pending']}")


if __name__ == "__main__":
    main()
