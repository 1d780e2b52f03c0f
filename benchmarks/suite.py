"""Capacity Lab's speed figures (issue 9), measured the same way every time. Not a test: timings are
goals, never asserts (DESIGN.md).

    python -m benchmarks.suite [--data ../shared/data] [--runs 3] [--only s1,steady,...]
    python -m capacity bench ...                        (the same)

Figures, each the median of `--runs` runs (the replays and growth runs have their own counts):

  s1        S1 full cycle: the openb cluster (1,523 nodes, 8,152 pending pods, one PodGroup each, 200 leaf
            queues in a 2-level tree; capacity + gang + priority + predicates + nodeorder; enqueue, allocate,
            backfill, reclaim, preempt), one cycle on a freshly built cluster. Target <= 1.0 s.
  trace     What the decision trace costs (issue 3): S1 cycles with tracing on and off, alternating, each in a
            fresh process on a freshly built cluster; the ratio of the two medians (at least 11 runs each).
            Target <= 1.2.
  steady    S1 once its first cycle is written back (bound pods Running) and a second cycle has run: the
            next cycle, in which everything that can run runs, as the Simulator runs it, with the
            SnapshotCache it hands from one cycle to the next (nodes, jobs and the queue tree that did not
            change taken as they are: the issue's "avoiding per-cycle rebuilds"). Target <= 50 ms.
  steady-cold  The same cycle without the cache, every Node, Job and Task built again from the cluster
            objects: what a one-off `simulate` run pays per cycle. A reference, no target.
  yaml      Loading the S1 dump from YAML (`load_cluster_file`, libyaml's C loader when present). <= 6 s.
  helios    Helios-15k replay (`capacity.simulation.replay.helios_cluster` + `Simulator.run_to_end`). <= 30 s.
  openb     openb replay (`capacity.simulation.replay.openb_cluster` + `Simulator.run_to_end`). <= 60 s.
  lint      `lint_text` on two generated 10,000-queue trees (hierarchy on): a parent chain 10,000 deep and a
            root with 10,000 children, YAML parsing included (issue 26: the chain took minutes). <= 2 s each.
  process   Whole processes (issue 33): `--help` and the first import of the engine (<= 0.3 s each);
            `simulate` of the S1 dump from YAML and from JSON (`kubectl get -o json`, a List) against the
            parse floor, libyaml's C loader alone, in the same run (YAML <= 1.5x; JSON <= 1.0 s plus the cycle); then
            where a simulate's CPU goes (imports, parse, building objects, the cycle, output).
  dashboard The dashboard at S1 in Chromium (benchmarks/browser.py; needs Debian's chromium and Playwright):
            upload to a drawn page, a step, the first visit to Decisions, choosing a pod in why-pending, a
            later visit of every page; bytes the browser received and the server's memory (RSS, peak)
            beside each. Medians of `--runs` journeys, a fresh server each. No targets asserted.
  plan      Capacity planning (issue 31): candidates per minute on the Helios-15k replay, local processes
            vs a local Ray instance, at 1 and 2 workers, and the scaling estimate (benchmarks/plan.py).
            Not in the default set (it takes minutes): `--only plan`.
  growth    S1 cycle time when doubling nodes (761 -> 1,523), pods (4,076 -> 8,152) or leaf queues at
            fixed pods (100 -> 200): ratios <= 2.2, 2.2 and 1.1.

The machine is shared: every figure is printed with the 1-minute load average around it, and CPU time
(process time) beside wall time, which other processes disturb less. Peak memory beside each: the process's
peak RSS during the figure's runs (VmHWM, reset before them where Linux allows), or the child's ru_maxrss
for whole processes.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

OPENB = "alibaba-openb-gpu-2023"
HELIOS = "helios-dirlab-15k"
FIGURES = ("s1", "trace", "steady", "steady-cold", "yaml", "process", "helios", "openb", "lint", "growth",
           "dashboard", "plan")
ALIASES = {"steady-cached": "steady"}  # (the name `steady` had before it meant the cached cycle)


@dataclass
class Figure:
    name: str
    unit: str
    target: float | None  # None: a reference figure, printed without a verdict
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    load: tuple[float, float] = (0.0, 0.0)
    probe: tuple[float, float] = (0.0, 0.0)  # `_probe()` before and after
    note: str = ""
    peak_kib: int = 0  # peak memory during the figure's runs (0: not measured)
    parts: dict[str, float] = field(default_factory=dict)  # a phases figure's median CPU seconds per phase

    @property
    def median(self) -> float:
        return statistics.median(self.wall) if self.wall else float("nan")

    @property
    def cpu_median(self) -> float:
        return statistics.median(self.cpu) if self.cpu else float("nan")

    def line(self) -> str:
        scale = 1000.0 if self.unit == "ms" else 1.0
        verdict = "ref" if self.target is None else "meets" if self.median <= self.target else "ABOVE"
        if self.unit == "x":
            value, cpu = f"{self.median:.2f}x", f"{self.cpu_median:.2f}x"
            target = f"<= {self.target:g}x" if self.target is not None else "-"
        else:
            value = f"{self.median * scale:.3f} {self.unit}"
            cpu = f"{self.cpu_median * scale:.3f} {self.unit}"
            target = f"<= {self.target * scale:g} {self.unit}" if self.target is not None else "-"
        runs = ", ".join(f"{w * scale:.3f}" if self.unit != "x" else f"{w:.2f}" for w in self.wall)
        peak = f"peak {self.peak_kib / 1024:.0f} MiB" if self.peak_kib else "peak -"
        return (f"{self.name:<34} {value:>12}  cpu {cpu:>12}  {target:<10} {verdict:<5}  {peak:<14}  "
                f"load {self.load[0]:.1f}->{self.load[1]:.1f}  probe {self.probe[0]:.3f}->{self.probe[1]:.3f} s  "
                f"runs [{runs}]{'  ' + self.note if self.note else ''}")


def _probe() -> float:
    """CPU seconds of a fixed pure-Python loop (the least of three): how fast this shared machine runs the
    interpreter right now, printed beside every figure. On the 2-core machine of issue 9, with Debian's
    python3.11, it reads about 0.06 s in a quiet spell and up to half as much again in a slow one: figures
    taken at different readings are not comparable."""
    best = float("inf")
    for _ in range(3):
        c0 = time.process_time()
        s = 0
        for i in range(1_000_000):
            s += i * i % 7
        best = min(best, time.process_time() - c0)
    return best


def _load() -> float:
    try:
        return os.getloadavg()[0]
    except OSError:  # pragma: no cover - not on every platform
        return float("nan")


def reset_peak() -> bool:
    """Start this process's peak-RSS count again (Linux: /proc/self/clear_refs); False where it cannot."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def peak_kib() -> int:
    """This process's peak RSS in KiB since the last `reset_peak` (VmHWM), else ru_maxrss (since it started)."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    import resource
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def timed(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    w0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - w0, time.process_time() - c0, out


def measure(fig: Figure, runs: int, setup: Callable[[], Any], body: Callable[[Any], Any]) -> Any:
    """Median of `runs`: `setup()` untimed, then `body(state)` timed."""
    before, probe = _load(), _probe()
    out = None
    reset_peak()
    for _ in range(runs):
        state = setup()
        w, c, out = timed(lambda state=state: body(state))
        fig.wall.append(w)
        fig.cpu.append(c)
    fig.peak_kib = peak_kib()
    fig.load = (before, _load())
    fig.probe = (probe, _probe())
    return out


# ---- the figures ----------------------------------------------------------------------------------

def s1(folder: str, runs: int, options: Any = None, **kw: Any) -> tuple[Figure, Any]:
    from capacity.core.trace import Trace
    from capacity.io.openb import s1_cluster
    from capacity.scheduler import run_cycle
    fig = Figure("S1 full cycle", "s", 1.0)
    res = measure(fig, runs, lambda: s1_cluster(folder, **kw), lambda c: run_cycle(c, Trace(enabled=False), options))
    fig.note = f"{len(res.binds)} binds, {len(res.evicted)} evictions"
    return fig, res


# A ratio of two noisy medians: identical runs differ by up to 15 % here, so fewer runs than this give a
# figure that wanders by several points from one invocation to the next.
TRACE_RUNS = 11
_TRACE_CHILD = """
import json, sys, time
from capacity.io.openb import s1_cluster
from capacity.scheduler import run_cycle
from capacity.core.trace import Trace
cluster = s1_cluster(sys.argv[1])
w, c = time.perf_counter(), time.process_time()
run_cycle(cluster, Trace(enabled=sys.argv[2] == "on"))
print(json.dumps([time.perf_counter() - w, time.process_time() - c]))
"""


def trace_cost(folder: str, runs: int) -> Figure:
    """Tracing on over tracing off, on S1. Every run is a fresh Python process (what a user's run is: one
    cycle's trace kept in one process) and the runs alternate off, on, on, off ... so that a slow spell of
    the shared machine falls on both; the figure is the ratio of the two medians."""
    import json
    import subprocess
    fig = Figure("S1 cycle, tracing on / off", "x", 1.2)
    runs = max(runs, TRACE_RUNS)
    times: dict[str, list[tuple[float, float]]] = {"off": [], "on": []}
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)}
    before, probe = _load(), _probe()
    for i in range(runs):
        for mode in (("off", "on") if i % 2 == 0 else ("on", "off")):
            out = subprocess.run([sys.executable, "-c", _TRACE_CHILD, folder, mode], capture_output=True,
                                 text=True, check=True, env=env)
            w, c = json.loads(out.stdout.strip().splitlines()[-1])
            times[mode].append((w, c))
    fig.load = (before, _load())
    fig.probe = (probe, _probe())
    import resource
    fig.peak_kib = int(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)  # (the largest child so far)
    med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in times.items()}
    fig.wall = [med["on"][0] / med["off"][0]]
    fig.cpu = [med["on"][1] / med["off"][1]]
    fig.note = (f"medians: off {med['off'][0]:.3f} s, on {med['on'][0]:.3f} s ({runs} runs each, "
                f"a fresh process per run)")
    return fig


def _steady_cluster(folder: str, cache: Any) -> Any:
    """S1 after two cycles written back: the first binds (its pods Running), the second runs on that."""
    from capacity.core.trace import Trace
    from capacity.io.openb import s1_cluster
    from capacity.scheduler import run_cycle
    cluster = s1_cluster(folder)
    for _ in range(2):
        run_cycle(cluster, Trace(enabled=False), cache=cache)
    return cluster


def steady(folder: str, runs: int) -> Figure:
    """The steady cycle as the Simulator runs it: with the SnapshotCache it keeps from one cycle to the
    next (unchanged nodes, jobs and queue tree taken as they are)."""
    from capacity.accel.snapshot_cache import SnapshotCache
    from capacity.core.trace import Trace
    from capacity.scheduler import run_cycle
    fig = Figure("steady cycle (S1, everything running)", "ms", 0.050)
    cache = SnapshotCache()
    cluster = _steady_cluster(folder, cache)
    res = measure(fig, runs, lambda: cluster,
                  lambda c: run_cycle(c, Trace(enabled=False), write_back=False, cache=cache))
    running = sum(1 for p in cluster.pods.values() if p.phase == "Running")
    fig.note = (f"{running} pods running, {len(cluster.pods) - running} not; {len(res.binds)} binds, "
                f"{len(res.evicted)} evictions; the simulator's cache")
    return fig


def steady_cold(folder: str, runs: int) -> Figure:
    """`steady` without the cache: every Node, Job and Task built again from the cluster objects."""
    from capacity.core.trace import Trace
    from capacity.scheduler import run_cycle
    fig = Figure("steady cycle, no cache (reference)", "ms", None)
    cluster = _steady_cluster(folder, None)
    res = measure(fig, runs, lambda: cluster, lambda c: run_cycle(c, Trace(enabled=False), write_back=False))
    fig.note = f"{len(res.binds)} binds; every object rebuilt"
    return fig


def yaml_load(folder: str, runs: int) -> Figure:
    import yaml

    from capacity.io.k8s import load_cluster_file
    from capacity.io.openb import s1_objects
    fig = Figure("S1 YAML load", "s", 6.0)
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "s1.yaml")
        with open(path, "w", encoding="utf-8") as fh:
            yaml.dump_all(s1_objects(folder), fh, Dumper=dumper, sort_keys=False)
        size = os.path.getsize(path)
        cluster = measure(fig, runs, lambda: path, load_cluster_file)
    fig.note = f"{size / 1e6:.1f} MB, {len(cluster.nodes)} nodes, {len(cluster.pods)} pods"
    return fig


def _child(argv: list[str]) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user + system) and peak memory (KiB, ru_maxrss) of one child process."""
    w0 = time.perf_counter()
    with tempfile.TemporaryFile() as err:  # a file, not a pipe: a chatty child cannot block on it
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - w0
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            err.seek(0)
            raise RuntimeError(f"{' '.join(argv)} exited {proc.returncode}: {err.read()[-500:]!r}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


_ENGINE_IMPORT = "import capacity.io.k8s, capacity.simulation.sim, capacity.scheduler"
_PARSE_FLOOR = "import sys, yaml; list(yaml.load_all(open(sys.argv[1], encoding='utf-8'), Loader=yaml.CSafeLoader))"


# Where a whole `simulate` goes, phase by phase, in one fresh process (CPU seconds of each).
_PHASES = """
import json, sys, time
c = [time.process_time()]
from capacity.io import k8s
from capacity.core import limits
from capacity.core.gcpause import gc_paused
from capacity.scheduler import simulate
from capacity.core.trace import Trace
c.append(time.process_time())
with gc_paused():  # as load_cluster reads
    text = limits.read_text_file(sys.argv[1])
    docs = list(k8s.iter_documents(text, sys.argv[1]))
    c.append(time.process_time())
    cluster = k8s.load_objects(iter(docs), sys.argv[1])
c.append(time.process_time())
result = simulate(cluster, 1, Trace(enabled=False))
c.append(time.process_time())
json.dumps(result.as_json())
c.append(time.process_time())
print(json.dumps([b - a for a, b in zip(c, c[1:])]))
"""
PHASES = ("imports", "parse", "objects", "cycle", "output")


def phases(path: str, runs: int) -> Figure:
    """`simulate`'s phases in a fresh process each run: imports, parse, building objects, the cycle, output."""
    import json
    fig = Figure(f"S1 simulate {os.path.splitext(path)[1][1:].upper()}, phases (cpu)", "s", None)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)}
    before, probe = _load(), _probe()
    rows = []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", _PHASES, path], capture_output=True, text=True, check=True,
                             env=env)
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
        fig.wall.append(sum(rows[-1]))
        fig.cpu.append(sum(rows[-1]))
    fig.load, fig.probe = (before, _load()), (probe, _probe())
    fig.parts = {name: statistics.median(r[i] for r in rows) for i, name in enumerate(PHASES)}
    fig.note = ", ".join(f"{name} {value:.3f}" for name, value in fig.parts.items())
    return fig


