"""`replay openb|helios FOLDER | synthetic | cluster FILE.yaml`: a multi-cycle simulation over time.

Replays a real trace (the folders of shared/data; mappings in `capacity.simulation.replay`), a seeded synthetic
workload (`capacity.simulation.workload`) or a dump whose PodGroups and Pods carry the simulator's annotations
(`capacity.simulation.sim`). Prints what happened, how many cycles ran and how many were skipped because nothing
could change in them; writes the per-queue and per-cycle metrics as CSV.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from typing import Any

from capacity.cli import EXIT_INTERRUPTED
from capacity.commands.outputs import check_writable, write_or_report
from capacity.commands.simulate import print_warnings
from capacity.core.errors import InputError
from capacity.core.text import safe, safe_lines
from capacity.versions.cli import add_version_arg, chosen, session_kwargs

#: Volcano schedules every second; a trace that spans weeks is replayed with a coarser period.
DEFAULT_PERIOD = {"openb": 60.0, "helios": 60.0, "synthetic": 1.0, "cluster": 1.0}


def add_parser(sub: Any) -> None:
    s = sub.add_parser("replay", help="simulate over time: a trace, a synthetic workload or an annotated dump",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    s.add_argument("source", choices=("openb", "helios", "synthetic", "cluster"))
    s.add_argument("path", nargs="?", help="the trace folder (openb, helios) or the YAML dump (cluster)")
    s.add_argument("--period", type=float, help="seconds between cycles (default: 60 for the traces, else 1, "
                   "Volcano's schedulePeriod)")
    s.add_argument("--until", type=float, metavar="SECONDS", help="stop at this virtual time (default: when "
                   "nothing can change any more)")
    s.add_argument("--max-cycles", type=int, metavar="N", help="stop after N executed cycles")
    s.add_argument("--every-cycle", action="store_true", help="run every cycle, even those in which nothing "
                   "can change (slow; the results are the same)")
    s.add_argument("--limit", type=int, metavar="N", help="only the first N pods (openb) or jobs (helios)")
    s.add_argument("--nodes", type=int, default=None, help="cluster size: helios (default 128), synthetic (8)")
    s.add_argument("--policy", default="RestartJob", help="helios: the jobs' PodEvicted action ('' for none)")
    s.add_argument("--deserved", choices=("usage", "equal"), default="usage", help="helios: queue deserved split")
    s.add_argument("--seed", type=int, default=0, help="synthetic: the seed")
    s.add_argument("--jobs", type=int, default=200, help="synthetic: number of jobs")
    s.add_argument("--rate", type=float, default=1 / 60, help="synthetic: arrivals per second")
    s.add_argument("--csv", metavar="FILE", help="per-queue metrics, one row per executed cycle and queue")
    s.add_argument("--cycles-csv", metavar="FILE", help="per-cycle metrics: binds, evictions, utilisation...")
    s.add_argument("--format", choices=("text", "json"), default="text")
    s.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="a progress bar on stderr (default: when stderr is a terminal)")
    add_version_arg(s)


def load_source(args: argparse.Namespace) -> Any:
    """The Cluster to replay, with what describes it."""
    if args.source in ("openb", "helios", "cluster") and not args.path:
        raise InputError(args.source, "path", "needs the trace folder" if args.source != "cluster"
                         else "needs the YAML dump")
    if args.source == "openb":
        from capacity.simulation.replay import openb_cluster
        return openb_cluster(args.path, pod_limit=args.limit), f"openb {args.path}"
    if args.source == "helios":
        from capacity.simulation.replay import helios_cluster
        nodes = 128 if args.nodes is None else args.nodes
        return helios_cluster(args.path, nodes=nodes, policy=args.policy, deserved=args.deserved,
                              job_limit=args.limit), f"helios {args.path}"
    if args.source == "synthetic":
        from capacity.simulation.workload import WorkloadSpec, synthetic_cluster
        spec = WorkloadSpec(seed=args.seed, jobs=args.jobs, arrival_rate=args.rate,
                            queues={"team-a": 1, "team-b": 1, "team-c": 2},
                            service_types={"training": 0.8, "inference": 0.2},
                            policies={"RestartJob": 1, "AbortJob": 1, "": 1})
        return synthetic_cluster(spec, nodes=8 if args.nodes is None else args.nodes), f"synthetic seed {args.seed}"
    from capacity.io.k8s import load_cluster_file
    cluster = load_cluster_file(args.path)
    print_warnings([*cluster.warnings, *cluster.conf.warnings])
    return cluster, args.path


#: Sizes of a generated cluster beyond which a replay would only exhaust memory (S1 has 1,523 nodes).
MAX_NODES = 100_000
MAX_JOBS = 100_000
#: A replay's clock: from a millisecond a cycle up to about 30 years in all (cycle numbers stay exact).
MIN_PERIOD, MAX_SECONDS = 0.001, 1e9
#: Synthetic arrivals: at least one every ~3 hours (so that 100,000 jobs arrive within MAX_SECONDS).
MIN_RATE, MAX_RATE = 1e-4, 1e6


def check_options(args: argparse.Namespace) -> None:
    """Refuse a numeric option out of range before anything is built, naming the option itself
    (not the queue or PodGroup a bad value would otherwise end up in)."""
    def number(option: str, value: float | None, low: float, high: float, what: str) -> None:
        if value is not None and not (low <= value <= high):  # (NaN fails both)
            raise InputError(option, "", f"must be {what}, got {value:g}")

    seconds = f"a number of seconds from {{}} to {MAX_SECONDS:g}"
    number("--period", args.period, MIN_PERIOD, MAX_SECONDS, seconds.format(f"{MIN_PERIOD:g}"))
    number("--until", args.until, 0, MAX_SECONDS, seconds.format(0))
    if args.max_cycles is not None and args.max_cycles < 1:
        raise InputError("--max-cycles", "", "must be at least 1")
    if args.limit is not None and args.limit < 0:
        raise InputError("--limit", "", f"must be 0 or more, got {args.limit}")
    if args.nodes is not None and not 1 <= args.nodes <= MAX_NODES:
        raise InputError("--nodes", "", f"must be from 1 to {MAX_NODES:,} nodes, got {_short_int(args.nodes)}")
    if args.source == "synthetic":
        if not 0 <= args.jobs <= MAX_JOBS:
            raise InputError("--jobs", "", f"must be from 0 to {MAX_JOBS:,} jobs, got {_short_int(args.jobs)}")
        number("--rate", args.rate, MIN_RATE, MAX_RATE, f"a number of arrivals per second from {MIN_RATE:g} "
               f"to {MAX_RATE:g}")
    if args.source == "helios" and args.policy:
        from capacity.simulation.sim import KILLING, SYNCING
        if args.policy not in KILLING and args.policy not in SYNCING:
            raise InputError("--policy", "", f"unknown action {args.policy!r} (one of "
                             f"{', '.join(sorted([*KILLING, *SYNCING]))}, or '' for none)")
    check_writable("--csv", args.csv)
    check_writable("--cycles-csv", args.cycles_csv)


def _short_int(n: int) -> str:
    text = str(n)
    return text if len(text) <= 20 else f"{text[:12]}... ({len(text)} digits)"


def run(args: argparse.Namespace) -> int:
    from capacity.simulation.sim import SimOptions, Simulator

    period = args.period if args.period is not None else DEFAULT_PERIOD[args.source]
    check_options(args)
    started = time.perf_counter()
    cluster, label = load_source(args)
    from capacity.framework.session import SessionOptions
    release = chosen(args, cluster if args.source == "cluster" else None)
    sim = Simulator(cluster, SimOptions(period=period, event_driven=not args.every_cycle,
                                        session=SessionOptions(**session_kwargs(release))))
    loaded = time.perf_counter()
    show = sys.stderr.isatty() if args.progress is None else args.progress
    bar = ProgressBar(sim) if show else None
    interrupted = False
    with StopAfterCycle() as stop:
        def progress(s: Any, record: Any) -> None:
            if bar:
                bar.update(s, record)
            stop.check()
        try:
            if args.until is not None:
                sim.run_until(args.until, progress, max_cycles=args.max_cycles)
            else:
                sim.run_to_end(progress, max_cycles=args.max_cycles)
        except Interrupted:
            interrupted = True
    if bar:
        bar.close()
    finished = time.perf_counter()
    out = sim.summary()
    out.update({"source": label, "period": period, "loadSeconds": round(loaded - started, 3),
                "runSeconds": round(finished - loaded, 3)})
    if interrupted:
        out["interrupted"] = True
    failed = []
    for option, path, level, key in (("--csv", args.csv, "queue", "queueCsv"),
                                     ("--cycles-csv", args.cycles_csv, "cycle", "cycleCsv")):
        if not path:
            continue
        frame = sim.metrics(level)
        error = write_or_report(option, path, lambda p, frame=frame: frame.to_csv(p, index=False))
        if error:
            failed.append(error)
        else:
            out[key] = {"file": path, "rows": len(frame)}
    print(json.dumps(out) if args.format == "json" else render_text(out))
    for error in failed:  # after the result, which is not lost with the file
        print(f"error: {safe(str(error))}", file=sys.stderr)
    if interrupted:
        print(f"interrupted (Ctrl-C) after cycle {out['cycle']}: the results above are those of the "
              f"{out['executed']} cycle(s) run", file=sys.stderr)
        return EXIT_INTERRUPTED
    return 2 if failed else 0


class Interrupted(Exception):
    """Ctrl-C, taken between two cycles so that the cycles done are whole."""


class StopAfterCycle:
    """While active, a first Ctrl-C asks the replay to stop after the current cycle (`check` raises
    `Interrupted` there); a second one interrupts at once. Outside the main thread it does nothing."""

    def __init__(self) -> None:
        self.requested = False
        self._previous: Any = None

    def __enter__(self) -> StopAfterCycle:
        try:
            self._previous = signal.signal(signal.SIGINT, self._handle)
        except ValueError:  # not the main thread: Ctrl-C is not ours to catch
            self._previous = None
        return self

    def __exit__(self, *exc: object) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)

    def _handle(self, signum: int, frame: Any) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True

    def check(self) -> None:
        if self.requested:
            raise Interrupted


def render_text(out: dict[str, Any]) -> str:
    lines = [
        f"replay {out['source']}, a cycle every {out['period']:g} s",
        f"cycles: {out['cycle']} ({out['executed']} run, {out['skipped']} skipped: nothing could change in them)",
        f"virtual time: {duration(out['time'])}",
        f"arrived jobs: {out['arrivals']} ({out['arrivalsLeft']} still to come)",
        f"binds {out['binds']}, evictions {out['evictions']}, completed pods {out['completed']}, "
        f"job restarts {out['restarts']}",
        "vcjobs: " + (", ".join(f"{k} {v}" for k, v in out["jobStates"].items()) or "none finished"),
        f"now: {out['pending']} pods pending, {out['running']} running, {out['releasing']} releasing",
        f"wall time: load {out['loadSeconds']:.2f} s, replay {out['runSeconds']:.2f} s",
    ]
    for key, what in (("queueCsv", "queue metrics"), ("cycleCsv", "cycle metrics")):
        if key in out:
            lines.append(f"wrote {what}: {out[key]['file']} ({out[key]['rows']} rows)")
    return safe_lines(lines)


def duration(seconds: float) -> str:
    days, rest = divmod(int(seconds), 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    return (f"{days}d " if days else "") + f"{hours:02d}:{minutes:02d}:{secs:02d}"


class ProgressBar:
    """Arrivals replayed so far, cycles run and skipped, on one self-overwriting stderr line."""

    WIDTH = 30

    def __init__(self, sim: Any, interval: float = 0.2) -> None:
        self.sim = sim
        self.interval = interval
        self.last = 0.0

    def update(self, sim: Any, _record: Any) -> None:
        now = time.perf_counter()
        if now - self.last >= self.interval:
            self.last = now
            self.draw()

    def draw(self) -> None:
        sim = self.sim
        total = sim.arrivals_total
        frac = 1.0 if total == 0 else (total - sim.arrivals_left) / total
        filled = int(frac * self.WIDTH)
        err = getattr(sys.stderr, "unfiltered", sys.stderr)  # (the carriage return is ours: not escaped)
        err.write(f"\r[{'#' * filled}{'.' * (self.WIDTH - filled)}] {frac:4.0%} "
                  f"t={duration(sim.time)} cycles {sim.executed} run, {sim.skipped} skipped ")
        err.flush()

    def close(self) -> None:
        self.draw()
        sys.stderr.write("\n")
