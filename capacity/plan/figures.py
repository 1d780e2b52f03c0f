"""One candidate's replay (`capacity.simulation.sim.Simulator`) and the figures the goals are judged on.

Read from the cycles the simulator runs, never recomputed from a second model:

- a job's wait: from its arrival (`capacity-lab/arrival`, 0 for a job present from the start with no pod
  running) to the first cycle that binds one of its pods; a job still waiting when the replay ends counts
  with the wait it has had so far (so a queue that never starts its jobs shows its whole horizon);
- `wait_p50[q]`, `wait_p95[q]`: percentiles (linear interpolation) of the waits of queue q's jobs, seconds;
- `started_within_<T>s[q]`: the share of q's jobs whose wait is at most T seconds;
- `utilisation[r]`: resource r in use on the ready nodes (the cycle rows' `util_r`), averaged over virtual
  time from 0 to the replay's last cycle, each cycle's figure holding until the next executed cycle;
- `evictions`, `evictions[q]`: pods evicted (reclaim, preempt), in all and per queue;
- `fairness`: Jain's index over the queues with jobs of their mean waits, (sum w)^2 / (n sum w^2):
  1 when every queue waits alike, 1/n when one queue does all the waiting (1 when nobody waits).
"""

from __future__ import annotations

from typing import Any

from capacity.core.cluster import Cluster

_PERCENTILES = {"wait_p50": 50.0, "wait_p95": 95.0}


def replay_figures(cluster: Cluster, queues: tuple[str, ...], period: float, until: float | None,
                   max_cycles: int | None, within: tuple[float, ...], resources: tuple[str, ...],
                   lacking: frozenset[str] = frozenset(), version: str = "HEAD") -> dict[str, Any]:
    """Replay `cluster` (which the simulator takes over) on the release lacking `lacking` and return its
    figures by results column."""
    from capacity.framework.session import SessionOptions
    from capacity.simulation.sim import SimOptions, Simulator

    session = SessionOptions(lacking=lacking, version=version)
    sim = Simulator(cluster, SimOptions(period=period, event_driven=True, session=session))
    arrival: dict[str, float] = {}
    queue_of: dict[str, str] = {}
    running_groups = {f"{p.namespace}/{p.group}" for p in cluster.pods.values()
                      if p.group and p.phase == "Running"}
    for uid, pg in cluster.podgroups.items():
        if uid not in running_groups:
            arrival[uid], queue_of[uid] = 0.0, pg.queue
    for a in sim.arrivals:
        arrival[a.podgroup.uid], queue_of[a.podgroup.uid] = a.time, a.podgroup.queue
    started: dict[str, float] = {}
    evicted: dict[str, int] = {}
    util: list[tuple[float, dict[str, float]]] = []

    def watch(s: Any, record: Any) -> None:
        pods = s.cluster.pods
        for key in record.result.binds:
            pod = pods.get(key)
            if pod is not None and pod.group:
                started.setdefault(f"{pod.namespace}/{pod.group}", record.time)
        for key in record.result.evicted:
            pod = pods.get(key)
            q = queue_of.get(f"{pod.namespace}/{pod.group}", "") if pod is not None else ""
            evicted[q] = evicted.get(q, 0) + 1
        util.append((record.time, {r: record.row.get(f"util_{r}", 0.0) for r in resources}))

    if until is not None:
        sim.run_until(until, watch, max_cycles=max_cycles)
    else:
        sim.run_to_end(watch, max_cycles=max_cycles)
    end = sim.time
    out: dict[str, Any] = {"cycles": sim.executed, "virtual_seconds": end}
    waits: dict[str, list[float]] = {q: [] for q in queues}
    unstarted = 0
    for uid, t0 in arrival.items():
        if t0 > end:
            continue  # arrives after the horizon
        t1 = started.get(uid)
        if t1 is None:
            unstarted += 1
        waits.setdefault(queue_of[uid], []).append(max(0.0, (end if t1 is None else t1) - t0))
    for q in queues:
        w = sorted(waits.get(q, []))
        for metric, pct in _PERCENTILES.items():
            out[f"{metric}[{q}]"] = percentile(w, pct)
        for t in within:
            out[f"started_within_{t:g}s[{q}]"] = (sum(1 for x in w if x <= t) / len(w)) if w else float("nan")
        out[f"evictions[{q}]"] = evicted.get(q, 0)
    out["jobs"] = sum(len(w) for w in waits.values())
    out["unstarted"] = unstarted
    out["evictions"] = sum(evicted.values())
    for r in resources:
        out[f"utilisation[{r}]"] = time_average(util, r, end)
    means = [sum(w) / len(w) for w in waits.values() if w]
    out["fairness"] = jain(means)
    return out


def percentile(sorted_values: list[float], pct: float) -> float:
    if not sorted_values:
        return float("nan")
    pos = (len(sorted_values) - 1) * pct / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def time_average(points: list[tuple[float, dict[str, float]]], resource: str, end: float) -> float:
    if not points or end <= 0:
        return 0.0
    total = 0.0
    for i, (t, values) in enumerate(points):
        nxt = points[i + 1][0] if i + 1 < len(points) else end
        total += values.get(resource, 0.0) * max(0.0, nxt - t)
    return total / end


def jain(values: list[float]) -> float:
    if not values:
        return 1.0
    square = sum(v * v for v in values)
    return 1.0 if square == 0 else sum(values) ** 2 / (len(values) * square)