def process_figures(folder: str, runs: int) -> list[Figure]:
    """Whole processes, as a user runs them (issue 33): `simulate` of the S1 dump from YAML and from JSON,
    the parse floor (libyaml's C loader alone, nothing else), and `--help`; peak memory of each beside it."""
    import json

    import yaml

    from capacity.io.openb import s1_objects
    py = sys.executable
    figs: list[Figure] = []
    with tempfile.TemporaryDirectory() as tmp:
        objs = list(s1_objects(folder))
        ypath, jpath = os.path.join(tmp, "s1.yaml"), os.path.join(tmp, "s1.json")
        with open(ypath, "w", encoding="utf-8") as fh:
            yaml.dump_all(objs, fh, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper), sort_keys=False)
        with open(jpath, "w", encoding="utf-8") as fh:
            json.dump({"apiVersion": "v1", "kind": "List", "items": objs}, fh)
        cases = [("--help, whole process", "s", 0.3, [py, "-m", "capacity", "--help"]),
                 ("engine first import, whole process", "s", 0.3, [py, "-c", _ENGINE_IMPORT]),
                 ("S1 parse floor (C loader alone)", "s", None, [py, "-c", _PARSE_FLOOR, ypath]),
                 ("S1 simulate YAML, whole process", "s", None, [py, "-m", "capacity", "simulate", ypath]),
                 ("S1 simulate JSON, whole process", "s", None, [py, "-m", "capacity", "simulate", jpath])]
        for name, unit, target, argv in cases:
            fig = Figure(name, unit, target)
            before, probe = _load(), _probe()
            peaks = []
            for _ in range(runs):
                w, c, peak = _child(argv)
                fig.wall.append(w)
                fig.cpu.append(c)
                peaks.append(peak)
            fig.load, fig.probe = (before, _load()), (probe, _probe())
            fig.peak_kib = int(statistics.median(peaks))
            figs.append(fig)
        floor, ysim, jsim = figs[2], figs[3], figs[4]
        for name, fig in (("simulate YAML / parse floor", ysim), ("simulate JSON / parse floor", jsim)):
            ratio = Figure(name, "x", 1.5 if "YAML" in name else None)
            ratio.wall = [w / f for w, f in zip(fig.wall, floor.wall, strict=True)]
            ratio.cpu = [w / f for w, f in zip(fig.cpu, floor.cpu, strict=True)]
            ratio.load, ratio.probe, ratio.peak_kib = fig.load, fig.probe, fig.peak_kib
            ratio.note = (f"YAML {os.path.getsize(ypath) / 1e6:.1f} MB, JSON {os.path.getsize(jpath) / 1e6:.1f} MB")
            figs.append(ratio)
        yph, jph = phases(ypath, runs), phases(jpath, runs)
        # Issue 33's JSON target is "at most 1.0 s for S1 plus the cycle": the whole process less the cycle's
        # median CPU (measured phase by phase in the same run).
        less = Figure("S1 simulate JSON, less the cycle", "s", 1.0)
        cycle = jph.parts["cycle"]
        less.wall, less.cpu = [w - cycle for w in jsim.wall], [c - cycle for c in jsim.cpu]
        less.load, less.probe, less.peak_kib = jsim.load, jsim.probe, jsim.peak_kib
        less.note = f"whole process minus the cycle's {cycle:.3f} s (the JSON phases below)"
        figs += [less, yph, jph]
    return figs


