"""Step-to-fresh-charts: how long the dashboard takes from "Step one cycle" to every chart rebuilt.
Not a test: run it by hand (targets: default scenario <= 300 ms, openb scale <= 2 s).

    python -m benchmarks.dashboard                       # default scenario, 20 runs
    python -m benchmarks.dashboard --openb /work/shared/data/alibaba-openb-gpu-2023 --runs 3
    python -m benchmarks.dashboard --apptest             # also through Streamlit's AppTest (page reruns)

One run = what the Workspace and the pages do after the button: `Workspace.step()` (the snapshot of the
cluster before the cycle, the cycle with its decision trace), the queue plugin's numbers for the next cycle
(`Workspace.queue_numbers`), and the figures the Simulate, Queues and Treemaps pages draw, each serialised to
the JSON `st.plotly_chart` sends. Every run starts from a fresh copy of the scenario (the first cycle, where
everything is pending, is the heaviest). Prints the median, min and max and the median of each phase.
With --apptest, the same is timed as a user sees it without a browser: the click on Simulate's step button
(its rerun included) plus a rerun of the Treemaps page.
"""

from __future__ import annotations

import argparse
import copy
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from capacity.analysis.charts import queue_tree_figure, share_timeline_figure, treemap
from capacity.core.cluster import Cluster
from ui.state import Workspace, new_workspace

ROOT = Path(__file__).resolve().parents[1]


def step_to_charts(ws: Workspace) -> dict[str, float]:
    """One step and every chart rebuilt; seconds per phase."""
    t0 = time.perf_counter()
    ws.step()
    t1 = time.perf_counter()
    numbers = ws.queue_numbers()
    t2 = time.perf_counter()
    figures = [share_timeline_figure(ws.share_history()), queue_tree_figure(numbers),
               treemap(numbers, "allocated", "cpu").figure]
    for fig in figures:
        fig.to_json()
    t3 = time.perf_counter()
    return {"step": t1 - t0, "numbers": t2 - t1, "figures": t3 - t2, "total": t3 - t0}


def measure(make: Callable[[], Workspace], runs: int) -> list[dict[str, float]]:
    out = []
    for _ in range(runs):
        ws = make()
        out.append(step_to_charts(ws))
    return out


def report(label: str, results: list[dict[str, float]]) -> None:
    totals = [r["total"] for r in results]
    phases = ", ".join(f"{k} {statistics.median(r[k] for r in results) * 1000:.0f} ms"
                       for k in ("step", "numbers", "figures"))
    print(f"{label}: median {statistics.median(totals) * 1000:.0f} ms over {len(results)} runs "
          f"(min {min(totals) * 1000:.0f}, max {max(totals) * 1000:.0f}; {phases})")


def apptest(make: Callable[[], Workspace], runs: int) -> list[float]:
    """Click Simulate's step button and rerun the Treemaps page, through AppTest (no browser)."""
    from streamlit.testing.v1 import AppTest

    from ui.state import WORKSPACE_KEY

    times = []
    for _ in range(runs):
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
        at.session_state[WORKSPACE_KEY] = make()
        at.switch_page("pages/simulate.py").run()
        t0 = time.perf_counter()
        at.button(key="step_btn").click().run()
        at.switch_page("pages/treemaps.py").run()
        times.append(time.perf_counter() - t0)
        assert not at.exception, [e.value for e in at.exception]
    return times


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=None, help="default: 20 (default scenario), 3 (openb)")
    p.add_argument("--openb", metavar="FOLDER", help="also at the openb scale (capacity.io.openb.s1_cluster)")
    p.add_argument("--pods", type=int, default=None, help="openb: only the first N pods")
    p.add_argument("--apptest", action="store_true", help="also time the page reruns through AppTest")
    a = p.parse_args()

    base = new_workspace()
    runs = a.runs or 20
    measure(lambda: Workspace(base.scenario, copy.deepcopy(base.cluster)), 2)  # warm-up: imports, caches
    report("default scenario", measure(lambda: Workspace(base.scenario, copy.deepcopy(base.cluster)), runs))
    if a.apptest:
        times = apptest(lambda: Workspace(base.scenario, copy.deepcopy(base.cluster)), max(3, runs // 4))
        print(f"default scenario via AppTest (step click + Treemaps rerun): median "
              f"{statistics.median(times) * 1000:.0f} ms over {len(times)} runs")
    if a.openb:
        from capacity.io.openb import s1_cluster

        t0 = time.perf_counter()
        cluster: Cluster = s1_cluster(a.openb, pod_limit=a.pods)
        print(f"openb S1: {len(cluster.nodes)} nodes, {len(cluster.queues)} queues, {len(cluster.pods)} pods "
              f"(built in {time.perf_counter() - t0:.1f} s)")
        runs = a.runs or 3
        report("openb scale", measure(lambda: Workspace("openb", copy.deepcopy(cluster)), runs))
        if a.apptest:
            times = apptest(lambda: Workspace("openb", copy.deepcopy(cluster)), runs)
            print(f"openb scale via AppTest (step click + Treemaps rerun): median "
                  f"{statistics.median(times):.2f} s over {len(times)} runs")


if __name__ == "__main__":
    main()
