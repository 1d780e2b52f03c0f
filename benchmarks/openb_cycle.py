"""Time one full scheduling cycle on the openb cluster (S1). Not a test: run it by hand.

    python -m benchmarks.openb_cycle PATH/TO/alibaba-openb-gpu-2023 [--runs 3] [--pods N] [--nodes N]

Prints the median wall time of `--runs` cycles, each on a freshly built cluster.
"""

from __future__ import annotations

import argparse
import statistics
import time

from capacity.core.trace import Trace
from capacity.io.openb import s1_cluster
from capacity.scheduler import run_cycle


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("folder")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--pods", type=int, default=None)
    p.add_argument("--nodes", type=int, default=None)
    p.add_argument("--trace", action="store_true", help="record the decision trace")
    a = p.parse_args()
    times = []
    binds = 0
    for _ in range(a.runs):
        cluster = s1_cluster(a.folder, pod_limit=a.pods, node_limit=a.nodes)
        t0 = time.perf_counter()
        res = run_cycle(cluster, Trace(enabled=a.trace))
        times.append(time.perf_counter() - t0)
        binds = len(res.binds)
    print(f"S1 full cycle: median {statistics.median(times):.3f} s over {a.runs} runs "
          f"({binds} binds; runs: {', '.join(f'{t:.3f}' for t in times)})")


if __name__ == "__main__":
    main()