def replay(kind: str, folder: str, runs: int) -> Figure:
    from capacity.framework.session import SessionOptions
    try:
        from capacity.simulation import replay as rp
        from capacity.simulation.sim import SimOptions, Simulator
    except ImportError as exc:  # the replays are another issue's work
        fig = Figure(f"{kind} replay", "s", 30.0 if kind == "helios" else 60.0)
        fig.note = f"not available: {exc}"
        return fig
    build = rp.helios_cluster if kind == "helios" else rp.openb_cluster
    fig = Figure("Helios-15k replay" if kind == "helios" else "openb replay", "s",
                 30.0 if kind == "helios" else 60.0)

    def body(_: Any) -> Any:
        sim = Simulator(build(folder), SimOptions(period=60.0, session=SessionOptions()))
        sim.run_to_end()
        return sim.summary()

    out = measure(fig, runs, lambda: None, body)
    fig.note = (f"load + run; {out['executed']} cycles run, {out['skipped']} skipped, {out['binds']} binds, "
                f"{out['evictions']} evictions")
    return fig


LINT_QUEUES = 10_000
_HIERARCHY_CONF = """\
kind: ConfigMap
metadata: {name: volcano-scheduler-configmap, namespace: volcano-system}
data:
  volcano-scheduler.conf: |
    actions: "enqueue, allocate"
    tiers:
    - plugins: [{name: gang}, {name: capacity, enableHierarchy: true}]
"""


def queue_tree_yaml(shape: str, n: int = LINT_QUEUES) -> str:
    """A hierarchy-on dump of `n` queues under root: one parent chain ("chain") or all siblings ("wide")."""
    docs = [_HIERARCHY_CONF, "kind: Queue\nmetadata: {name: root}\nspec: {}\n"]
    for i in range(n):
        parent = f"q{i - 1}" if shape == "chain" and i else "root"
        docs.append(f"kind: Queue\nmetadata: {{name: q{i}}}\nspec: {{parent: {parent}, deserved: {{cpu: '1'}}}}\n")
    return "---\n".join(docs)


def lint_trees(runs: int) -> list[Figure]:
    from capacity.analysis.lint import counts, lint_text
    figs = []
    for shape, what in (("chain", "a 10,000-queue parent chain"), ("wide", "10,000 sibling queues")):
        fig = Figure(f"lint, {what}", "s", 2.0)
        text = queue_tree_yaml(shape)
        found = measure(fig, runs, lambda text=text: text, lambda t, shape=shape: lint_text(t, source=shape))
        c = counts(found)
        fig.note = f"{len(text) / 1e6:.1f} MB of YAML; {c['error']} errors, {c['warning']} warnings, {c['info']} info"
        figs.append(fig)
    return figs


def growth(folder: str, runs: int) -> list[Figure]:
    """Cycle time ratios when one dimension doubles, the others held at S1's."""
    figs = []
    cases = (("doubling nodes", {"node_limit": 761}, {}, 2.2),
             ("doubling pods", {"pod_limit": 4076}, {}, 2.2),
             ("doubling queues at fixed pods", {"leaves": 100}, {"leaves": 200}, 1.1))
    for name, small, big, target in cases:
        fig = Figure(name, "x", target)
        a, _ = s1(folder, runs, **small)
        b, _ = s1(folder, runs, **big)
        fig.wall = [b.median / a.median]
        fig.cpu = [b.cpu_median / a.cpu_median]
        fig.load = (a.load[0], b.load[1])
        fig.probe = (a.probe[0], b.probe[1])
        fig.note = f"{a.median:.3f} s -> {b.median:.3f} s"
        fig.peak_kib = max(a.peak_kib, b.peak_kib)
        figs.append(fig)
    return figs


def dashboard(folder: str, runs: int) -> list[str]:
    """The dashboard at S1 in Chromium (benchmarks/browser.py): one line per step, or why it cannot run."""
    import yaml

    from capacity.io.openb import s1_objects
    try:
        import playwright.sync_api  # noqa: F401

        from benchmarks import browser
    except ImportError as exc:
        return [f"dashboard: not available: {exc} (pip install -r requirements-dev.txt)"]
    if not os.access(browser.CHROMIUM, os.X_OK):
        return [f"dashboard: not available: no chromium at {browser.CHROMIUM} (apt-get install -y chromium)"]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "s1-bench.yaml")
        with open(path, "w", encoding="utf-8") as fh:
            yaml.dump_all(s1_objects(folder), fh, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper),
                          sort_keys=False)
        before = _load()
        journeys = [browser.journey(path) for _ in range(runs)]
        head = (f"dashboard: S1 dump {os.path.getsize(path) / 1e6:.1f} MB, {runs} journey(s) in Chromium, "
                f"load {before:.1f}->{_load():.1f}")
    return [head, *browser.summarise(journeys)]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m capacity bench", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(p)
    return run(p.parse_args(argv))


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--data", default=os.path.join("..", "shared", "data"),
                   help="the folder holding alibaba-openb-gpu-2023/ and helios-dirlab-15k/ (default ../shared/data)")
    p.add_argument("--runs", type=int, default=3, help="runs per figure, median reported (default 3)")
    p.add_argument("--replay-runs", type=int, default=1, help="runs per replay (default 1)")
    p.add_argument("--plan-limit", type=int, default=None, help="plan: only the first N Helios jobs (a quick look)")
    p.add_argument("--only", default=",".join(f for f in FIGURES if f != "plan"),  # (plan takes minutes: asked for)
                   help=f"comma-separated subset of {', '.join(FIGURES)}")


def run(args: argparse.Namespace) -> int:
    wanted = [ALIASES.get(w.strip(), w.strip()) for w in args.only.split(",") if w.strip()]
    unknown = sorted(set(wanted) - set(FIGURES))
    if unknown:
        print(f"error: unknown figure(s) {', '.join(unknown)}; choose from {', '.join(FIGURES)}", file=sys.stderr)
        return 2
    openb = os.path.join(args.data, OPENB)
    helios = os.path.join(args.data, HELIOS)
    print(f"Capacity Lab bench: {os.cpu_count()} CPUs, load {_load():.1f}, probe {_probe():.3f} s, "
          f"Python {sys.version.split()[0]} ({sys.executable}), median of {args.runs} runs "
          f"(replays {args.replay_runs}); data {os.path.abspath(args.data)}", flush=True)
    for name in wanted:
        if name == "s1":
            figs = [s1(openb, args.runs, getattr(args, "session_options", None))[0]]
        elif name == "trace":
            figs = [trace_cost(openb, args.runs)]
        elif name == "steady":
            figs = [steady(openb, args.runs)]
        elif name == "steady-cold":
            figs = [steady_cold(openb, args.runs)]
        elif name == "yaml":
            figs = [yaml_load(openb, args.runs)]
        elif name == "process":
            figs = process_figures(openb, args.runs)
        elif name == "lint":
            figs = lint_trees(args.runs)
        elif name == "dashboard":
            for line in dashboard(openb, args.runs):
                print(line, flush=True)
            continue
        elif name == "plan":
            from benchmarks.plan import figures as plan_figures
            figs = plan_figures(helios, args.plan_limit)
        elif name in ("helios", "openb"):
            figs = [replay(name, helios if name == "helios" else openb, args.replay_runs)]
        else:
            figs = growth(openb, args.runs)
        for fig in figs:
            print(fig.line(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
